import Foundation
import Schemas

/// Facet columns: for a field of numbers cut into ranges or thresholds (price, rating), each term's documents' codes,
/// one character per document, in one file per term shard. A query with words and a filter on such a field needs the
/// codes of the few documents its words matched: it reads them from the columns of one word's terms (a kilobyte or
/// two) instead of the field's value lists over the whole index (16 KB gzip for two price ranges of 100,000 products,
/// most of it about documents the words never matched).
///
/// A column file (`columns/{hash}.json`) is `{"field":…,"columns":["…",…]}`, a string per term of its term shard in
/// the shard's order; a string holds, for each of the term's documents in document order, its code as one base-32
/// digit. The column files are listed by a tree cut where the term tree is (`columnTree`), so a client that walked down
/// the term tree to a shard walks down the columns' tree by the same positions. Terms keep their shards when a price
/// changes: only the columns (and their directories) of the shards that hold the product are renamed.
extension RankedIndexBuilder {
    /// A document's code in a column: 0 without a value; for ranges 1 + the number of its range; for thresholds the
    /// number of thresholds it reaches. Nil for a field without columns (a `value` field, thresholds not ascending, or
    /// more codes than one base-32 digit holds).
    static func columnCode(_ facet: SearchField.Facet) -> ((SearchValue?) -> Int)? {
        switch facet {
        case .value: return nil
        case .ranges(let edges):
            guard edges.count <= 30, zip(edges, edges.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
            return { v in if case .number(let x)? = v { return 1 + (edges.firstIndex { x < $0 } ?? edges.count) }; return 0 }
        case .atLeast(let ts):
            guard ts.count <= 31, zip(ts, ts.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
            return { v in if case .number(let x)? = v { return ts.filter { x >= $0 }.count }; return 0 }
        }
    }

    /// The column files and trees of `fields` (each with its documents' codes, in document order), from the term
    /// shards: each shard read once, in parallel, its terms' documents decoded once for every field. Per field, its files
    /// and the tree its meta entry gets as `columns`.
    func columns(_ fields: [(name: String, codes: [UInt8])], terms: Terms, folder: String,
                 threads: Int) throws -> [(files: [(path: String, text: [UInt8])], tree: JSON)] {
        let digits = Array("0123456789abcdefghijklmnopqrstuv".utf8)
        let made = Chunks.map(terms.shardTexts.count, threads: threads) { k -> Result<[[UInt8]], Error> in
            Result {
                let lists = try Self.shardDocuments(terms.shardTexts[k])
                return fields.map { field in
                    let t = JSONStream(capacity: lists.reduce(64) { $0 + $1.count + 3 })
                    t.beginObject()
                    t.key("field"); t.string(field.name)
                    t.key("columns"); t.beginArray()
                    var line: [UInt8] = []
                    for docs in lists {
                        line.removeAll(keepingCapacity: true)
                        for doc in docs { line.append(digits[doc < field.codes.count ? Int(field.codes[doc]) : 0]) }
                        t.string(utf8: line.span)
                    }
                    t.endArray()
                    t.endObject()
                    return t.bytes
                }
            }
        }
        let texts = try made.map { try $0.get() }
        return try fields.indices.map { f in
            var files: [(path: String, text: [UInt8])] = [], names: [String] = [], written = Set<String>()
            for shard in texts {
                let text = shard[f], name = Self.contentName(text)
                // Two shards of rare terms may have the same codes: one file, listed at both places.
                if written.insert(name).inserted { files.append(("\(folder)/columns/\(name).json", text)) }
                names.append(name)
            }
            let tree = try Self.columnTree(names, folder: folder, shape: terms.shape)
            return (files + tree.files, tree.meta)
        }
    }

    /// Each term's documents of a term shard's text, in document order. The shard's posting strings are read straight
    /// from the text `termShardText` writes (posting text needs no escapes; parsing the whole shard as JSON took most
    /// of the columns' time); a text not of that form is parsed as JSON.
    static func shardDocuments(_ text: [UInt8]) throws -> [[Int]] {
        let key = Array(#""postings":["#.utf8)
        if let at = text.indices.first(where: { i in i + key.count <= text.count && text[i..<(i + key.count)].elementsEqual(key) }) {
            var lists: [[Int]] = [], i = at + key.count, plain = true
            while i < text.count, text[i] == UInt8(ascii: "\"") {
                guard let end = text[(i + 1)...].firstIndex(of: UInt8(ascii: "\"")) else { plain = false; break }
                if text[(i + 1)..<end].contains(UInt8(ascii: "\\")) { plain = false; break }
                lists.append(packedDocuments(PostingText.numbers(text[(i + 1)..<end])))
                i = end + 1
                if i < text.count, text[i] == UInt8(ascii: ",") { i += 1 }
            }
            if plain, i < text.count, text[i] == UInt8(ascii: "]") { return lists }
        }
        return (try JSONReader.parse(text)["postings"]?.arrayValue ?? []).map { packedDocuments(PostingText.numbers($0.stringValue ?? "")) }
    }

    /// The documents of a posting list as written (`packedPostings`), in document order.
    static func packedDocuments(_ flat: [Int]) -> [Int] {
        guard let g = flat.first, g > 0, flat.count > g else { return [] }
        var out: [Int] = [], doc = -1
        out.reserveCapacity(flat.count - g - 1)
        for n in flat[(g + 1)...] { doc += n / g + 1; out.append(doc) }
        return out
    }
}
