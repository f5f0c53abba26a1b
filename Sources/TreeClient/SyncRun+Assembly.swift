import Foundation

extension SyncRun {
    /// The new copy as it is assembled in the staging folder. Each step stages what it can and leaves the files it
    /// could not give (a damaged local file, a patch that does not apply) to the download, the last step.
    struct Assembly {
        let staging: LocalCopy.Staging
        /// Files of the new release, for progress.
        let total: Int
        /// The files to download whole: the plan's, then those the steps before could not give.
        var download: [IndexEntry]
        var notes: [String]
        let progress: (@Sendable (SyncProgress) -> Void)?
        var unchanged = 0, patched = 0
        /// Files staged so far, for progress.
        private var done = 0

        init(staging: LocalCopy.Staging, total: Int, download: [IndexEntry], notes: [String], progress: (@Sendable (SyncProgress) -> Void)?) {
            self.staging = staging; self.total = total; self.download = download; self.notes = notes; self.progress = progress
        }

        /// One more file of the new copy is staged.
        mutating func step() {
            done += 1
            progress?(SyncProgress(done: done, total: total))
        }

        /// Unchanged files, checked byte for byte before they are carried over (by hard link when possible).
        mutating func carryOver(_ files: [IndexEntry], from copy: LocalCopy) throws {
            for f in files {
                guard let have = copy.read(f.path), have.bytes.count == f.size, HTTPFetcher.sha256Hex(have.bytes) == f.sha256 else {
                    notes.append("\(TreePath.shown(f.path)): the local file is damaged or missing: downloaded again")
                    download.append(f)
                    continue
                }
                if !staging.link(f.path, from: copy, identity: have.identity) { try staging.write(f.path, have.bytes) }
                unchanged += 1
                step()
            }
        }

        /// Changed files the delta has a patch for, each patched from its local version (checked first against the
        /// local index, `listed`); a patch that does not give the published bytes is never used.
        mutating func patch(_ files: [IndexEntry], with patches: [String: TreeJSON], from copy: LocalCopy, listed: [String: IndexEntry]) throws {
            for f in files {
                guard let patch = patches[f.path] else { download.append(f); continue }
                guard let have = copy.read(f.path), let old = listed[f.path], have.bytes.count == old.size,
                      HTTPFetcher.sha256Hex(have.bytes) == old.sha256 else {
                    notes.append("\(TreePath.shown(f.path)): the local file is damaged or missing: downloaded whole")
                    download.append(f)
                    continue
                }
                guard let doc = try? TreeJSON.parse(have.bytes), let result = try? TreePatch.apply(patch, to: doc), case let bytes = result.bytes,
                      bytes.count == f.size, HTTPFetcher.sha256Hex(bytes) == f.sha256 else {
                    notes.append("\(TreePath.shown(f.path)): its patch did not give the published bytes: downloaded whole")
                    download.append(f)
                    continue
                }
                try staging.write(f.path, bytes)
                patched += 1
                step()
            }
        }

        /// Every file left to download: those already fetched (the delta) are written as they are, the others fetched
        /// in parallel and written as each arrives.
        mutating func downloadRest(alreadyFetched fetched: [String: [UInt8]], using run: SyncRun) throws {
            for f in download {
                guard let bytes = fetched[f.path] else { continue }
                try staging.write(f.path, bytes)
                step()
            }
            // fetchAll counts the files it delivers (on its worker threads): the count goes on from those staged before.
            let sync = run.sync, staging = staging, staged = done, total = total
            let fetchedProgress = progress.map { progress in { @Sendable (n: Int, _: Int) in progress(SyncProgress(done: staged + n, total: total)) } }
            do {
                try sync.fetcher.fetchAll(download.filter { fetched[$0.path] == nil }, url: { sync.url($0.path) }, expected: { $0.expected },
                                          alternate: { sync.copyURL($0) }, progress: fetchedProgress) { f, bytes in
                    try staging.write(f.path, bytes)
                }
            } catch let f as HTTPFetcher.Failure { throw SyncRun.failure(f) }
        }
    }
}
