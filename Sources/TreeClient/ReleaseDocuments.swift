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
        do { json = try TreeJSON.parse(bytes) } catch { throw Invalid("update-manifest.json: \(error)") }
        guard let version = json["version"]?.int, version >= 1 else { throw Invalid("update-manifest.json: no version") }
        guard let ref = json["fileIndex"], let path = ref["path"]?.string, let sha = ref["sha256"]?.string, let size = ref["size"]?.int else {
            throw Invalid("update-manifest.json: fileIndex lacks a path, sha256 or size")
        }
        self.version = version
        currentVersion = json["currentVersion"]?.string ?? String(version)
        forceUpdate = json["forceUpdate"]?.bool ?? false
        minimumAppVersion = json["minimumAppVersion"]?.string
        index = try IndexEntry(path: path, sha256: sha, size: size, in: "update-manifest.json: fileIndex")
        var deltas: [Int: String] = [:]
        for d in json["deltasAvailable"]?.array ?? [] {
            guard let from = d["fromVersion"]?.int, let p = d["path"]?.string else { continue }
            if let why = TreePath.rejection(p) { throw Invalid("update-manifest.json: delta \(TreePath.shown(p)): \(why)") }
            deltas[from] = p
        }
        self.deltas = deltas
    }
}

/// A file of a release as its index lists it.
struct IndexEntry: Equatable {
    var path: String
    var sha256: String
    var size: Int

    /// Checked: a path that stays in the tree, a sha256 in hex, a size of 0 or more.
    init(path: String, sha256: String, size: Int, in place: String) throws {
        if let why = TreePath.rejection(path) { throw Invalid("\(place) \(TreePath.shown(path)): \(why)") }
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw Invalid("\(place) \(TreePath.shown(path)): sha256 is not 64 lowercase hex digits")
        }
        guard size >= 0 else { throw Invalid("\(place) \(TreePath.shown(path)): negative size") }
        self.path = path; self.sha256 = sha256; self.size = size
    }

    var expected: HTTPFetcher.Expected { .init(size: size, sha256: sha256) }
}

/// A release's file index: every file of the tree but the index itself and the manifest.
struct ReleaseIndex {
    var files: [IndexEntry]
    var byPath: [String: IndexEntry]

    init(_ bytes: [UInt8], path: String) throws {
        let json: TreeJSON
        do { json = try TreeJSON.parse(bytes) } catch { throw Invalid("\(path): \(error)") }
        guard let list = json["files"]?.array else { throw Invalid("\(path): no files list") }
        files = []
        files.reserveCapacity(list.count)
        byPath = [:]
        byPath.reserveCapacity(list.count)
        for (i, e) in list.enumerated() {
            guard let p = e["path"]?.string, let h = e["sha256"]?.string, let s = e["size"]?.int else {
                throw Invalid("\(path): entry \(i) lacks a path, sha256 or size")
            }
            let entry = try IndexEntry(path: p, sha256: h, size: s, in: "\(path): entry \(i)")
            // The manifest and the index are written by the sync itself, last; a second copy of a path is ambiguous.
            guard p != "update-manifest.json", p != path, byPath.updateValue(entry, forKey: p) == nil else {
                throw Invalid("\(path): entry \(i) \(TreePath.shown(p)) is listed twice")
            }
            files.append(entry)
        }
    }
}

/// The part of a delta the sync uses: for each changed file, its old and new hashes and, when offered, its patch.
struct ReleaseDelta {
    struct Change { var sha256: String; var oldSha256: String; var patch: TreeJSON? }
    var fromVersion: Int
    var toVersion: Int
    var changed: [String: Change]

    init(_ bytes: [UInt8], path: String) throws {
        let json: TreeJSON
        do { json = try TreeJSON.parse(bytes) } catch { throw Invalid("\(path): \(error)") }
        guard let from = json["fromVersion"]?.int, let to = json["toVersion"]?.int else { throw Invalid("\(path): no fromVersion or toVersion") }
        fromVersion = from; toVersion = to
        changed = [:]
        for c in json["changed"]?.array ?? [] {
            guard let p = c["path"]?.string, let h = c["sha256"]?.string, let old = c["oldSha256"]?.string else { continue }
            changed[p] = Change(sha256: h, oldSha256: old, patch: c["patch"])
        }
    }
}

/// A release document that cannot be used as it is.
struct Invalid: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
