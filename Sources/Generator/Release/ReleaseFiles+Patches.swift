import Foundation
import Schemas

extension ReleaseFiles.NewRelease {
    /// Each changed JSON file's patch from the previous release's version to the new one, as text, by path (a file
    /// whose patch cannot be made is left out: apps download it whole). Largest first on every worker: the search
    /// index's byte scan must not start last.
    func patches(of changed: [FileEntry], from previous: PreviousRelease, fragments: [String: ReleaseFiles.Fragments],
                 newBytes: (String) -> MappedBytes?) throws -> [String: JSONStream] {
        let order = changed.indices.sorted { (changed[$0].size, $1) > (changed[$1].size, $0) }
        // Files of tens of MB one at a time: each diff maps in what differs of both versions (a search index's
        // keyword maps when a product was added), and two at once would add to the build's peak memory.
        let large = DispatchSemaphore(value: 1)
        let found = try Parallel.map(changed.count, order: order, threads: threads) { _, i throws -> JSONStream? in
            // The fragments of both versions, when the cache's earlier version is the previous release's.
            let f = fragments[changed[i].path]
            let layout = f?.oldSha256 == changed[i].sha256 ? f : nil
            // (A large file changed in a few entries, as its fragments tell, makes a small patch: not held back.)
            let isLarge = changed[i].size >= ReleaseFiles.largeDiff && layout?.isSmallChange != true
            if isLarge { large.wait() }
            defer { if isLarge { large.signal() } }
            let started = TraceClock.isOn ? Date() : nil
            defer {
                if let started, Date().timeIntervalSince(started) > 0.01 {
                    FileHandle.standardError.write(Data("  [trace] patch of \(changed[i].path): \(String(format: "%.3f", Date().timeIntervalSince(started))) s\n".utf8))
                }
            }
            return try Self.patch(changed[i].path, from: previous, newBytes: newBytes, layout: layout, newFragments: f?.new ?? [])
        }
        var patches: [String: JSONStream] = [:]
        for (i, patch) in found.enumerated() { if let patch { patches[changed[i].path] = patch } }
        return patches
    }

    /// One file's patch: the byte diff of the two versions (told where their fragments lie when the cache knows), or
    /// the diff of their values when the byte diff cannot vouch for the text.
    private static func patch(_ path: String, from previous: PreviousRelease, newBytes: (String) -> MappedBytes?,
                              layout: ReleaseFiles.Fragments?, newFragments: [Range<Int>]) throws -> JSONStream? {
        guard let old = try previous.mappedIfPresent(path), let new = newBytes(path) else { return nil }
        let known = (old: layout?.old ?? [], new: newFragments)
        let objects = (old: layout?.objects.map(\.old) ?? [], new: layout?.objects.map(\.new) ?? [])
        return old.withSpan { x in
            new.withSpan { y in
                JSONByteDiff.patch(x, y, arrays: known, same: layout?.same ?? [], objects: objects) ?? ReleaseFiles.valueDiff(x, y)
            }
        }
    }
}
