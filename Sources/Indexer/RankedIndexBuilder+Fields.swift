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

    /// One field's facet shards or sort chunks: its files, and its entry in the meta file's `facets` or `orders`.
    typealias FieldPart = (files: [(path: String, text: [UInt8])], entry: JSON)

    /// The values are read in parallel, then each field's facet and sort made as a task of its own, then the columns
    /// (`columns`, when the term shards are given); parts are collected by field, so the output never depends on the
    /// thread count.
    func fieldFiles(_ docs: Source, folder: String, threads: Int = 1, terms: Terms? = nil) throws -> FieldFiles {
        var out = FieldFiles()
        let fields = docs.fields
        guard !fields.fields.isEmpty, let value = docs.value else { return out }
        // One array per field, in document order, each read in parallel (not gathered by chunks and joined: the copy
        // cost a tenth of this stage).
        let values = fields.fields.indices.map { f in Chunks.map(docs.count, threads: threads) { value($0, f) } }
        // (field, sort?): a field's facet and its sort are separate tasks.
        var tasks: [(Int, Bool)] = []
        for (f, field) in fields.fields.enumerated() {
            if field.facet != nil { tasks.append((f, false)) }
            if field.sortable { tasks.append((f, true)) }
        }
        let parts = Chunks.map(tasks.count, threads: threads) { k -> Result<FieldPart, Error> in
            let (f, sort) = tasks[k], field = fields.fields[f]
            return Result {
                if sort { return try sortChunks(values[f], folder: folder, field: field.name) }
                return try facetShards(field, field.facet!, values[f], labels: fields.labels[field.name], folder: folder)
            }
        }
        for (k, part) in parts.enumerated() {
            let (files, entry) = try part.get()
            out.files += files
            if tasks[k].1 { out.sorts.append(entry) } else { out.facets.append(entry) }
        }
        // Columns of the fields of ranges or thresholds: every term shard read once for all of them.
        var coded: [(name: String, codes: [UInt8])] = []
        for (f, field) in fields.fields.enumerated() {
            if terms != nil, let facet = field.facet, let codes = Self.columnCodes(values[f], facet) { coded.append((field.name, codes)) }
        }
        var columnTrees: [String: JSON] = [:]
        if let terms, !coded.isEmpty {
            for (k, part) in try columns(coded, terms: terms, folder: folder, threads: threads).enumerated() {
                out.files += part.files
                columnTrees[coded[k].name] = part.tree
            }
        }
        // A field's columns go in its facet entry.
        out.facets = out.facets.map { e in
            guard let name = e["field"]?.stringValue, let tree = columnTrees[name], case .object(var o) = e else { return e }
            o["columns"] = tree
            return .object(o)
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

    /// Each value's documents in document order (as `facetValues` gives them, document by document). A text, a range
    /// or a threshold is looked up by its index, its name made once, not once per document.
    static func facetDocuments(_ values: [SearchValue?], _ facet: SearchField.Facet) -> [String: [Int]] {
        var byValue: [String: [Int]] = [:]
        let names: [String]
        switch facet {
        case .value:
            // Documents come grouped (by category, then brand): a text equal to the one before goes to the same list
            // without hashing it (the lists are moved into the map at the end).
            var lists: [[Int]] = [], index: [String: Int] = [:], last: (text: String, list: Int)? = nil
            for (d, v) in values.enumerated() {
                if case .text(let s)? = v {
                    if let l = last, l.text == s { lists[l.list].append(d); continue }
                    let k = index[s] ?? { index[s] = lists.count; lists.append([]); return lists.count - 1 }()
                    lists[k].append(d); last = (s, k)
                    continue
                }
                for key in facetValues(v, facet) {
                    let k = index[key] ?? { index[key] = lists.count; lists.append([]); return lists.count - 1 }()
                    lists[k].append(d)
                }
            }
            for (key, k) in index { byValue[key] = lists[k] }
            return byValue
        case .ranges(let edges): names = SearchFields.rangeValues(edges)
        case .atLeast(let ts): names = ts.map(SearchFields.numberText)
        }
        // Two equal names would take a document twice in document order: left to `facetValues`.
        guard Set(names).count == names.count else {
            for (d, v) in values.enumerated() { for key in facetValues(v, facet) { byValue[key, default: []].append(d) } }
            return byValue
        }
        var lists = [[Int]](repeating: [], count: names.count)
        for (d, v) in values.enumerated() {
            guard case .number(let x)? = v else { continue }
            switch facet {
            case .ranges(let edges): lists[edges.firstIndex { x < $0 } ?? edges.count].append(d)
            case .atLeast(let ts): for (k, t) in ts.enumerated() where x >= t { lists[k].append(d) }
            case .value: break
            }
        }
        for (k, list) in lists.enumerated() where !list.isEmpty { byValue[names[k]] = list }
        return byValue
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
                     folder: String) throws -> FieldPart {
        let byValue = Self.facetDocuments(values, facet)
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
            let text = Self.facetShardText(field.name, keys[start..<i], runs, labels: labels, capacity: bytes + 64)
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

    /// The text of a facet shard: `{"field":…,"values":[…],"postings":[[runs…],…]}` and, with labels, `"labels":[…]`
    /// (written as text: a value's runs are as many numbers as its documents).
    static func facetShardText(_ field: String, _ keys: ArraySlice<String>, _ runs: [[Int]], labels: [String: String]?,
                               capacity: Int) -> [UInt8] {
        let t = JSONStream(capacity: capacity)
        t.beginObject()
        t.key("field"); t.string(field)
        t.key("values"); t.beginArray(); for k in keys { t.string(k) }; t.endArray()
        t.key("postings"); t.beginArray()
        for r in runs { t.string(Self.runText(r)) }   // runs as base-32 text, like the postings
        t.endArray()
        if let labels { t.key("labels"); t.beginArray(); for k in keys { t.string(labels[k] ?? k) }; t.endArray() }
        t.endObject()
        return t.bytes
    }

    /// A sortable field's documents in ascending order of their number (documents without one are left out), in chunks
    /// of about `sortChunkDocuments`: each chunk `{"keys":[…],"documents":[[gaps…],…]}`, the documents of one key as
    /// gaps from 0 in document order (a key's documents may go on in the next chunk). Listed, in order, by an order file
    /// (`orders/{hash}.json`: each chunk's first and last key, documents and path); the entry names the field and it.
    func sortChunks(_ values: [SearchValue?], folder: String, field: String) throws -> FieldPart {
        var keyed: [(Double, Int)] = []
        keyed.reserveCapacity(values.count)
        for (d, v) in values.enumerated() { if case .number(let x)? = v { keyed.append((x, d)) } }
        // By key alone: the sort is stable and the documents come in order, so equal keys keep document order.
        keyed.sort { $0.0 < $1.0 }
        var files: [(path: String, text: [UInt8])] = [], chunks: [JSON] = []
        var start = 0
        while start < keyed.count {
            let end = min(keyed.count, start + settings.sortChunkDocuments)
            let text = try Self.sortChunkText(keyed[start..<end])
            let path = "\(folder)/sort/\(Self.contentName(text)).json"
            files.append((path, text))
            chunks.append(.obj(["first": .double(keyed[start].0), "last": .double(keyed[end - 1].0), "documents": .int(end - start),
                                "path": .string(path)]))
            start = end
        }
        let text = try JSONWriter().bytes(.obj(["documents": .int(keyed.count), "chunks": .array(chunks)]))
        let path = "\(folder)/orders/\(Self.contentName(text)).json"
        files.append((path, text))
        return (files, .obj(["field": .string(field), "path": .string(path)]))
    }

    /// The text of a sort chunk of `keyed` (key, document) pairs in order (see `sortChunks`).
    static func sortChunkText(_ keyed: ArraySlice<(Double, Int)>) throws -> [UInt8] {
        let t = JSONStream(capacity: keyed.count * 8 + 64)
        t.beginObject()
        t.key("keys"); t.beginArray()
        var k = keyed.startIndex
        while k < keyed.endIndex {
            try t.double(keyed[k].0)
            let key = keyed[k].0
            while k < keyed.endIndex && keyed[k].0 == key { k += 1 }
        }
        t.endArray()
        t.key("documents"); t.beginArray()
        k = keyed.startIndex
        while k < keyed.endIndex {
            let key = keyed[k].0
            var last = 0
            t.beginArray()
            while k < keyed.endIndex && keyed[k].0 == key { t.int(keyed[k].1 - last); last = keyed[k].1; k += 1 }
            t.endArray()
        }
        t.endArray()
        t.endObject()
        return t.bytes
    }
}
