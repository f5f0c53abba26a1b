import Foundation
import TreeClient

extension TreePublisher {
    /// What a publish writes, in the order it writes it, and the publish log it leaves.
    ///
    /// Every file whose sha256 differs from the published index's is written. Paths the published release does not
    /// name are written directly; a file it names whose bytes change goes first to its content-addressed copy (no
    /// path of a tree is there), and to its path only after the manifest switch.
    struct Plan {
        /// Paths the published release does not name: new content, then the new release's file index and deltas.
        var newFiles: [File] = []
        /// One content-addressed copy per distinct new content of a changed file.
        var copies: [(object: String, file: File)] = []
        /// Whether `update-manifest.json` is written (not when the store already has this release).
        var switchesManifest: Bool
        /// Written at their paths after the switch.
        var rewrite: [File] = []
        /// Files the store already holds with their bytes, and that no earlier publish left pending.
        var skipped = 0
        /// The publish log after this release, naming the copies this publish writes as pending.
        var log: Log
        /// The content-addressed copies the clean-up deletes once every path holds its new bytes.
        var cleanup: [String] = []

        init(local: Release, published: Release?, log: Log, switchesManifest: Bool) {
            self.switchesManifest = switchesManifest
            let was = published?.byPath.merging(published.map { [$0.indexPath: $0.indexSha] } ?? [:], uniquingKeysWith: { a, _ in a }) ?? [:]
            let localFiles = local.files + [(local.indexPath, local.indexSha, local.indexSize)]
            var newContent: [File] = [], newRelease: [File] = [], changed: [File] = []
            for f in localFiles {
                guard let old = was[f.path] else {
                    if f.path.hasPrefix("releases/") { newRelease.append(f) } else { newContent.append(f) }
                    continue
                }
                if old == f.sha256 { skipped += 1 } else { changed.append(f) }
            }
            newFiles = newContent + newRelease
            var copied: Set<String> = []
            for f in changed {
                let object = TreePath.contentAddressed(sha256: f.sha256, path: f.path)!
                if copied.insert(object).inserted { copies.append((object, f)) }
            }
            // Rewritten at their paths: the changed files, and the files an earlier publish left pending that this
            // release names unchanged (stopped before it had rewritten them, they may still hold older bytes).
            rewrite = changed
            var planned = Set(newFiles.map(\.path)).union(changed.map(\.path))
            let byPath = Dictionary(localFiles.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
            for p in log.pending where planned.insert(p.path).inserted {
                if let f = byPath[p.path] { rewrite.append(f) }
            }
            skipped -= rewrite.count - changed.count
            self.log = Self.log(after: log, local: local, published: published, changed: changed)
            var seen: Set<String> = []
            for p in self.log.pending where seen.insert(p.object).inserted { cleanup.append(p.object) }
        }

        /// The publish log after this release: every file index uploaded so far and this tree's, and the copies this
        /// publish writes (recorded before any of them exists, so the clean-up always knows them).
        static func log(after log: Log, local: Release, published: Release?, changed: [File]) -> Log {
            var newLog = log
            for e in (published?.carried ?? []) + (published.map { [LogEntry(version: $0.version, sha256: $0.indexSha, size: $0.indexSize)] } ?? [])
                + local.carried + [LogEntry(version: local.version, sha256: local.indexSha, size: local.indexSize)] {
                // The same index again keeps what the log knows of it; another one under that version replaces it.
                if newLog.releases.contains(where: { $0.version == e.version && $0.sha256 == e.sha256 }) { continue }
                newLog.releases.removeAll { $0.version == e.version }
                newLog.releases.append(e)
            }
            newLog.releases.sort { $0.version < $1.version }
            for f in changed where !newLog.pending.contains(Pending(path: f.path, sha256: f.sha256)) {
                newLog.pending.append(Pending(path: f.path, sha256: f.sha256))
            }
            return newLog
        }

        /// Every object in upload order (the report's plan, for `--dry-run` and the tests).
        var objects: [Planned] {
            newFiles.map { Planned(path: $0.path, phase: .new) } + copies.map { Planned(path: $0.object, phase: .copy, of: $0.file.path) }
                + (switchesManifest ? [Planned(path: "update-manifest.json", phase: .manifest)] : [])
                + rewrite.map { Planned(path: $0.path, phase: .rewrite) }
        }
    }
}
