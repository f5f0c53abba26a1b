import Foundation
import Schemas

/// The reference client of the ranked index: exactly what an app implements over the downloaded files (the browser's
/// `search.js` is a port of it). It fetches files through `load` (a path relative to the tree root → bytes) and
/// remembers what it fetched, so callers can report the bytes a query costs.
///
/// A query is analysed like the documents. Each word matches its index term and its stem; the last word, while typing,
/// also matches terms it is a prefix of; a word of 5+ characters that matches nothing matches index terms one edit
/// away. A result matches every word (`total` counts them); only when no document does are the documents that match
/// the most words returned, with `partial` set. Filters narrow the results (OR within a field, AND across fields); a
/// filter without words browses every document it admits. Results are ordered by relevance (the sum of each word's best
/// weighted score) or by a sort, ties by relevance, then by document order, so every client gives the same order.
public final class Query {
    public static let prefixExpansions = 40
    public static let prefixWeight = 0.9
    /// A prefix reaching a term found in no document's first field (a brand or category word only).
    public static let secondaryPrefixWeight = 0.45
    public static let typoMinimumLength = 5
    public static let typoWeight = 0.7

    public struct Result {
        public let document: Int
        public let score: Double
        public let stored: JSON
    }

    /// What to ask: the text, filters by field (each a list of values, any of which admits a document), the sort (a
    /// name from the meta file's `sorts`, or `relevance`), the page, and whether to count facets.
    public struct Request: Sendable {
        public var text: String
        public var filters: [String: [String]]
        public var sort: String
        public var limit: Int
        public var offset: Int
        public var facets: Bool
        /// false: the user is still typing (the last word is also a prefix).
        public var complete: Bool
        public init(_ text: String, filters: [String: [String]] = [:], sort: String = "relevance", limit: Int = 10, offset: Int = 0,
                    facets: Bool = false, complete: Bool = false) {
            self.text = text; self.filters = filters; self.sort = sort; self.limit = limit; self.offset = offset
            self.facets = facets; self.complete = complete
        }
    }

    /// One facet field's counts over the whole result set: values with at least one result, most first (ties by value).
    public struct FacetCount: Sendable, Equatable {
        public let field: String
        public let values: [(value: String, label: String, count: Int)]
        public static func == (a: FacetCount, b: FacetCount) -> Bool {
            a.field == b.field && a.values.elementsEqual(b.values) { $0.value == $1.value && $0.label == $1.label && $0.count == $1.count }
        }
    }

    public struct Response {
        public var results: [Result]
        /// Every document that matches (every word, or with `partial` the most words) and passes the filters.
        public var total: Int
        /// No document matched every word: these match the most words there are.
        public var partial: Bool
        /// Per facet field of the meta file, when asked for.
        public var facets: [FacetCount]
    }

