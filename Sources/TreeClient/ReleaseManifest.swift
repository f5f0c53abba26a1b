import Foundation

/// What a release's `update-manifest.json` says, checked: the version, the file index with its hash and size, and
/// the deltas offered from older versions.
struct ReleaseManifest {
    var version: Int
    var currentVersion: String
    var forceUpdate: Bool
    var minimumAppVersion: String?
    var index: IndexEntry
    /// fromVersion → path of the delta to this release.
    var deltas: [Int: String]

    init(_ bytes: [UInt8]) throws {
        let json: TreeJSON
        do { json = try TreeJSON.parse(bytes) } catch { throw InvalidDocument("update-manifest.json: \(error)") }
        guard let version = json["version"]?.int, version >= 1 else { throw InvalidDocument("update-manifest.json: no version") }
        guard let ref = json["fileIndex"], let path = ref["path"]?.string, let sha = ref["sha256"]?.string, let size = ref["size"]?.int else {
            throw InvalidDocument("update-manifest.json: fileIndex lacks a path, sha256 or size")
        }
        self.version = version
        currentVersion = json["currentVersion"]?.string ?? String(version)
        forceUpdate = json["forceUpdate"]?.bool ?? false
        minimumAppVersion = json["minimumAppVersion"]?.string
        index = try IndexEntry(path: path, sha256: sha, size: size, in: "update-manifest.json: fileIndex")
        var deltas: [Int: String] = [:]
        for d in json["deltasAvailable"]?.array ?? [] {
            guard let from = d["fromVersion"]?.int, let p = d["path"]?.string else { continue }
            if let why = TreePath.rejection(p) { throw InvalidDocument("update-manifest.json: delta \(TreePath.shown(p)): \(why)") }
            deltas[from] = p
        }
        self.deltas = deltas
    }
}
