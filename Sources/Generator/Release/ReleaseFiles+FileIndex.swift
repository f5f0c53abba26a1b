import Foundation
import Schemas

extension ReleaseFiles {
    /// The new file index, and the part of it to check when the previous index was checked (see `Made.indexToCheck`).
    struct FileIndex {
        var file: NewFile
        var partToCheck: [UInt8]?
    }
}

extension ReleaseFiles.NewRelease {
    var indexPath: String { "releases/\(version)/files.json" }

    /// The file index: every file of the tree but itself and the manifest, in path order. Streamed as text: with
    /// 100,000 files, a JSON value per entry cost more than the rest of this stage. `listedBefore` (when the previous
    /// index was checked by this executable): which tree files the previous index lists as they are, left out of the
    /// part to check.
    func fileIndex(releaseFiles: [ReleaseFiles.NewFile], listedBefore: [Bool]?) -> ReleaseFiles.FileIndex {
        // (The tree's files are in path order already: only the release files are merged in.)
        let releaseEntries = releaseFiles.map { ReleaseFiles.TreeFile(path: $0.path, size: $0.bytes.count, sha256: $0.sha256, schema: $0.kind.schemaPath) }
            .sorted { $0.path < $1.path }
        let listed = indexEntries(releaseEntries)
        let index = JSONStream(capacity: 64 + listed.count * 160)
        writeHeader(to: index)
        if threads > 1 && listed.count >= ReleaseFiles.indexInHalvesFrom {
            // Two halves side by side, each its own list; their entries put into the index as two runs.
            let (first, second) = Parallel.halves(listed.count) { r -> ArraySlice<UInt8> in
                let text = JSONStream(capacity: 64 + r.count * 160)
                text.beginArray()
                write(listed[r], releaseEntries, to: text)
                text.endArray()
                return text.bytes.dropFirst().dropLast()
            }
            index.raw(first.span); index.raw(second.span)
        } else {
            write(listed[...], releaseEntries, to: index)
        }
        index.endArray()
        index.endObject()
        let bytes = index.bytes
        var partToCheck: [UInt8]?
        if let listedBefore {
            let text = JSONStream(capacity: 1024)
            writeHeader(to: text)
            write(listed.filter { $0 < 0 || !listedBefore[Int($0)] }[...], releaseEntries, to: text)
            text.endArray()
            text.endObject()
            partToCheck = text.bytes
        }
        return .init(file: (indexPath, bytes, Build.sha256Hex(bytes), ManifestKinds.fileIndex), partToCheck: partToCheck)
    }

    /// The index's entries in path order, as positions: the tree's files (≥ 0) with the release files (-1 - their
    /// position) merged in (not a third list of 100,000 entries).
    private func indexEntries(_ releaseEntries: [ReleaseFiles.TreeFile]) -> [Int32] {
        var listed: [Int32] = []
        listed.reserveCapacity(tree.count + releaseEntries.count)
        var r = 0
        for j in tree.indices {
            while r < releaseEntries.count, releaseEntries[r].path < tree[j].path { listed.append(Int32(-1 - r)); r += 1 }
            listed.append(Int32(j))
        }
        while r < releaseEntries.count { listed.append(Int32(-1 - r)); r += 1 }
        return listed
    }

    private func writeHeader(to index: JSONStream) {
        index.beginObject()
        index.key("version"); index.int(version)
        index.key("currentVersion"); index.string(currentVersion)
        index.key("generatedAt"); index.string(generatedAt)
        index.key("contentDigest"); index.string(contentDigest)
        index.key("inputDigest"); index.string(inputDigest)
        index.key("files"); index.beginArray()
    }

    private func write(_ entries: ArraySlice<Int32>, _ releaseEntries: [ReleaseFiles.TreeFile], to text: JSONStream) {
        for e in entries {
            let f = e >= 0 ? tree[Int(e)] : releaseEntries[Int(-1 - e)]
            text.beginObject()
            text.key("path"); text.string(f.path)
            text.key("sha256"); text.string(f.sha256)
            text.key("size"); text.int(f.size)
            text.key("schema"); text.string(f.schema)
            text.endObject()
        }
    }

    /// `update-manifest.json`: the version, the file index by path, hash and size, and the deltas available (the one
    /// from the previous version described).
    func manifest(index: ReleaseFiles.NewFile, deltas: [ReleaseFiles.DeltaReference], previous: PreviousRelease?) throws -> ReleaseFiles.NewFile {
        let latest = deltas.first { $0.from == version - 1 }
        let manifest: JSON = .obj([
            "currentVersion": .string(currentVersion), "version": .int(version), "previousVersion": .optional(previous?.version),
            "forceUpdate": .bool(settings.forceUpdate), "minimumAppVersion": .string(site.minimumAppVersion),
            "lastUpdated": .string(generatedAt),
            "fileIndex": .obj(["path": .string(indexPath), "sha256": .string(index.sha256), "size": .int(index.bytes.count)]),
            "delta": latest.map { d in .obj(["fromVersion": .int(d.from), "path": .string(d.path), "added": .int(d.added),
                                             "changed": .int(d.changed), "removed": .int(d.removed), "downloadBytes": .int(d.bytes)]) } ?? .null,
            "deltasAvailable": .array(deltas.map { .obj(["fromVersion": .int($0.from), "path": .string($0.path)]) }),
        ])
        let bytes = try JSONWriter().bytes(manifest)
        return ("update-manifest.json", bytes, Build.sha256Hex(bytes), ManifestKinds.manifest)
    }
}
