import Foundation
import Schemas

/// Fields: filters and facet counts from the facet shards, sorted orders from the sort chunks, and a page's stored
/// objects from the result store.
extension Query {
    var facetEntries: [JSON] { meta["facets"]?.arrayValue ?? [] }

    func facetEntry(_ field: String) throws -> JSON {
        guard let e = facetEntries.first(where: { $0["field"]?.stringValue == field }) else {
            let names = facetEntries.compactMap { $0["field"]?.stringValue }
            throw RequestError(description: "no filter field \"\(field)\" in this index (it has: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        return e
    }

    /// Runs `gap, length, …` (a string of `PostingText` numbers) as documents.
    static func decodeRuns(_ text: String) -> [Int] {
        let flat = PostingText.numbers(text)
        var out: [Int] = [], end = 0, k = 0
        while k + 1 < flat.count {
            let start = end + flat[k], n = flat[k + 1]
            out.append(contentsOf: start..<(start + n))
            end = start + n; k += 2
        }
        return out
    }

    /// The documents that have one value of a facet field (none when the index has no such value).
    func documents(_ entry: JSON, value: String) throws -> [Int] {
        guard let shard = Self.shard(Self.shards(entry["shards"]), value) else { return [] }
        let j = try file(shard.path)
        guard let k = Self.find(value, in: j["values"]?.arrayValue ?? []) else { return [] }
        return Self.decodeRuns(j["postings"]?[k]?.stringValue ?? "")
    }

    /// The values a filter on one field stands for: itself, or for ranges every range between its two edges.
    static func filterValues(_ entry: JSON, _ value: String) throws -> [String] {
        let field = entry["field"]?.stringValue ?? ""
        switch entry["kind"]?.stringValue {
        case "ranges":
            let edges = (entry["edges"]?.arrayValue ?? []).compactMap { $0.doubleValue }
            let parts = value.components(separatedBy: "..")
            func edge(_ s: String) throws -> Int? {
                if s.isEmpty { return nil }
                guard let x = SearchFields.filterNumber(s), let k = edges.firstIndex(of: x) else {
                    throw RequestError(description: "\(field)=\(value): \(s) is not an edge of \(field)'s ranges (\(edges.map(SearchFields.numberText).joined(separator: ", ")))")
                }
                return k
            }
            guard parts.count == 2 else { throw RequestError(description: "\(field)=\(value): a range is LOW..HIGH, LOW.. or ..HIGH (e.g. 50..200)") }
            let lo = try edge(parts[0]), hi = try edge(parts[1])
            let first = lo.map { $0 + 1 } ?? 0, last = hi ?? edges.count   // range k lies between edges k-1 and k
            guard first <= last else { throw RequestError(description: "\(field)=\(value): the low edge is above the high one") }
            return Array(SearchFields.rangeValues(edges)[first...last])
        case "atLeast":
            let ts = (entry["thresholds"]?.arrayValue ?? []).compactMap { $0.doubleValue }.map(SearchFields.numberText)
            guard let x = SearchFields.filterNumber(value), ts.contains(SearchFields.numberText(x)) else {
                throw RequestError(description: "\(field)=\(value): \(field) filters by at least one of \(ts.joined(separator: ", "))")
            }
            return [SearchFields.numberText(x)]
        default:
            return [value]
        }
    }

    /// One filtered field: its meta entry and the values it admits (a range span as its ranges).
    struct FieldFilter {
        let field: String
        let entry: JSON
        let values: [String]
    }

    /// The filters checked and spelled out, fields in byte order (the first unknown field is the one an error names).
    func fieldFilters(_ filters: [String: [String]]) throws -> [FieldFilter] {
        try filters.keys.sorted(by: RankedIndexBuilder.byteOrder).map { field in
            let entry = try facetEntry(field)
            var values: [String] = []
            for v in filters[field]! { values += try Self.filterValues(entry, v) }
            return FieldFilter(field: field, entry: entry, values: values)
        }
    }

    /// The documents every filtered field admits (any of its values), from the value lists; nil without filters.
    func filterSet(_ filters: [FieldFilter]) throws -> Set<Int>? {
        var set: Set<Int>?
        for f in filters {
            var admitted = Set<Int>()
            for value in f.values { admitted.formUnion(try documents(f.entry, value: value)) }
            set = set.map { $0.intersection(admitted) } ?? admitted
        }
        return set
    }

    /// Per facet field, how many of `docs` have each value (values with none left out), most first, ties by value.
    func facetCounts(_ docs: [Int], _ asked: Bool) throws -> [FacetCount] {
        guard asked else { return [] }
        let set = Set(docs)
        return try facetEntries.map { entry in
            var values: [(String, String, Int)] = []
            for shard in Self.shards(entry["shards"]) {
                let j = try file(shard.path)
                let names = j["values"]?.arrayValue ?? [], labels = j["labels"]?.arrayValue
                for (k, v) in names.enumerated() {
                    let n = Self.decodeRuns(j["postings"]?[k]?.stringValue ?? "").reduce(0) { $0 + (set.contains($1) ? 1 : 0) }
                    guard n > 0, let v = v.stringValue else { continue }
                    values.append((v, labels?[k].stringValue ?? v, n))
                }
            }
            values.sort { $0.2 != $1.2 ? $0.2 > $1.2 : RankedIndexBuilder.byteOrder($0.0, $1.0) }
            return FacetCount(field: entry["field"]?.stringValue ?? "", values: values.map { (value: $0.0, label: $0.1, count: $0.2) })
        }
    }

    /// Refuses a sort the index does not have (before anything is read: an empty query is refused like any other).
    func checkSort(_ sort: String) throws {
        guard sort != "relevance" else { return }
        let sorts = meta["sorts"]?.arrayValue ?? []
        if let s = sorts.first(where: { $0["name"]?.stringValue == sort }), let field = s["field"]?.stringValue,
           (meta["orders"]?.arrayValue ?? []).contains(where: { $0["field"]?.stringValue == field && $0["path"]?.stringValue != nil }) { return }
        let names = ["relevance"] + sorts.compactMap { $0["name"]?.stringValue }
        throw RequestError(description: "no sort \"\(sort)\" in this index (it has: \(names.joined(separator: ", ")))")
    }

    /// The matched documents in the order of `sort`, at least the first `upTo` of them: by relevance (score, then
    /// document), or walking the sort's chunks from the start (or the end, descending) until the page is full and its
    /// last key complete, ties by relevance; documents without the sort's value come last, by relevance.
    func order(_ matched: [Int: Double], sort: String, upTo: Int) throws -> [Int] {
        let byRelevance = { (a: Int, b: Int) -> Bool in
            let x = matched[a]!, y = matched[b]!
            return x != y ? x > y : a < b
        }
        if sort == "relevance" { return matched.keys.sorted(by: byRelevance) }
        let sorts = meta["sorts"]?.arrayValue ?? []
        guard let s = sorts.first(where: { $0["name"]?.stringValue == sort }), let field = s["field"]?.stringValue,
              let path = (meta["orders"]?.arrayValue ?? []).first(where: { $0["field"]?.stringValue == field })?["path"]?.stringValue else {
            let names = ["relevance"] + sorts.compactMap { $0["name"]?.stringValue }
            throw RequestError(description: "no sort \"\(sort)\" in this index (it has: \(names.joined(separator: ", ")))")
        }
        let descending = s["descending"]?.boolValue ?? false
        let chunks = try file(path)["chunks"]?.arrayValue ?? []
        var out: [Int] = [], seen = Set<Int>()
        // The documents of the current key, sorted by relevance when the key ends (it may go on in the next chunk).
        var key: Double?, pending: [Int] = []
        func flush() { out += pending.sorted(by: byRelevance); seen.formUnion(pending); pending = [] }
        walk: for c in descending ? chunks.reversed() : chunks {
            guard let p = c["path"]?.stringValue else { continue }
            let j = try file(p)
            let keys = j["keys"]?.arrayValue ?? [], groups = j["documents"]?.arrayValue ?? []
            for g in descending ? Array(groups.indices.reversed()) : Array(groups.indices) {
                let k = keys[g].doubleValue
                if k != key {
                    flush()
                    if out.count >= upTo { break walk }
                    key = k
                }
                var doc = 0
                for gap in groups[g].arrayValue ?? [] { doc += gap.intValue ?? 0; if matched[doc] != nil { pending.append(doc) } }
            }
            // Every match found: the chunks after this one hold none of them.
            if out.count + pending.count == matched.count { break }
        }
        flush()
        if out.count < upTo { out += matched.keys.filter { !seen.contains($0) }.sorted(by: byRelevance) }
        return out
    }

    /// The stored object of one document: down the store tree (`RankedIndexBuilder.directoryTree`), each level's
    /// entries `[documents, name]` counted from where their directory starts, to its group, then the group's slice.
    func stored(_ doc: Int) throws -> JSON? {
        guard let store = meta["store"], let folder = metaFolder, let slice = store["slice"]?.intValue, slice > 0 else { return nil }
        var entries = store["entries"]?.arrayValue ?? [], start = 0
        var levels = store["levels"]?.intValue ?? 0
        while true {
            var found: String?
            for e in entries {
                guard let n = e[0]?.intValue, let name = e[1]?.stringValue else { return nil }
                if doc < start + n { found = name; break }
                start += n
            }
            guard let name = found else { return nil }
            if levels == 0 {
                let k = (doc - start) / slice
                return try file("\(folder)store/\(name)-\(k).json")["documents"]?[(doc - start) % slice]
            }
            entries = try file("\(folder)stores/\(name).json")["entries"]?.arrayValue ?? []
            levels -= 1
        }
    }
}
