import Foundation
import TreeClient

/// Small published trees written by hand, shaped as the generator writes them (manifest, file index, the previous
/// index carried over, a delta with JSON patches), so the client is tested on its own.
struct SyntheticRelease {
    let root: URL
    let version: Int
    /// Content files: path → bytes.
    let files: [String: [UInt8]]
    let indexPath: String
    let indexBytes: [UInt8]

    /// Writes release `version` to `root`. `patches`: for files changed since `previous`, the patch to put in the delta
    /// (text of a JSON array). `indexEntries` rewrites the index entries before they are written (hostile releases).
    static func write(_ root: URL, version: Int, files: [String: String], previous: SyntheticRelease? = nil,
                      patches: [String: String] = [:],
                      indexEntries: (inout [(path: String, sha256: String, size: Int)]) -> Void = { _ in }) throws -> SyntheticRelease {
        let fm = FileManager.default
        try? fm.removeItem(at: root)
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        func put(_ path: String, _ bytes: [UInt8]) throws {
            let url = root.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        var content = files.mapValues { Array($0.utf8) }
        var all = content
        if let previous { all[previous.indexPath] = previous.indexBytes }
        var deltaRef = "null", available = "[]"
        if let previous {
            var added: [String] = [], changed: [String] = [], removed: [String] = []
            for (p, b) in content.sorted(by: { $0.key < $1.key }) {
                let h = HTTPFetcher.sha256Hex(b)
                if let old = previous.files[p] {
                    guard old != b else { continue }
                    let patch = patches[p].map { #","patch":\#($0)"# } ?? ""
                    changed.append(#"{"path":"\#(p)","sha256":"\#(h)","size":\#(b.count),"oldSha256":"\#(HTTPFetcher.sha256Hex(old))","oldSize":\#(old.count)\#(patch)}"#)
                } else {
                    added.append(#"{"path":"\#(p)","sha256":"\#(h)","size":\#(b.count)}"#)
                }
            }
            for (p, old) in previous.files.sorted(by: { $0.key < $1.key }) where content[p] == nil {
                removed.append(#"{"path":"\#(p)","oldSha256":"\#(HTTPFetcher.sha256Hex(old))","oldSize":\#(old.count)}"#)
            }
            let deltaPath = "releases/\(version)/delta-from-\(previous.version).json"
            let delta = #"{"fromVersion":\#(previous.version),"toVersion":\#(version),"added":[\#(added.joined(separator: ","))],"changed":[\#(changed.joined(separator: ","))],"removed":[\#(removed.joined(separator: ","))],"downloadBytes":0}"#
            all[deltaPath] = Array(delta.utf8)
            deltaRef = #"{"fromVersion":\#(previous.version),"path":"\#(deltaPath)","added":\#(added.count),"changed":\#(changed.count),"removed":\#(removed.count),"downloadBytes":0}"#
            available = #"[{"fromVersion":\#(previous.version),"path":"\#(deltaPath)"}]"#
        }
        for (p, b) in all { try put(p, b) }
        var entries = all.sorted { $0.key < $1.key }.map { (path: $0.key, sha256: HTTPFetcher.sha256Hex($0.value), size: $0.value.count) }
        indexEntries(&entries)
        let indexPath = "releases/\(version)/files.json"
        let index = Array((#"{"version":\#(version),"currentVersion":"v\#(version)","files":["#
            + entries.map { #"{"path":"\#($0.path)","sha256":"\#($0.sha256)","size":\#($0.size),"schema":null}"# }.joined(separator: ",")
            + "]}").utf8)
        try put(indexPath, index)
        let manifest = #"{"currentVersion":"v\#(version)","version":\#(version),"previousVersion":\#(previous.map { String($0.version) } ?? "null"),"forceUpdate":false,"minimumAppVersion":"1.0","lastUpdated":"2026-01-01T00:00:00Z","fileIndex":{"path":"\#(indexPath)","sha256":"\#(HTTPFetcher.sha256Hex(index))","size":\#(index.count)},"delta":\#(deltaRef),"deltasAvailable":\#(available)}"#
        try put("update-manifest.json", Array(manifest.utf8))
        content = files.mapValues { Array($0.utf8) }
        return SyntheticRelease(root: root, version: version, files: content, indexPath: indexPath, indexBytes: index)
    }
}

/// Relative path → bytes of every regular file below `root` (nil when it does not exist).
func snapshot(_ root: URL) -> [String: Data]? {
    guard FileManager.default.fileExists(atPath: root.path) else { return nil }
    var out: [String: Data] = [:]
    let base = root.standardizedFileURL.resolvingSymlinksInPath().path
    guard let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return out }
    for case let url as URL in e where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
        let path = url.standardizedFileURL.resolvingSymlinksInPath().path
        out[String(path.dropFirst(base.count + 1))] = try? Data(contentsOf: url)
    }
    return out
}

/// A fresh folder for one test, inside one folder per test process that is removed when the process exits (and, if
/// it was killed, by the next run).
func scratchFolder(_ name: String) -> URL {
    let url = scratchRoot.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

private let scratchRoot: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
    for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix("tree-client-tests-") {
        if let pid = Int32(name.dropFirst("tree-client-tests-".count)), kill(pid, 0) != 0, errno == ESRCH {
            try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
        }
    }
    let url = base.appendingPathComponent("tree-client-tests-\(getpid())")
    scratchRootPath = url.path
    atexit { if let p = scratchRootPath { try? FileManager.default.removeItem(atPath: p) } }
    return url
}()
nonisolated(unsafe) private var scratchRootPath: String?
