import Foundation

extension SyncRun {
    /// What the new copy needs of each file of the new index.
    struct Plan {
        /// Unchanged files, carried over from the local copy.
        var carry: [IndexEntry] = []
        /// Changed JSON files the local copy has an older version of: patched when the delta has a patch for them.
        var patchable: [IndexEntry] = []
        /// Every other file, downloaded whole.
        var download: [IndexEntry] = []

        init(_ index: ReleaseIndex, local: Local) {
            for f in index.files {
                guard let old = local.files[f.path] else { download.append(f); continue }
                if old.sha256 == f.sha256 { carry.append(f) }
                else if f.path.hasSuffix(".json") { patchable.append(f) }
                else { download.append(f) }
            }
        }
    }

    /// What the delta from the local version gives.
    struct Delta {
        /// The delta's fromVersion when it is used.
        var fromVersion: Int?
        /// By path: the patch of each changed file the delta can patch.
        var patches: [String: TreeJSON] = [:]
        /// Bytes already fetched for a file of the new tree (the delta is one of its files), so none is fetched twice.
        var fetched: [String: [UInt8]] = [:]
        var notes: [String] = []
    }

    /// Fetches the delta when the site offers one from the local version and it is worth it: when it costs less than
    /// the changed files it can patch, or nothing at all because the new copy needs it anyway (it is a file of the
    /// new tree).
    func fetchDelta(for plan: Plan, manifest: ReleaseManifest, index: ReleaseIndex, local: Local) throws -> Delta {
        var delta = Delta()
        guard let from = local.version, let path = manifest.deltas[from], let entry = index.byPath[path], !plan.patchable.isEmpty,
              plan.download.contains(entry) || entry.size < plan.patchable.reduce(0, { $0 + $1.size }) else { return delta }
        let bytes = try fetch(entry)
        delta.fetched[path] = bytes
        guard let release = try? ReleaseDelta(bytes, path: path), release.fromVersion == from, release.toVersion == manifest.version else {
            delta.notes.append("\(path) cannot be used: every changed file is downloaded whole")
            return delta
        }
        delta.fromVersion = from
        for f in plan.patchable {
            if let c = release.changed[f.path], let patch = c.patch, c.sha256 == f.sha256, c.oldSha256 == local.files[f.path]?.sha256 {
                delta.patches[f.path] = patch
            }
        }
        return delta
    }
}
