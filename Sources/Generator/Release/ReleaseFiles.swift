import Foundation
import Schemas
import Indexer

/// Builds the release files of a new version: carried-over indexes of the last K releases,
/// a delta from each of them, the new file index and the update manifest.
enum ReleaseFiles {
    /// A file of the new tree as the release files describe it (its bytes are already staged).
    struct TreeFile: HasPath { var path: String; var size: Int; var sha256: String; var schema: String? }
    typealias NewFile = (path: String, bytes: [UInt8], sha256: String, kind: OutputKind)

    /// The diff of the parsed values, for text the byte diff cannot vouch for (nil when either side is not JSON), as text.
    static func valueDiff(_ old: [UInt8], _ new: [UInt8]) -> JSONStream? {
        guard let a = try? JSONReader.parse(old), let b = try? JSONReader.parse(new), let bytes = try? JSONWriter().bytes(JSONPatch.diff(a, b)) else { return nil }
        let text = JSONStream(capacity: bytes.count)
        text.raw(bytes)
        return text
    }

    /// The size from which files are diffed one at a time (see `make`).
    static let largeDiff = 16 << 20
    /// From how many entries the file index is written in two halves side by side (a test lowers it).
    nonisolated(unsafe) static var indexInHalvesFrom = 4096

    /// Entries in path order, stably (a list in order already, as our own indexes are, is not sorted again).
    static func inPathOrder<T: HasPath>(_ list: [T]) -> [T] {
        // (By index: zipping the list with itself copied each entry twice, its strings retained and released.)
        if list.indices.dropFirst().allSatisfy({ list[$0 - 1].path <= list[$0].path }) { return list }
        return list.indices.sorted { (list[$0].path, $0) < (list[$1].path, $1) }.map { list[$0] }
    }

    /// Where the fragments of a file written from fragments lie, in the previous version (the one whose hash is
    /// `oldSha256`) and the new one: the byte diff takes the entries of its arrays from them instead of scanning.
    /// `same`: fragments of the new version copied from the previous one (same key, same length), byte for byte
    /// equal without a look at either side, so the diff reads neither (nor maps their pages in).
    struct Fragments {
        var oldSha256: String; var old: [Range<Int>]; var new: [Range<Int>]
        var same: [(old: Range<Int>, new: Range<Int>)] = []
        /// Objects whose members the new version's writer placed (a seed index's keyword maps, edited): where their
        /// members lie in both versions, so the diff need not scan them.
        var objects: [(old: ObjectLayout, new: ObjectLayout)] = []

        /// Whether the new version is the previous one with a few entries changed: all but at most 256 fragments copied,
        /// the last one (a seed index's keyword maps) among them. Its patch is then small whatever the file's size.
        var isSmallChange: Bool {
            guard let last = new.last, new.count - same.count <= 256 else { return false }
            return same.last?.new == last
        }
    }

    /// The release files, and what of the file index must be checked against its schema.
    struct Made {
        var files: [NewFile]
        /// The file index's header with only the entries the previous release's index did not have as they are (new or
        /// changed files, and the release files): the whole index is valid when this is, since its other entries are
        /// the previous index's, checked when it was made, and the schema checks each entry on its own. Nil: check
        /// the whole index.
        var indexToCheck: [UInt8]?
    }

