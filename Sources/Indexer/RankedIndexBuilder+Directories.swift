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
        /// The meta file's value: `{"levels": n, "entries": […]}`.
        var meta: JSON { .obj(["levels": .int(levels), "entries": .array(entries)]) }
    }

    /// `summary(chunk, name)`: the entry a directory of `chunk`, written as `{folder}/{name}.json`, has one level up.
    static func directoryTree(_ leaves: [JSON], folder: String, fanout: Int, summary: ([JSON], String) -> JSON) throws -> DirectoryTree {
        var tree = DirectoryTree(entries: leaves)
        let every = UInt64(max(2, fanout))
        while tree.entries.count > Int(every) {
            var next: [JSON] = []
            var k = 0
            while k < tree.entries.count {
                var end = k + 1
                while end < tree.entries.count && end - k < 2 * Int(every),
                      ByteHash.of(try JSONWriter().bytes(tree.entries[end - 1])) % every != 0 { end += 1 }
                let chunk = Array(tree.entries[k..<end])
                let text = try JSONWriter().bytes(.obj(["entries": .array(chunk)]))
                let name = contentName(text)
                tree.files.append(("\(folder)/\(name).json", text))
                next.append(summary(chunk, name))
                k = end
            }
            tree.entries = next
            tree.levels += 1
        }
        return tree
    }

    /// Term shards (`{first, last, path}`) under term directories `termdirs/{name}.json` of the same entries.
    static func termTree(_ shards: [JSON], folder: String) throws -> DirectoryTree {
        try directoryTree(shards, folder: "\(folder)/termdirs", fanout: 32) { chunk, name in
            .obj(["first": chunk.first!["first"]!, "last": chunk.last!["last"]!, "path": .string("\(folder)/termdirs/\(name).json")])
        }
    }

    /// Result-store groups (`[documents, name]`) under store directories `stores/{name}.json` of the same pairs, each
    /// pair one level up counting the documents under it.
    static func storeTree(_ shards: [JSON], folder: String, fanout: Int) throws -> DirectoryTree {
        try directoryTree(shards, folder: "\(folder)/stores", fanout: fanout) { chunk, name in
            .array([.int(chunk.reduce(0) { $0 + ($1[0]?.intValue ?? 0) }), .string(name)])
        }
    }
}
