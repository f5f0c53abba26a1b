import Foundation
import Schemas

extension ReleaseFiles {
    /// A delta file, and what the manifest says of it.
    struct Delta {
        var file: NewFile
        var reference: DeltaReference
    }

    struct DeltaReference { var from: Int; var path: String; var added: Int; var changed: Int; var removed: Int; var bytes: Int }

    /// What changed from an older release to the new tree (release files themselves left out).
    struct Changes {
        var added: [TreeFile] = []
        var changed: [(new: TreeFile, old: FileEntry)] = []
        var removed: [FileEntry] = []
    }
}

extension ReleaseFiles.NewRelease {
    /// The delta from an older release kept to this one. The patches (for the previous release only) are taken out of
    /// `patches` as they are written: a patch of tens of MB is never held twice.
    func delta(from old: ReleaseFiles.OlderIndex, patches: inout [String: JSONStream]) -> ReleaseFiles.Delta {
        let changes = self.changes(since: old.files)
        let withPatches = old.version == version - 1
        let patchBytes = withPatches ? changes.changed.reduce(0) { $0 + (patches[$1.new.path]?.count ?? 0) } : 0
        let (bytes, download) = deltaText(from: old.version, changes, patchBytes: patchBytes,
                                          patches: withPatches ? { patches.removeValue(forKey: $0) } : { _ in nil })
        let path = "releases/\(version)/delta-from-\(old.version).json"
        return .init(file: (path, bytes, Build.sha256Hex(bytes), ManifestKinds.delta),
                     reference: .init(from: old.version, path: path, added: changes.added.count, changed: changes.changed.count,
                                      removed: changes.removed.count, bytes: download))
    }

    /// The files added, changed and removed since an older index. Both lists in path order, walked side by side (the
    /// first of two entries with one path counts), the release files of the old list passed over (not filtered out
    /// first: a copy of 100,000 entries).
    func changes(since oldList: [FileEntry]) -> ReleaseFiles.Changes {
        let oldFiles = ReleaseFiles.inPathOrder(oldList)
        var k = 0
        func passReleaseFiles() { while k < oldFiles.count, oldFiles[k].path.hasPrefix("releases/") { k += 1 } }
        passReleaseFiles()
        /// The old entry at `k`, past any later entries with its path (and release files).
        func takeOld() -> FileEntry {
            let o = oldFiles[k]
            k += 1
            while k < oldFiles.count, oldFiles[k].path == o.path { k += 1 }
            passReleaseFiles()
            return o
        }
        var out = ReleaseFiles.Changes()
        for j in tree.indices where !tree[j].path.hasPrefix("releases/") {
            let f = tree[j]
            while k < oldFiles.count, oldFiles[k].path < f.path { out.removed.append(takeOld()) }
            if k < oldFiles.count, oldFiles[k].path == f.path {
                let o = takeOld()
                if o.sha256 != f.sha256 { out.changed.append((f, o)) }
            } else {
                out.added.append(f)
            }
        }
        while k < oldFiles.count { out.removed.append(takeOld()) }
        return out
    }

    /// The delta's text, and the bytes an app downloads with it: a JSON Patch for a changed file when `patch` has one
    /// smaller than the new file, else the file. Written into one array a piece at a time, each patch appended to it
    /// directly (a delta of tens of MB is never held twice).
    private func deltaText(from oldVersion: Int, _ changes: ReleaseFiles.Changes, patchBytes: Int,
                           patches patch: (String) -> JSONStream?) -> ([UInt8], Int) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + 200 * (changes.added.count + changes.changed.count + changes.removed.count) + patchBytes)
        let delta = JSONStream(capacity: 1 << 16)
        func drainSometimes() { if delta.count >= 1 << 20 { delta.drain(into: &bytes) } }
        func entry(path: String, sha256: String?, size: Int?, old: FileEntry?) {
            delta.key("path"); delta.string(path)
            if let sha256, let size { delta.key("sha256"); delta.string(sha256); delta.key("size"); delta.int(size) }
            if let old { delta.key("oldSha256"); delta.string(old.sha256); delta.key("oldSize"); delta.int(old.size) }
        }
        var download = 0
        delta.beginObject()
        delta.key("fromVersion"); delta.int(oldVersion); delta.key("toVersion"); delta.int(version)
        delta.key("added"); delta.beginArray()
        for f in changes.added {
            delta.beginObject(); entry(path: f.path, sha256: f.sha256, size: f.size, old: nil); delta.endObject()
            download += f.size
            drainSometimes()
        }
        delta.endArray()
        delta.key("changed"); delta.beginArray()
        for (f, o) in changes.changed {
            delta.beginObject()
            entry(path: f.path, sha256: f.sha256, size: f.size, old: o)
            if let patch = patch(f.path), patch.count < f.size {
                delta.key("patch"); patch.withSpan { delta.raw($0, drainingInto: &bytes) }
                download += patch.count
            } else {
                download += f.size
            }
            delta.endObject()
            drainSometimes()
        }
        delta.endArray()
        delta.key("removed"); delta.beginArray()
        for o in changes.removed {
            delta.beginObject(); entry(path: o.path, sha256: nil, size: nil, old: o); delta.endObject()
            drainSometimes()
        }
        delta.endArray()
        delta.key("downloadBytes"); delta.int(download)
        delta.endObject()
        delta.drain(into: &bytes)
        return (bytes, download)
    }
}
