import Foundation
import Schemas

/// The field stage of the ranked index: facet shards (each value's documents, for filters and counts) and sort chunks
/// (documents in the order of a number, for sorted results), made from the documents' field values.
extension RankedIndexBuilder {
    /// What the field stage adds to the meta file and the files it writes.
    struct FieldFiles {
        var files: [(path: String, text: [UInt8])] = []
        var facets: [JSON] = []
        var sorts: [JSON] = []
    }

    func fieldFiles(_ docs: Source, folder: String) throws -> FieldFiles {
        var out = FieldFiles()
        let fields = docs.fields
        guard !fields.fields.isEmpty, let value = docs.value else { return out }
        for (f, field) in fields.fields.enumerated() {
            let values = (0..<docs.count).map { value($0, f) }
            if let facet = field.facet {
                let (files, entry) = try facetShards(field, facet, values, labels: fields.labels[field.name], folder: folder)
                out.files += files
                out.facets.append(entry)
            }
            if field.sortable {
                let (files, path) = try sortChunks(values, folder: folder)
                out.files += files
                out.sorts.append(.obj(["field": .string(field.name), "path": .string(path)]))
            }
        }
        return out
    }

    /// The values a document has for a facet: its text, its range, or each threshold it reaches.
    static func facetValues(_ v: SearchValue?, _ facet: SearchField.Facet) -> [String] {
        switch (v, facet) {
        case (nil, _): return []
        case (.text(let s)?, .value): return [s]
        case (.texts(let list)?, .value): return Array(Set(list)).sorted(by: byteOrder)
        case (.number(let x)?, .value): return [SearchFields.numberText(x)]
        case (.number(let x)?, .ranges(let edges)): return [SearchFields.rangeValue(x, edges)]
        case (.number(let x)?, .atLeast(let ts)): return ts.filter { x >= $0 }.map(SearchFields.numberText)
        case (.text, _), (.texts, _): return []
        }
    }

    /// A set of documents as runs: `[gap, length, gap, length, …]`, each gap from the end of the run before (from 0).
    static func runs(_ docs: [Int]) -> [Int] {
        var out: [Int] = [], end = 0, k = 0
        while k < docs.count {
            var j = k + 1
            while j < docs.count && docs[j] == docs[j - 1] + 1 { j += 1 }
            out.append(docs[k] - end); out.append(j - k)
            end = docs[j - 1] + 1; k = j
        }
        return out
    }

    /// Runs as one string of `PostingText` numbers (about a tenth less gzip than JSON numbers; lengths are mostly 1).
    static func runText(_ runs: [Int]) -> String {
        var text: [UInt8] = []
        for n in runs { PostingText.append(n, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }

    /// One field's facet shards (values in byte order, each with its documents as runs), about `facetShardBytes` each,
    /// and the meta file's entry for the field.
    func facetShards(_ field: SearchField, _ facet: SearchField.Facet, _ values: [SearchValue?], labels: [String: String]?,
                     folder: String) throws -> (files: [(path: String, text: [UInt8])], entry: JSON) {
        var byValue: [String: [Int]] = [:]
        for (d, v) in values.enumerated() { for key in Self.facetValues(v, facet) { byValue[key, default: []].append(d) } }
        let keys = byValue.keys.sorted(by: Self.byteOrder)
        var files: [(path: String, text: [UInt8])] = [], shards: [JSON] = []
        var i = 0
        while i < keys.count {
            let start = i
            var bytes = 0
            var runs: [[Int]] = []
            while i < keys.count {
                let r = Self.runs(byValue[keys[i]]!)
                let cost = keys[i].utf8.count + 4 + r.count * 4   // (as numbers: the shards keep their values)
                if i > start && bytes + cost > settings.facetShardBytes { break }
                bytes += cost; runs.append(r); i += 1
            }
            var shard: [(String, JSON)] = [("field", .string(field.name)), ("values", .strings(Array(keys[start..<i]))),
                                           ("postings", .strings(runs.map(Self.runText)))]
            if let labels { shard.append(("labels", .strings(keys[start..<i].map { labels[$0] ?? $0 }))) }
            let text = try JSONWriter().bytes(.object(JSONObject(shard)))
            let path = "\(folder)/facets/\(Self.contentName(text)).json"
            files.append((path, text))
            shards.append(.obj(["first": .string(keys[start]), "last": .string(keys[i - 1]), "path": .string(path)]))
        }
        var entry: [(String, JSON)] = [("field", .string(field.name)), ("label", .string(field.label))]
        switch facet {
        case .value: entry.append(("kind", "value"))
        case .ranges(let edges): entry += [("kind", "ranges"), ("edges", .array(edges.map(JSON.double)))]
        case .atLeast(let ts): entry += [("kind", "atLeast"), ("thresholds", .array(ts.map(JSON.double)))]
        }
        entry += [("values", .int(keys.count)), ("shards", .array(shards))]
        return (files, .object(JSONObject(entry)))
    }

    /// A sortable field's documents in ascending order of their number (documents without one are left out), in chunks
    /// of about `sortChunkDocuments`: each chunk `{"keys":[…],"documents":[[gaps…],…]}`, the documents of one key as
    /// gaps from 0 in document order (a key's documents may go on in the next chunk). Listed, in order, by an order file
    /// (`orders/{hash}.json`: each chunk's first and last key, documents and path), the path the meta file names.
    func sortChunks(_ values: [SearchValue?], folder: String) throws -> (files: [(path: String, text: [UInt8])], path: String) {
        var keyed: [(Double, Int)] = []
        for (d, v) in values.enumerated() { if case .number(let x)? = v { keyed.append((x, d)) } }
        keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var files: [(path: String, text: [UInt8])] = [], chunks: [JSON] = []
        var start = 0
        while start < keyed.count {
            let end = min(keyed.count, start + settings.sortChunkDocuments)
            var keys: [JSON] = [], groups: [JSON] = []
            var k = start
            while k < end {
                var j = k, last = 0, gaps: [JSON] = []
                while j < end && keyed[j].0 == keyed[k].0 { gaps.append(.int(keyed[j].1 - last)); last = keyed[j].1; j += 1 }
                keys.append(.double(keyed[k].0)); groups.append(.array(gaps))
                k = j
            }
            let text = try JSONWriter().bytes(.obj(["keys": .array(keys), "documents": .array(groups)]))
            let path = "\(folder)/sort/\(Self.contentName(text)).json"
            files.append((path, text))
            chunks.append(.obj(["first": .double(keyed[start].0), "last": .double(keyed[end - 1].0), "documents": .int(end - start),
                                "path": .string(path)]))
            start = end
        }
        let text = try JSONWriter().bytes(.obj(["documents": .int(keyed.count), "chunks": .array(chunks)]))
        let path = "\(folder)/orders/\(Self.contentName(text)).json"
        files.append((path, text))
        return (files, path)
    }
}
