import Foundation
import TreeClient

extension TreePublisher {
    /// How far the writes of a publish got: what a failure says about the store.
    struct Writes {
        /// What was being written.
        var step = "new files"
        /// Whether the manifest names the new release (or was not to be written).
        var switched = false
        /// Objects the store accepted, of the copies, the rewrites and the clean-up.
        let copiesUp = Work(count: 0), rewritten = Work(count: 0), removed = Work(count: 0)

        /// The failure of a write, said exactly: what apps now read, and what is left to do.
        func failure(_ error: Error, plan: Plan, published: Release?, version: Int) -> Failure {
            let why = (error as? Failure)?.description ?? "\(error)"
            let p = published.map { "version \($0.version)" } ?? "no release"
            let v = "version \(version)"
            let state: String
            if !switched && step == "update-manifest.json" {
                state = "update-manifest.json names \(p) or, if the store applied the last request, \(v): either is whole for apps (every file it "
                    + "names is at its path or in its content-addressed copy)"
            } else if !switched {
                state = "the published release (\(p)) is unchanged: no object it names was written"
                    + (copiesUp.finished > 0 ? " (\(copiesUp.finished) of \(plan.copies.count) content-addressed copies of changed files are up)" : "")
            } else if rewritten.finished < plan.rewrite.count {
                state = "\(v) is published and whole for apps: \(plan.rewrite.count - rewritten.finished) of the \(plan.rewrite.count) changed files do not "
                    + "hold their new bytes at their paths yet, and are read from their content-addressed copies"
            } else {
                let left = plan.cleanup.count - removed.finished
                state = "\(v) is published and every file holds its bytes at its path; \(left) content-addressed "
                    + "cop\(left == 1 ? "y is" : "ies are") left on the store"
            }
            return Failure(kind: .failed, description: "uploading \(step) failed: \(why). \(state). Run the same publish again to complete it")
        }
    }

    /// The writes of `plan` in their order, in parallel within each step: new files, the publish log, the copies,
    /// the manifest (the switch), the rewrites, the clean-up, the log without the copies. `log` is the publish log on
    /// the store; `writes` tells how far they got.
    func write(_ plan: Plan, over log: Log, manifest: [UInt8], version: Int, reader: TreeReader, _ report: inout Report,
               _ writes: inout Writes) throws {
        try upload(plan.newFiles.map { ($0.path, $0) }, "new files", reader, &report)
        writes.step = "the publish log"
        if plan.log != log { try putLog(plan.log) }
        writes.step = "content-addressed copies"
        try upload(plan.copies, "content-addressed copies of changed files", reader, &report, counter: writes.copiesUp)
        report.copies = plan.copies.count
        writes.step = "update-manifest.json"
        if plan.switchesManifest {
            progress("switching to version \(version): update-manifest.json")
            try store.put(location.key("update-manifest.json"), body: manifest, sha256: HTTPFetcher.sha256Hex(manifest),
                          contentType: ContentTypes.entry(for: "update-manifest.json").type, cacheControl: Self.manifestCache)
            report.uploaded += 1
            report.uploadedBytes += manifest.count
        }
        writes.switched = true
        writes.step = "changed files at their paths"
        try upload(plan.rewrite.map { ($0.path, $0) }, "changed files at their paths", reader, &report, counter: writes.rewritten)
        report.rewritten = plan.rewrite.count
        writes.step = "the clean-up of content-addressed copies"
        if !plan.cleanup.isEmpty {
            progress("removing \(plan.cleanup.count) content-addressed cop\(plan.cleanup.count == 1 ? "y" : "ies")")
            let removed = writes.removed
            try Self.forEach(plan.cleanup, parallel: options.parallel) { o in
                try self.store.delete(self.location.key(o))
                _ = removed.finish()
            }
            report.copiesRemoved = plan.cleanup.count
        }
        writes.step = "the publish log"
        var done = plan.log
        done.pending = []
        if done != plan.log { try putLog(done) }
    }
}
