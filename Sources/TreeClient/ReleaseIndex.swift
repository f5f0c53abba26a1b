import Foundation

/// A release's file index: every file of the tree but the index itself and the manifest.
struct ReleaseIndex {
    var files: [IndexEntry]
    var byPath: [String: IndexEntry]

    init(_ bytes: [UInt8], path: String) throws {
        let json: TreeJSON
        do { json = try TreeJSON.parse(bytes) } catch { throw InvalidDocument("\(path): \(error)") }
        guard let list = json["files"]?.array else { throw InvalidDocument("\(path): no files list") }
        files = []
        files.reserveCapacity(list.count)
        byPath = [:]
        byPath.reserveCapacity(list.count)
        for (i, e) in list.enumerated() {
            guard let p = e["path"]?.string, let h = e["sha256"]?.string, let s = e["size"]?.int else {
                throw InvalidDocument("\(path): entry \(i) lacks a path, sha256 or size")
            }
            let entry = try IndexEntry(path: p, sha256: h, size: s, in: "\(path): entry \(i)")
            // The manifest and the index are written by the sync itself, last; a second copy of a path is ambiguous.
            guard p != "update-manifest.json", p != path, byPath.updateValue(entry, forKey: p) == nil else {
                throw InvalidDocument("\(path): entry \(i) \(TreePath.shown(p)) is listed twice")
            }
            files.append(entry)
        }
    }
}
