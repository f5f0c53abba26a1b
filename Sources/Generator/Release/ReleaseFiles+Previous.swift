import Foundation

extension ReleaseFiles {
    /// What the previous release says of the new tree: which files it lists as they are, and which JSON files changed.
    struct Comparison {
        /// By position in the tree: listed by the previous index as it is (path, hash, size and schema).
        var listedBefore: [Bool]
        /// The previous release's entries of the JSON files whose bytes changed: each gets a patch when it is smaller.
        var changed: [FileEntry]
    }

    /// An older release kept: its immutable file index, carried into the new tree, and its entries.
    struct OlderIndex {
        var file: NewFile
        var version: Int
        var files: [FileEntry]
    }
}

extension ReleaseFiles.NewRelease {
    /// The tree against the previous release's index. (Both lists in path order, walked side by side: no table of
    /// 100,000 paths.) Changed files are looked for only when the previous release is the one just before this one.
    func compare(with previous: PreviousRelease) -> ReleaseFiles.Comparison {
        var listedBefore = [Bool](repeating: false, count: tree.count)
        var changed: [FileEntry] = []
        guard previous.version == version - 1 else { return .init(listedBefore: listedBefore, changed: changed) }
        var k = 0, matched = -1
        let previousFiles = ReleaseFiles.inPathOrder(previous.files)
        for i in previousFiles.indices {
            let e = previousFiles[i]
            while k < tree.count, tree[k].path < e.path { k += 1 }
            guard k < tree.count, tree[k].path == e.path else { continue }
            // (Of two entries with one path, the first counts.)
            if matched != k {
                matched = k
                let f = tree[k]
                if f.sha256 == e.sha256 && f.size == e.size && f.schema == e.schema { listedBefore[k] = true }
            }
            if tree[k].sha256 != e.sha256, !e.path.hasPrefix("releases/"), e.path.hasSuffix(".json") { changed.append(e) }
        }
        return .init(listedBefore: listedBefore, changed: changed)
    }

    /// The file indexes of the releases kept (`release.keep`) that the previous release carries, this one's excepted.
    func keptIndexes(of previous: PreviousRelease) -> [FileEntry] {
        let cutoff = version - settings.keep
        return previous.files.filter { e in
            guard e.path.hasPrefix("releases/") && e.path.hasSuffix("/files.json") else { return false }
            let parts = e.path.split(separator: "/")
            guard parts.count == 3, let v = Int(parts[1]) else { return false }
            return v > cutoff && v < version
        }
    }

    /// The kept indexes with their entries: the previous version's are known already (its index was read to start
    /// this build); older ones are read from their text, in parallel. One the release no longer has is left out.
    func readOlderIndexes(_ kept: [FileEntry], from previous: PreviousRelease) throws -> [ReleaseFiles.OlderIndex] {
        try Parallel.map(kept.count, threads: threads) { _, k throws -> ReleaseFiles.OlderIndex? in
            let e = kept[k]
            let v = Int(e.path.split(separator: "/")[1])!
            guard let bytes = try previous.readIfPresent(e.path) else { return nil }
            let file: ReleaseFiles.NewFile = (e.path, bytes, e.sha256, ManifestKinds.fileIndex)
            if e.path == previous.fileIndex.path { return .init(file: file, version: v, files: Array(previous.files.dropLast())) }
            guard let list = try? PreviousRelease.entries(e.path, bytes).files else { return nil }
            return .init(file: file, version: v, files: list)
        }.compactMap { $0 }
    }
}
