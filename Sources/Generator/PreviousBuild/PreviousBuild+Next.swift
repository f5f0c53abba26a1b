import Foundation

/// What this build leaves for the next one: the build cache of the tree it puts in place (each fingerprinted file
/// with its hash, size and fragments, the orders kept, the stamps of its large files).
extension PreviousBuild {
    /// The fragments of the files written from fragments in this build and in the one before (as the cache says): the
    /// release stage's byte diff takes the entries of their arrays from them instead of scanning.
    func fragmentLayouts(_ rendered: [Build.Rendered]) -> [String: ReleaseFiles.Fragments] {
        var out: [String: ReleaseFiles.Fragments] = [:]
        // (By position: a loop over the records would copy each of 100,000 to look at two fields.)
        for i in rendered.indices where !rendered[i].fragments.isEmpty && !rendered[i].reused {
            let r = rendered[i]
            guard let c = entries[r.path], !c.fragments.isEmpty else { continue }
            var layout = ReleaseFiles.Fragments(oldSha256: c.sha256, old: c.fragments.map(\.range), new: r.fragments.map(\.range))
            layout.same = r.same
            layout.objects = r.objects
            out[r.path] = layout
        }
        return out
    }

    /// The next cache's body for the release whose index has hash `release`, with its checksum, made on a thread of its
    /// own (hashed there too: only the stamps are hashed once the tree is in place).
    func makeCacheBytes(of staged: StagedFiles, release: String) -> Background<([UInt8], Checksum)> {
        let (files, rendered, previous) = (staged.files, staged.rendered, entries)
        return Background {
            let body = Self.cacheBytes(files, rendered, previous: previous, release: release)
            var digest = Checksum()
            digest.update(body)
            return (body, digest)
        }
    }

    /// Writes the cache of the tree now in the output, from its body made beforehand; a warning when it cannot be.
    func saveCache(_ made: ([UInt8], Checksum), of staged: StagedFiles, output: URL) -> String? {
        let bytes = BuildCache.finish(made.0, hashed: made.1, stamps: Self.stamps(staged.rendered, in: output), keptOrders: staged.keptOrders)
        return BuildCache.save(bytes: bytes, to: cacheFile)
    }

    /// Writes the cache of the tree now in the output (its release unchanged, its files' fingerprints perhaps not); a
    /// warning when it cannot be.
    func saveCache(of staged: StagedFiles, release: String, output: URL) -> String? {
        let bytes = BuildCache.finish(Self.cacheBytes(staged.files, staged.rendered, previous: entries, release: release),
                                      stamps: Self.stamps(staged.rendered, in: output), keptOrders: staged.keptOrders)
        return BuildCache.save(bytes: bytes, to: cacheFile)
    }

    /// The stamps of the files written from fragments (the large ones a later build reads back), as they are in the
    /// output now that the tree is in place (see `BuildCache.stamps`).
    static func stamps(_ rendered: [Build.Rendered], in output: URL) -> [String: FileStamp] {
        var out: [String: FileStamp] = [:]
        for i in rendered.indices where !rendered[i].fragments.isEmpty || rendered[i].keptFragments {
            let r = rendered[i]
            if let st = FileStamp(path: output.appendingPathComponent(r.path).path), st.size == r.size { out[r.path] = st }
        }
        return out
    }

    /// The cache of a tree: each fingerprinted file with its hash and size, in file order.
    static func cacheBytes(_ files: [OutputFile], _ rendered: [Build.Rendered], previous: [String: BuildCache.Entry], release: String) -> [UInt8] {
        let entries = files.indices.lazy.compactMap { i -> (String, BuildCache.Entry)? in
            guard let fp = files[i].fingerprint else { return nil }
            let r = rendered[i]
            var e = BuildCache.Entry(fingerprint: fp, sha256: r.sha256, size: r.size)
            // (A file kept as it was keeps its fragments.)
            if r.keptFragments, let p = previous[r.path] { (e.fragments, e.order, e.checksum) = (p.fragments, p.order, p.checksum) }
            else if !r.reused { (e.fragments, e.order, e.checksum) = (r.fragments, r.order, r.checksum) }
            return (r.path, e)
        }
        return BuildCache.encode(release: release, entries)
    }
}
