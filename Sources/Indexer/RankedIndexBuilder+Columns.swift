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
    /// Each document's code in a column: 0 without a value; for ranges 1 + the number of its range; for thresholds the
    /// number of thresholds it reaches. Nil for a field without columns (a `value` field, edges or thresholds not
    /// ascending, or more codes than one base-32 digit holds).
    static func columnCodes(_ values: [SearchValue?], _ facet: SearchField.Facet) -> [UInt8]? {
        // (One loop over the values, no closure per document: 200,000 values at 100,000 products.)
        let cuts: [Double], base: Int
        switch facet {
        case .value: return nil
        case .ranges(let edges): cuts = edges; base = 1
        case .atLeast(let ts): cuts = ts; base = 0
        }
        guard cuts.count <= 31 - base, zip(cuts, cuts.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        var codes = [UInt8](repeating: 0, count: values.count)
        for (d, v) in values.enumerated() {
            guard case .number(let x)? = v else { continue }
            // A range: the first edge above x (x < edge); thresholds reached: those with x ≥ t, a prefix when ascending.
            var k = 0
            if base == 1 { while k < cuts.count && !(x < cuts[k]) { k += 1 } } else { while k < cuts.count && x >= cuts[k] { k += 1 } }
            codes[d] = UInt8(base + k)
        }
        return codes
    }

    /// The column files and trees of `fields` (each with its documents' codes, in document order), from the term
    /// shards: each shard read once, in parallel, its terms' documents decoded once for every field. Per field, its files
    /// and the tree its meta entry gets as `columns`.
    func columns(_ fields: [(name: String, codes: [UInt8])], terms: Terms, folder: String,
                 threads: Int) throws -> [(files: [(path: String, text: [UInt8])], tree: JSON)] {
        let made = Chunks.map(terms.shardTexts.count, threads: threads) { k -> Result<[[UInt8]], Error> in
            Result {
                let lists = try Self.shardDocuments(terms.shardTexts[k])
                return fields.map { field in
                    let t = JSONStream(capacity: lists.reduce(64) { $0 + $1.count + 3 })
                    t.beginObject()
                    t.key("field"); t.string(field.name)
                    t.key("columns"); t.beginArray()
                    var line: [UInt8] = []
                    let codes = field.codes.span
                    for docs in lists {
                        line.removeAll(keepingCapacity: true)
                        for doc in docs {
                            let c = doc < codes.count ? codes[doc] : 0
                            line.append(c < 10 ? 48 + c : 87 + c)   // one base-32 digit
                        }
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
        let quote = UInt8(ascii: "\""), key = Array(#""postings":["#.utf8)
        // (The first quote followed by the key: no term's text can hold it unescaped.)
        var at = 0
        while at + key.count <= text.count, !(text[at] == quote && text[at..<(at + key.count)].elementsEqual(key)) { at += 1 }
        if at + key.count <= text.count {
            var lists: [[Int]] = [], i = at + key.count, plain = true
            while i < text.count, text[i] == quote {
                var end = i + 1
                while end < text.count, text[end] != quote, text[end] != UInt8(ascii: "\\") { end += 1 }
                guard end < text.count, text[end] == quote else { plain = false; break }
                lists.append(packedDocuments(text[(i + 1)..<end]))
                i = end + 1
                if i < text.count, text[i] == UInt8(ascii: ",") { i += 1 }
            }
            if plain, i < text.count, text[i] == UInt8(ascii: "]") { return lists }
        }
        return (try JSONReader.parse(text)["postings"]?.arrayValue ?? []).map { packedDocuments(Array(($0.stringValue ?? "").utf8)[...]) }
    }

    /// The documents of a posting list as written (`packedPostings`), in document order, read from its text
    /// (`PostingText`) in one pass: the number of scores G, the G scores (skipped), then each document's number.
    static func packedDocuments(_ slice: ArraySlice<UInt8>) -> [Int] {
        var out: [Int] = [], q = 0, seen = 0, g = 0, doc = -1
        // (At most one document per character.)
        out.reserveCapacity(slice.count)
        let text = slice.span
        for i in text.indices {
            let c = text[i]
            if c >= 65 && c <= 90 { q = q * 26 + Int(c - 65); continue }
            let n = q * 32 + PostingText.digit(c)
            q = 0
            if seen == 0 { g = n; guard g > 0 else { return [] } } else if seen > g { doc += n / g + 1; out.append(doc) }
            seen += 1
        }
        return out
    }
}