    /// A request the index cannot answer: an unknown field, value form or sort. Says what it has instead.
    public struct RequestError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parsed files that several clients of one tree may share (one client per first query, each reporting what a
    /// first query downloads, without parsing the same shards again). Not thread-safe: one thread at a time.
    public final class Files {
        var parsed: [String: (json: JSON, bytes: Int)] = [:]
        public init() {}
    }

    let load: (String) throws -> [UInt8]
    public private(set) var fetched: [(path: String, bytes: Int)] = []
    var cache: [String: JSON] = [:]
    let shared: Files?
    var meta: JSON = .null
    var postingCache: [String: TermPostings?] = [:]

    /// The index's folder with a trailing slash (`search/`), where the store's paths start.
    let metaFolder: String?

    public init(metaPath: String, shared: Files? = nil, load: @escaping (String) throws -> [UInt8]) throws {
        self.load = load
        self.shared = shared
        metaFolder = metaPath.split(separator: "/").dropLast().map { $0 + "/" }.joined()
        meta = try file(metaPath)
    }

    func file(_ path: String) throws -> JSON {
        if let j = cache[path] { return j }
        if let f = shared?.parsed[path] {
            fetched.append((path, f.bytes))
            cache[path] = f.json
            return f.json
        }
        let bytes = try load(path)
        fetched.append((path, bytes.count))
        let j = try JSONReader.parse(bytes)
        cache[path] = j
        shared?.parsed[path] = (j, bytes.count)
        return j
    }

    /// A shard of a sorted list of keys (terms, facet values), found by its first and last key.
    struct Shard { let first: String; let last: String; let path: String }

    static func shards(_ list: JSON?) -> [Shard] {
        (list?.arrayValue ?? []).compactMap { s in
            guard let f = s["first"]?.stringValue, let l = s["last"]?.stringValue, let p = s["path"]?.stringValue else { return nil }
            return Shard(first: f, last: l, path: p)
        }
    }

    /// The shard whose key range holds `key`.
    static func shard(_ shards: [Shard], _ key: String) -> Shard? {
        shards.first { !RankedIndexBuilder.byteOrder(key, $0.first) && !RankedIndexBuilder.byteOrder($0.last, key) }
    }

    /// The position of `key` in a shard's sorted `list`, if it is there.
    static func find(_ key: String, in list: [JSON]) -> Int? {
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if RankedIndexBuilder.byteOrder(list[mid].stringValue ?? "", key) { lo = mid + 1 } else { hi = mid }
        }
        return lo < list.count && list[lo].stringValue == key ? lo : nil
    }

    /// Runs a request: the matching documents, narrowed by the filters, ordered, and the page's stored objects.
    public func search(_ request: Request) throws -> Response {
        let filters = try fieldFilters(request.filters)
        try checkSort(request.sort)
        var matched: [Int: Double]
        var partial = false
        let words = Self.queryWords(request.text)
        if words.isEmpty {
            // A browse: every document the filters admit (nothing without a filter), in the declared order.
            guard let filter = try filterSet(filters) else {
                return Response(results: [], total: 0, partial: false, facets: try facetCounts([], request.facets))
            }
            matched = Dictionary(uniqueKeysWithValues: filter.sorted().map { ($0, 0.0) })
        } else {
            // Words first: with facet counts not asked for, a filter on a field with columns reads only the documents
            // every word matched (`columnFilter`); otherwise, or when that leaves none, the value lists whole.
            let perWord = try wordMatchList(words, text: request.text, complete: request.complete)
            var filter: Set<Int>?
            if !filters.isEmpty {
                if !request.facets, let kept = try columnFilter(perWord, filters), !kept.isEmpty { filter = kept }
                else { filter = try filterSet(filters) }
            }
            (matched, partial) = Self.combine(perWord, within: filter)
        }
        let sortName = words.isEmpty && request.sort == "relevance" ? (meta["browse"]?.stringValue ?? "relevance") : request.sort
        let ordered = try order(matched, sort: sortName, upTo: request.offset + request.limit)
        let page = Array(ordered.dropFirst(request.offset).prefix(request.limit))
        var results: [Result] = []
        for d in page { if let stored = try stored(d) { results.append(Result(document: d, score: matched[d] ?? 0, stored: stored)) } }
        return Response(results: results, total: matched.count, partial: partial, facets: try facetCounts(Array(matched.keys), request.facets))
    }

    /// Runs a text query by relevance (kept for callers of the first format's client).
    public func search(_ text: String, limit: Int = 10, offset: Int = 0, complete: Bool = false) throws -> (results: [Result], total: Int) {
        let r = try search(Request(text, limit: limit, offset: offset, complete: complete))
        return (r.results, r.total)
    }

    /// Every matching document with its score, best first (ties by document order).
    public func rank(_ text: String, complete: Bool = false) throws -> [(doc: Int, score: Double)] {
        let (m, _) = try matches(Self.queryWords(text), text: text, complete: complete, within: nil)
        return m.map { (doc: $0.key, score: $0.value) }.sorted { $0.score != $1.score ? $0.score > $1.score : $0.doc < $1.doc }
    }
}