    /// `bytes` maps a file of the new tree (only changed files are read, to diff them against the previous release).
    /// `previousChecked`: the previous release's file index was checked against this very schema when it was made (the
    /// build cache says this executable made it); its entries need not be checked again (see `Made.indexToCheck`).
    static func make(version: Int, currentVersion: String, generatedAt: String, contentDigest: String, inputDigest: String,
                     current: [TreeFile], previous: PreviousRelease?, settings: ReleaseSettings, site: SiteConfig,
                     threads: Int = 1, fragments: [String: Fragments] = [:], previousChecked: Bool = false,
                     bytes newBytes: @escaping (String) -> MappedBytes?) throws -> Made {
        let writer = JSONWriter()
        var clock = TraceClock()
        var out: [NewFile] = []
        func add(_ path: String, _ json: JSON, _ kind: OutputKind) throws {
            let bytes = try writer.bytes(json)
            out.append((path, bytes, Build.sha256Hex(bytes), kind))
        }

        // Older releases kept: their immutable file indexes are carried into the new tree. Read and parsed on a thread
        // of their own while the patches are computed.
        var olderIndexes: [(version: Int, files: [FileEntry])] = []
        // Each patch's text (a replaced map of a search index is tens of MB: never held as values).
        var patches: [String: JSONStream] = [:]
        let sortedCurrent = inPathOrder(current)
        // Which of them the previous release's index lists as they are (path, hash, size and schema).
        var listedBefore = [Bool](repeating: false, count: sortedCurrent.count)
        if let previous {
            let cutoff = version - settings.keep
            func keptIndex(_ e: FileEntry) -> Bool {
                guard e.path.hasPrefix("releases/") && e.path.hasSuffix("/files.json") else { return false }
                let parts = e.path.split(separator: "/")
                guard parts.count == 3, let v = Int(parts[1]) else { return false }
                return v > cutoff && v < version
            }
            // The JSON files whose bytes changed since the previous version: each gets a patch when it is smaller.
            // (Both lists in path order, walked side by side: no table of 100,000 paths.)
            var changed: [FileEntry] = []
            if previous.version == version - 1 {
                var k = 0, matched = -1
                let previousFiles = inPathOrder(previous.files)
                for i in previousFiles.indices {
                    let e = previousFiles[i]
                    while k < sortedCurrent.count, sortedCurrent[k].path < e.path { k += 1 }
                    guard k < sortedCurrent.count, sortedCurrent[k].path == e.path else { continue }
                    // (Of two entries with one path, the first counts.)
                    if matched != k {
                        matched = k
                        let f = sortedCurrent[k]
                        if f.sha256 == e.sha256 && f.size == e.size && f.schema == e.schema { listedBefore[k] = true }
                    }
                    if sortedCurrent[k].sha256 != e.sha256, !e.path.hasPrefix("releases/"), e.path.hasSuffix(".json") { changed.append(e) }
                }
            }
            // What is read below, fetched up front (from a site: in parallel).
            let kept = previous.files.filter(keptIndex)
            try previous.prefetch(kept.map(\.path) + changed.map(\.path))
            // The previous version's entries are known already (its index was read to start this build); older ones
            // are read from their text, in parallel.
            let older = Background { () throws -> [(NewFile, Int, [FileEntry])] in
                var found = [Result<(NewFile, Int, [FileEntry])?, Error>?](repeating: nil, count: kept.count)
                found.withUnsafeMutableBufferPointer { found in
                    Parallel.forEach(Array(kept.indices), threads: threads) { k in
                        found[k] = Result {
                            let e = kept[k]
                            let v = Int(e.path.split(separator: "/")[1])!
                            guard let bytes = try previous.readIfPresent(e.path) else { return nil }
                            let file: NewFile = (e.path, bytes, e.sha256, ManifestKinds.fileIndex)
                            if e.path == previous.fileIndex.path { return (file, v, Array(previous.files.dropLast())) }
                            guard let list = try? PreviousRelease.entries(e.path, bytes).files else { return nil }
                            return (file, v, list)
                        }
                    }
                }
                return try found.compactMap { try $0!.get() }
            }
            // Largest first on every worker: the search index's byte scan must not start last.
            let order = changed.indices.sorted { (changed[$0].size, $1) > (changed[$1].size, $0) }
            var found = [Result<JSONStream?, Error>?](repeating: nil, count: changed.count)
            // Files of tens of MB one at a time: each diff maps in what differs of both versions (a search index's
            // keyword maps when a product was added), and two at once would add to the build's peak memory.
            let large = DispatchSemaphore(value: 1)
            found.withUnsafeMutableBufferPointer { found in
                Parallel.forEach(order, threads: threads) { i in
                    // The fragments of both versions, when the cache's earlier version is the previous release's.
                    let f = fragments[changed[i].path]
                    let layout = f?.oldSha256 == changed[i].sha256 ? f : nil
                    // (A large file changed in a few entries, as its fragments tell, makes a small patch: not held back.)
                    let isLarge = changed[i].size >= Self.largeDiff && layout?.isSmallChange != true
                    if isLarge { large.wait() }
                    defer { if isLarge { large.signal() } }
                    let started = TraceClock.isOn ? Date() : nil
                    defer {
                        if let started, Date().timeIntervalSince(started) > 0.01 {
                            FileHandle.standardError.write(Data("  [trace] patch of \(changed[i].path): \(String(format: "%.3f", Date().timeIntervalSince(started))) s\n".utf8))
                        }
                    }
                    found[i] = Result {
                        guard let old = try previous.mappedIfPresent(changed[i].path), let new = newBytes(changed[i].path) else { return nil }
                        let known = (old: layout?.old ?? [], new: f?.new ?? [])
                        return JSONByteDiff.patch(old.buffer, new.buffer, arrays: known, same: layout?.same ?? [],
                                                  objects: (old: layout?.objects.map(\.old) ?? [], new: layout?.objects.map(\.new) ?? []))
                            ?? valueDiff(Array(old.buffer), Array(new.buffer))
                    }
                }
            }
            for (i, r) in found.enumerated() { if let patch = try r!.get() { patches[changed[i].path] = patch } }
            clock.lap("release: patches")
            for (file, v, list) in try older.wait() {
                out.append(file)
                olderIndexes.append((v, list))
            }
        }
        olderIndexes.sort { $0.version > $1.version }
        clock.lap("release: older indexes read")

        // A delta from each kept release to this one (release files themselves excluded).
        var deltaRefs: [(from: Int, path: String, added: Int, changed: Int, removed: Int, bytes: Int)] = []
        for old in olderIndexes {
            // Both lists in path order, walked side by side (the first of two entries with one path counts), the
            // release files of the old list passed over (not filtered out first: a copy of 100,000 entries).
            let oldFiles = inPathOrder(old.files)
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
            // What the delta lists, found first; then written as text in one pass (a patch copied in as the text it
            // is, once, and let go: the patch of a search index whose maps changed is tens of MB).
            var added: [TreeFile] = [], changed: [(new: TreeFile, old: FileEntry)] = [], removed: [FileEntry] = []
            for j in sortedCurrent.indices where !sortedCurrent[j].path.hasPrefix("releases/") {
                let f = sortedCurrent[j]
                while k < oldFiles.count, oldFiles[k].path < f.path { removed.append(takeOld()) }
                if k < oldFiles.count, oldFiles[k].path == f.path {
                    let o = takeOld()
                    if o.sha256 != f.sha256 { changed.append((f, o)) }
                } else {
                    added.append(f)
                }
            }
            while k < oldFiles.count { removed.append(takeOld()) }
            // A JSON Patch for the previous release's files, when it is smaller than the new file.
            let withPatches = old.version == version - 1
            let patchBytes = withPatches ? changed.reduce(0) { $0 + (patches[$1.new.path]?.count ?? 0) } : 0
            // (Written into one array a piece at a time, each patch appended to it directly: a delta of tens of MB is
            // never held twice.)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(256 + 200 * (added.count + changed.count + removed.count) + patchBytes)
            let delta = JSONStream(capacity: 1 << 16)
            func drainSometimes() { if delta.count >= 1 << 20 { delta.drain(into: &bytes) } }
            var download = 0
            delta.beginObject()
            delta.key("fromVersion"); delta.int(old.version); delta.key("toVersion"); delta.int(version)
            delta.key("added"); delta.beginArray()
            for f in added {
                delta.beginObject()
                delta.key("path"); delta.string(f.path); delta.key("sha256"); delta.string(f.sha256); delta.key("size"); delta.int(f.size)
                delta.endObject()
                download += f.size
                drainSometimes()
            }
            delta.endArray()
            delta.key("changed"); delta.beginArray()
            for (f, o) in changed {
                delta.beginObject()
                delta.key("path"); delta.string(f.path); delta.key("sha256"); delta.string(f.sha256); delta.key("size"); delta.int(f.size)
                delta.key("oldSha256"); delta.string(o.sha256); delta.key("oldSize"); delta.int(o.size)
                if withPatches, let patch = patches.removeValue(forKey: f.path), patch.count < f.size {
                    delta.key("patch"); patch.withBytes { delta.raw($0, drainingInto: &bytes) }
                    download += patch.count
                } else {
                    download += f.size
                }
                delta.endObject()
                drainSometimes()
            }
            delta.endArray()
            delta.key("removed"); delta.beginArray()
            for o in removed {
                delta.beginObject()
                delta.key("path"); delta.string(o.path); delta.key("oldSha256"); delta.string(o.sha256); delta.key("oldSize"); delta.int(o.size)
                delta.endObject()
                drainSometimes()
            }
            delta.endArray()
            delta.key("downloadBytes"); delta.int(download)
            delta.endObject()
            delta.drain(into: &bytes)
            let path = "releases/\(version)/delta-from-\(old.version).json"
            out.append((path, bytes, Build.sha256Hex(bytes), ManifestKinds.delta))
            deltaRefs.append((old.version, path, added.count, changed.count, removed.count, download))
        }

        clock.lap("release: deltas")
        // The file index lists every file of the tree but itself and the manifest.
        let indexPath = "releases/\(version)/files.json"
        // (The tree's files are in path order already: only the release files are merged in.)
        let releaseEntries = out.map { TreeFile(path: $0.path, size: $0.bytes.count, sha256: $0.sha256, schema: $0.kind.schemaPath) }
            .sorted { $0.path < $1.path }
        // The index's entries in path order, as positions: the tree's files (≥ 0) with the release files (-1 - their
        // position) merged in (not a third list of 100,000 entries).
        var listed: [Int32] = []
        listed.reserveCapacity(sortedCurrent.count + releaseEntries.count)
        var r = 0
        for j in sortedCurrent.indices {
            while r < releaseEntries.count, releaseEntries[r].path < sortedCurrent[j].path { listed.append(Int32(-1 - r)); r += 1 }
            listed.append(Int32(j))
        }
        while r < releaseEntries.count { listed.append(Int32(-1 - r)); r += 1 }
        // Streamed as text: with 100,000 files, a JSON value per entry cost more than the rest of this stage.
        func header(_ index: JSONStream) {
            index.beginObject()
            index.key("version"); index.int(version)
            index.key("currentVersion"); index.string(currentVersion)
            index.key("generatedAt"); index.string(generatedAt)
            index.key("contentDigest"); index.string(contentDigest)
            index.key("inputDigest"); index.string(inputDigest)
            index.key("files"); index.beginArray()
        }
        func write(_ f: TreeFile, to text: JSONStream) {
            text.beginObject()
            text.key("path"); text.string(f.path)
            text.key("sha256"); text.string(f.sha256)
            text.key("size"); text.int(f.size)
            text.key("schema"); text.string(f.schema)
            text.endObject()
        }
        func write(_ entries: ArraySlice<Int32>, to text: JSONStream) {
            for e in entries { if e >= 0 { write(sortedCurrent[Int(e)], to: text) } else { write(releaseEntries[Int(-1 - e)], to: text) } }
        }
        let index = JSONStream(capacity: 64 + listed.count * 160)
        header(index)
        if threads > 1 && listed.count >= Self.indexInHalvesFrom {
            // Two halves side by side, each its own list; their entries put into the index as two runs.
            let (first, second) = Parallel.halves(listed.count) { r -> [UInt8] in
                let text = JSONStream(capacity: 64 + r.count * 160)
                text.beginArray()
                write(listed[r], to: text)
                text.endArray()
                return text.withBytes { [UInt8]($0.dropFirst().dropLast()) }
            }
            index.raw(first); index.raw(second)
        } else {
            write(listed[...], to: index)
        }
        index.endArray()
        index.endObject()
        let indexBytes = index.bytes
        out.append((indexPath, indexBytes, Build.sha256Hex(indexBytes), ManifestKinds.fileIndex))
        var indexToCheck: [UInt8]?
        if previousChecked {
            let text = JSONStream(capacity: 1024)
            header(text)
            write(listed.filter { $0 < 0 || !listedBefore[Int($0)] }[...], to: text)
            text.endArray()
            text.endObject()
            indexToCheck = text.bytes
        }
        let indexFile = out.last!

        let latest = deltaRefs.first { $0.from == version - 1 }
        let manifest: JSON = .obj([
            "currentVersion": .string(currentVersion), "version": .int(version), "previousVersion": .optional(previous?.version),
            "forceUpdate": .bool(settings.forceUpdate), "minimumAppVersion": .string(site.minimumAppVersion),
            "lastUpdated": .string(generatedAt),
            "fileIndex": .obj(["path": .string(indexPath), "sha256": .string(indexFile.sha256), "size": .int(indexFile.bytes.count)]),
            "delta": latest.map { d in .obj(["fromVersion": .int(d.from), "path": .string(d.path), "added": .int(d.added),
                                             "changed": .int(d.changed), "removed": .int(d.removed), "downloadBytes": .int(d.bytes)]) } ?? .null,
            "deltasAvailable": .array(deltaRefs.map { .obj(["fromVersion": .int($0.from), "path": .string($0.path)]) }),
        ])
        try add("update-manifest.json", manifest, ManifestKinds.manifest)
        clock.lap("release: file index and manifest")
        return Made(files: out, indexToCheck: indexToCheck)
    }
}

/// A file entry of a tree or an index, named by its path.
protocol HasPath { var path: String { get } }
extension FileEntry: HasPath {}
