import Foundation
import Schemas
import TreeClient

extension TreePublisher {
    /// What --prune deletes: every path named by a file index in the publish log whose release the new tree no longer
    /// keeps, and by none it keeps (nor the manifest or the log). Indexes that cannot be vouched for (changed on the
    /// store since they were logged) name nothing deletable.
    func planPrune(local: Release, reader: TreeReader, log: [LogEntry], report: inout Report) throws -> (delete: [String], gone: Set<Int>, emptied: Set<Int>) {
        var keep: Set<String> = ["update-manifest.json", Self.logPath, local.indexPath]
        keep.formUnion(local.files.map(\.path))
        let kept = Set([local.version] + local.carried.map(\.version))
        // Files of the kept older releases stay too: an app may be in the middle of syncing one.
        for c in local.carried {
            guard let bytes = try? reader.read(c.path), let json = try? JSONReader.parse(bytes), let list = json["files"]?.arrayValue else {
                throw Failure(kind: .failed, description: "\(dist.path)/\(c.path) cannot be read")
            }
            for e in list { if let p = e["path"]?.stringValue { keep.insert(p) } }
        }
        var candidates: Set<String> = []
        var gone: Set<Int> = [], emptied: Set<Int> = []
        for e in log where !kept.contains(e.version) {
            // Files pruned before: only the index may be left to delete.
            if e.contentPruned { candidates.insert(e.path); continue }
            guard let bytes = try store.get(location.key(e.path)) else { gone.insert(e.version); continue }
            guard bytes.count == e.size, HTTPFetcher.sha256Hex(bytes) == e.sha256, let json = try? JSONReader.parse(bytes),
                  json["version"]?.intValue == e.version, let list = json["files"]?.arrayValue else {
                report.notes.append("\(location)/\(e.path) differs from the file index that was published there: the files it names are not pruned")
                continue
            }
            var paths: [String] = []
            for f in list {
                // Only plain paths of a tree; a path that would leave the prefix is never deleted, nor one where the
                // publish keeps its content-addressed copies (the clean-up's alone).
                guard let p = f["path"]?.stringValue, TreePath.rejection(p) == nil, !p.hasPrefix(TreePath.objectsFolder) else { paths = []; break }
                paths.append(p)
            }
            if paths.isEmpty && !list.isEmpty {
                report.notes.append("\(location)/\(e.path) names a path that is not a plain path of a tree: the files it names are not pruned")
                continue
            }
            candidates.formUnion(paths)
            candidates.insert(e.path)
            emptied.insert(e.version)
        }
        // Content first, then deltas, then the file indexes themselves (so a prune stopped halfway can be rerun).
        let delete = candidates.subtracting(keep).sorted { a, b in
            func rank(_ p: String) -> Int { Release.indexVersion(p) != nil ? 2 : p.hasPrefix("releases/") ? 1 : 0 }
            return rank(a) != rank(b) ? rank(a) < rank(b) : a < b
        }
        // A logged index leaves the log once it is deleted; one a kept release still names (its index carried in a
        // kept tree) stays logged, and is deleted with that release's files later.
        for p in delete { if let v = Release.indexVersion(p) { gone.insert(v) } }
        return (delete, gone, emptied)
    }

    func prune(local: Release, reader: TreeReader, log: Log, report: inout Report) throws {
        let plan = try planPrune(local: local, reader: reader, log: log.releases, report: &report)
        report.deletions = plan.delete
        if !plan.delete.isEmpty {
            progress("pruning: \(plan.delete.count) object(s) named only by releases no longer kept")
            for rank in 0...2 {
                let batch = plan.delete.filter { p in (Release.indexVersion(p) != nil ? 2 : p.hasPrefix("releases/") ? 1 : 0) == rank }
                try Self.forEach(batch, parallel: options.parallel) { p in try self.store.delete(self.location.key(p)) }
                report.pruned += batch.count
            }
        }
        var remaining = log
        remaining.releases = log.releases.filter { !plan.gone.contains($0.version) }.map { e in
            var e = e
            if plan.emptied.contains(e.version) { e.contentPruned = true }
            return e
        }
        if remaining != log { try putLog(remaining) }
    }
}
