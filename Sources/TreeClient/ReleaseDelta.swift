import Foundation

/// The part of a delta the sync uses: for each changed file, its old and new hashes and, when offered, its patch.
struct ReleaseDelta {
    struct Change { var sha256: String; var oldSha256: String; var patch: TreeJSON? }
    var fromVersion: Int
    var toVersion: Int
    var changed: [String: Change]

    init(_ bytes: [UInt8], path: String) throws {
        let json: TreeJSON
        do { json = try TreeJSON.parse(bytes) } catch { throw InvalidDocument("\(path): \(error)") }
        guard let from = json["fromVersion"]?.int, let to = json["toVersion"]?.int else { throw InvalidDocument("\(path): no fromVersion or toVersion") }
        fromVersion = from; toVersion = to
        changed = [:]
        for c in json["changed"]?.array ?? [] {
            guard let p = c["path"]?.string, let h = c["sha256"]?.string, let old = c["oldSha256"]?.string else { continue }
            changed[p] = Change(sha256: h, oldSha256: old, patch: c["patch"])
        }
    }
}
