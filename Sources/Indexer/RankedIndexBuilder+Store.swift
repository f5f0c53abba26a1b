import Foundation
import Schemas

/// The result store of the ranked index: what a results list shows, in slices of a few documents (a results page
/// fetches a few kilobytes, not whole pages of documents it does not show).
///
/// Documents are cut into groups where their content says, not every N: a group ends after a document whose id hashes
/// to a multiple of `storeGroupSize` (or at twice that). A group's slices are its documents `storeSliceSize` at a time,
/// named `store/{group}-{k}.json`, where `{group}` is a hash of the group's slices: so a changed product renames the
/// slices of its group and no others, and a client finds a document's slice from its group's name and where the group
/// starts, with no list of slices. Groups are listed as `[documents, name]` by a directory tree (`directoryTree`):
/// where a group starts is the sum of the counts before it, said by no file, so it moves without renaming anything.
extension RankedIndexBuilder {
    struct Store {
        var files: [(path: String, text: [UInt8])] = []
        var groups: [(name: String, documents: Range<Int>, kept: Bool)] = []
        /// The meta file's `store`: the slice size, the store tree's levels and top entries.
        var tree: JSON = .null
    }

    /// `keptStore(r)`: the name of a group of documents `r` the caller has already (see `build`), asked in order. The
    /// other groups are made in parallel and collected by group, so the output never depends on the thread count.
    func store(_ docs: Source, folder: String, threads: Int = 1, keptStore: (Range<Int>) -> String?) throws -> Store {
        var out = Store()
        let groups = storeGroups(docs, threads: threads)
        let known = groups.map(keptStore)
        var made = Chunks.map(groups.count, threads: threads) { g in known[g] == nil ? Result { try groupSlices(docs, groups[g]) } : nil }
        for (g, r) in groups.enumerated() {
            if let name = known[g] {
                out.groups.append((name, r, true))
            } else {
                let (name, slices) = try made[g]!.get()
                made[g] = nil
                let prefix = "\(folder)/store/\(name)-"
                for (k, text) in slices.enumerated() { out.files.append((prefix + String(k) + ".json", text)) }
                out.groups.append((name, r, false))
            }
        }
        let tree = try Self.storeTree(out.groups.map { .array([.int($0.documents.count), .string($0.name)]) },
                                      folder: folder, fanout: settings.storeDirectoryShards)
        out.files += tree.files
        out.tree = .obj(["slice": .int(settings.storeSliceSize), "levels": .int(tree.levels), "entries": .array(tree.entries)])
        return out
    }

    /// A group's name and its slices' text.
    public func groupSlices(_ docs: Source, _ r: Range<Int>) throws -> (name: String, slices: [[UInt8]]) {
        let size = max(1, settings.storeSliceSize)
        let slices = try stride(from: r.lowerBound, to: r.upperBound, by: size).map { try storeText(docs, $0..<min($0 + size, r.upperBound)) }
        // (One copy of each slice's bytes: `Array(slices.joined())` went byte by byte.)
        var all: [UInt8] = []
        all.reserveCapacity(slices.reduce(0) { $0 + $1.count })
        for slice in slices { all += slice }
        return (Self.contentName(all), slices)
    }

    /// The result store's groups, as document ranges in order (see the type's comment). The ids are hashed in
    /// parallel, the cuts made in order.
    public func storeGroups(_ docs: Source, threads: Int = 1) -> [Range<Int>] {
        let every = UInt64(max(1, settings.storeGroupSize))
        let cuts = Chunks.map(docs.count, threads: threads) { d in
            let id = docs.id(d)
            return ByteHash.of(id.utf8.span) % every == 0
        }
        var groups: [Range<Int>] = []
        var start = 0
        for i in 0..<docs.count {
            if i + 1 - start >= 2 * Int(every) || cuts[i] {
                groups.append(start..<(i + 1)); start = i + 1
            }
        }
        if start < docs.count { groups.append(start..<docs.count) }
        return groups
    }

    /// The text of the result-store slice of documents `r`: `{"documents":[…]}`.
    public func storeText(_ docs: Source, _ r: Range<Int>) throws -> [UInt8] {
        let t = JSONStream(capacity: r.count * 256)
        t.beginObject(); t.key("documents"); t.beginArray()
        for i in r { try docs.writeStored(i, t) }
        t.endArray(); t.endObject()
        return t.bytes
    }
}
