import Foundation
import Schemas

/// The result store of the ranked index: what a results list shows, in small shards (a results page fetches a few
/// kilobytes, not whole pages of documents it does not show), listed by a directory tree of store directories
/// (`directoryTree`).
///
/// Shards are cut where their content says, not every N: a shard ends after a document whose id hashes to a multiple of
/// `storeShardSize` (or at twice that). So a product added or removed changes its own shard and the directories above
/// it, and every other shard and directory keeps its name (and stays cached). Entries are `[documents, name]`: where a
/// shard starts is the sum of the counts before it, said by no file, so it moves without renaming anything.
extension RankedIndexBuilder {
    struct Store {
        var files: [(path: String, text: [UInt8])] = []
        var shards: [(path: String, documents: Range<Int>, kept: Bool)] = []
        /// The meta file's `store`: the store tree's levels and top entries.
        var tree: JSON = .null
    }

    func store(_ docs: Source, folder: String, keptStore: (Range<Int>) -> String?) throws -> Store {
        var out = Store()
        for r in storeShards(docs) {
            if let known = keptStore(r) {
                out.shards.append((known, r, true))
            } else {
                let text = try storeText(docs, r)
                let path = "\(folder)/store/\(Self.contentName(text)).json"
                out.files.append((path, text))
                out.shards.append((path, r, false))
            }
        }
        let tree = try Self.storeTree(out.shards.map { .array([.int($0.documents.count), .string(Self.shardName($0.path))]) },
                                      folder: folder, fanout: settings.storeDirectoryShards)
        out.files += tree.files
        out.tree = tree.meta
        return out
    }

    /// The name part of a content-named path (`search/store/0123456789abcdef.json` → `0123456789abcdef`).
    static func shardName(_ path: String) -> String {
        String(path.split(separator: "/").last!.dropLast(5))
    }

    /// The result store's shards, as document ranges in order (see the type's comment).
    public func storeShards(_ docs: Source) -> [Range<Int>] {
        let every = UInt64(max(1, settings.storeShardSize))
        var shards: [Range<Int>] = []
        var start = 0
        for i in 0..<docs.count {
            if i + 1 - start >= 2 * Int(every) || ByteHash.of(Array(docs.id(i).utf8)) % every == 0 {
                shards.append(start..<(i + 1)); start = i + 1
            }
        }
        if start < docs.count { shards.append(start..<docs.count) }
        return shards
    }

    /// The text of the result-store shard of documents `r` (its file is named by a hash of it: `contentName`). It does
    /// not say where it starts, so it keeps its name when documents before it are added or removed.
    public func storeText(_ docs: Source, _ r: Range<Int>) throws -> [UInt8] {
        let t = JSONStream(capacity: r.count * 256)
        t.beginObject(); t.key("documents"); t.beginArray()
        for i in r { try docs.writeStored(i, t) }
        t.endArray(); t.endObject()
        return t.bytes
    }
}
