import Foundation
import Schemas

/// Directory trees: how the meta file stays small at any size. A long list of shards (term shards, result-store shards)
/// is cut into directory files of about `fanout` entries, those into directories of directories, until the top level
/// has at most `fanout` entries, which the meta file holds with the number of levels. A client walks down one directory
/// per level to the shard it needs. Cuts fall after an entry whose text hashes to a multiple of `fanout` (or at twice
/// that), so a changed shard renames its own directories and no others.
extension RankedIndexBuilder {
    struct DirectoryTree {
        var files: [(path: String, text: [UInt8])] = []
        var levels = 0
        var entries: [JSON] = []
        /// Each level's directories, bottom up, as their numbers of entries: where the tree cut (`mirror` cuts the same).
        var shape: [[Int]] = []
        /// The meta file's value: `{"levels": n, "entries": […]}`.
        var meta: JSON { .obj(["levels": .int(levels), "entries": .array(entries)]) }
    }

    /// `summary(chunk, name)`: the entry a directory of `chunk`, written as `{folder}/{name}.json`, has one level up.
    /// `mirror`: cut where another tree cut (its `shape`), not where the entries say.
    static func directoryTree(_ leaves: [JSON], folder: String, fanout: Int, mirror: [[Int]]? = nil,
                              summary: ([JSON], String) -> JSON) throws -> DirectoryTree {
        var tree = DirectoryTree(entries: leaves)
        var written = Set<String>()
        let every = UInt64(max(2, fanout))
        while mirror.map({ tree.levels < $0.count }) ?? (tree.entries.count > Int(every)) {
            var next: [JSON] = [], sizes: [Int] = []
            var k = 0
            while k < tree.entries.count {
                var end = k + 1
                if let mirror {
                    let sizes0 = mirror[tree.levels]
                    end = sizes.count < sizes0.count ? min(tree.entries.count, k + max(1, sizes0[sizes.count])) : tree.entries.count
                } else {
                    while end < tree.entries.count && end - k < 2 * Int(every),
                          ByteHash.of(try JSONWriter().bytes(tree.entries[end - 1])) % every != 0 { end += 1 }
                }
                sizes.append(end - k)
                let chunk = Array(tree.entries[k..<end])
                let text = try JSONWriter().bytes(.obj(["entries": .array(chunk)]))
                let name = contentName(text)
                // (Two directories of the same entries are one file, listed at both places.)
                if written.insert(name).inserted { tree.files.append(("\(folder)/\(name).json", text)) }
                next.append(summary(chunk, name))
                k = end
            }
            tree.entries = next
            tree.shape.append(sizes)
            tree.levels += 1
        }
        return tree
    }

    /// Term shards (`[first term, name]`) under term directories `termdirs/{name}.json` of the same pairs, each pair
    /// one level up its directory's first term and name. An entry holds the terms from its first to the next entry's
    /// first (the last one's to its directory's end): no last term, no path (a client makes it from the name), so a
    /// directory is about 30 % smaller than with both terms and the path.
    static func termTree(_ shards: [JSON], folder: String) throws -> DirectoryTree {
        try directoryTree(shards, folder: "\(folder)/termdirs", fanout: 8) { chunk, name in
            .array([chunk.first![0]!, .string(name)])
        }
    }

    /// A facet field's column files (one per term shard, in the term shards' order) under column directories
    /// `coldirs/{name}.json` cut where the term tree cut (`shape`): a client that walked down the term tree to a shard
    /// walks down this one by the same positions to its column file. Entries are names alone.
    static func columnTree(_ names: [String], folder: String, shape: [[Int]]) throws -> DirectoryTree {
        try directoryTree(names.map(JSON.string), folder: "\(folder)/coldirs", fanout: 8, mirror: shape) { _, name in .string(name) }
    }

    /// Result-store groups (`[documents, name]`) under store directories `stores/{name}.json` of the same pairs, each
    /// pair one level up counting the documents under it.
    static func storeTree(_ shards: [JSON], folder: String, fanout: Int) throws -> DirectoryTree {
        try directoryTree(shards, folder: "\(folder)/stores", fanout: fanout) { chunk, name in
            .array([.int(chunk.reduce(0) { $0 + ($1[0]?.intValue ?? 0) }), .string(name)])
        }
    }
}
