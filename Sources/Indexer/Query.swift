import Foundation
import Schemas

/// The reference client of the ranked index: exactly what an app implements over the downloaded files.
/// It fetches files through `load` (a path relative to the tree root → bytes) and remembers what it fetched,
/// so callers can report the bytes a query costs.
///
/// A query is analysed like the documents. Each query term matches its exact index term; the last term also
/// matches terms it is a prefix of (while typing), weighted `prefixWeight`; a term of 5+ characters that is not
/// in the index matches index terms one edit away (insert, delete, substitute or swap two neighbours), weighted
/// `typoWeight`. A document's score is the sum over query terms of its best weighted match, times the share of
/// query terms it matches; ties are broken by document order, so results are deterministic.
public final class Query {
    public static let prefixExpansions = 40
    public static let prefixWeight = 0.9
    public static let typoMinimumLength = 5
    public static let typoWeight = 0.7

    public struct Result {
        public let document: Int
        public let score: Double
        public let stored: JSON
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
    private var metaValue: JSON = .null

    public init(metaPath: String, shared: Files? = nil, load: @escaping (String) throws -> [UInt8]) throws {
        self.load = load
        self.shared = shared
        metaValue = try file(metaPath)
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

    struct Shard { let first: String; let last: String; let path: String }

    var shards: [Shard] {
        (metaValue["termShards"]?.arrayValue ?? []).compactMap { s in
            guard let f = s["first"]?.stringValue, let l = s["last"]?.stringValue, let p = s["path"]?.stringValue else { return nil }
            return Shard(first: f, last: l, path: p)
        }
    }

    var postingCache: [String: [Int: Int]?] = [:]

    /// Postings of one term (doc → score), or nil when the index does not have it.
    func postings(_ term: String) throws -> [Int: Int]? {
        if let cached = postingCache[term] { return cached }
        let p = try readPostings(term)
        postingCache[term] = p
        return p
    }

    func readPostings(_ term: String) throws -> [Int: Int]? {
        guard let shard = shards.first(where: { !RankedIndexBuilder.byteOrder(term, $0.first) && !RankedIndexBuilder.byteOrder($0.last, term) }) else { return nil }
        let j = try file(shard.path)
        let terms = j["terms"]?.arrayValue ?? []
        var lo = 0, hi = terms.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if RankedIndexBuilder.byteOrder(terms[mid].stringValue ?? "", term) { lo = mid + 1 } else { hi = mid }
        }
        guard lo < terms.count, terms[lo].stringValue == term, let flat = j["postings"]?[lo]?.arrayValue else { return nil }
        var out: [Int: Int] = [:]
        var doc = 0
        var k = 0
        while k + 1 < flat.count {
            doc += flat[k].intValue ?? 0
            out[doc] = flat[k + 1].intValue ?? 0
            k += 2
        }
        return out
    }

    /// Index terms that start with `prefix`, most frequent first (at most `prefixExpansions`).
    func expansions(_ prefix: String) throws -> [String] {
        var found: [(String, Int)] = []
        for s in shards {
            // The shard's range [first, last] meets the range of words starting with the prefix.
            if RankedIndexBuilder.byteOrder(s.last, prefix) { continue }
            if !s.first.hasPrefix(prefix) && RankedIndexBuilder.byteOrder(prefix, s.first) { break }
            let j = try file(s.path)
            let terms = j["terms"]?.arrayValue ?? []
            for (i, t) in terms.enumerated() {
                guard let t = t.stringValue, t.hasPrefix(prefix), t != prefix else { continue }
                found.append((t, (j["postings"]?[i]?.arrayValue?.count ?? 0) / 2))
            }
        }
        return found.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : RankedIndexBuilder.byteOrder($0.0, $1.0) }.prefix(Self.prefixExpansions).map(\.0)
    }

    /// Index terms exactly one edit away (Damerau–Levenshtein, adjacent swap counts as one).
    func typoCandidates(_ term: String) throws -> [String] {
        let len = term.count
        var out: [String] = []
        for v in metaValue["vocabulary"]?.arrayValue ?? [] {
            guard let l = v["length"]?.intValue, abs(l - len) <= 1, let p = v["path"]?.stringValue else { continue }
            for t in try file(p)["terms"]?.arrayValue ?? [] {
                if let t = t.stringValue, Self.oneEdit(term, t) { out.append(t) }
            }
        }
        return out.sorted(by: RankedIndexBuilder.byteOrder)
    }

    static func oneEdit(_ a: String, _ b: String) -> Bool {
        let x = Array(a), y = Array(b)
        if x == y { return false }
        if x.count == y.count {
            let diffs = (0..<x.count).filter { x[$0] != y[$0] }
            if diffs.count == 1 { return true }
            return diffs.count == 2 && diffs[1] == diffs[0] + 1 && x[diffs[0]] == y[diffs[1]] && x[diffs[1]] == y[diffs[0]]
        }
        let (s, l) = x.count < y.count ? (x, y) : (y, x)
        guard l.count - s.count == 1 else { return false }
        var i = 0
        while i < s.count && s[i] == l[i] { i += 1 }
        return s[i...] == l[(i + 1)...]
    }

    /// Runs a query; `complete` false means the user is still typing (the last term is a prefix).
    public func search(_ text: String, limit: Int = 10, offset: Int = 0, complete: Bool = false) throws -> (results: [Result], total: Int) {
        let ranked = try rank(text, complete: complete)
        let page = ranked.dropFirst(offset).prefix(limit)
        // The result store: fetch only the shards holding this page (the last shard starting at or before the doc).
        let store = (metaValue["store"]?["shards"]?.arrayValue ?? []).compactMap { e -> (Int, String)? in
            guard let f = e["first"]?.intValue, let p = e["path"]?.stringValue else { return nil }
            return (f, p)
        }
        var results: [Result] = []
        for r in page {
            guard let (first, p) = store.last(where: { $0.0 <= r.doc }) else { continue }
            let s = try file(p)
            results.append(Result(document: r.doc, score: r.score, stored: s["documents"]?[r.doc - first] ?? .null))
        }
        return (results, ranked.count)
    }

    /// Every matching document (its position in the index) with its score, best first.
    public func rank(_ text: String, complete: Bool = false) throws -> [(doc: Int, score: Double)] {
        try matches(text, complete: complete).sorted { $0.score != $1.score ? $0.score > $1.score : $0.doc < $1.doc }
    }

    /// The same documents and scores in no particular order (what `rank` sorts): enough to count them or to ask
    /// whether a document is among them.
    public func matches(_ text: String, complete: Bool = false) throws -> [(doc: Int, score: Double)] {
        let words = Analyzer.words(text).filter { !Analyzer.stopWords.contains($0) }
        guard !words.isEmpty else { return [] }
        var perTerm: [[Int: Double]] = []
        for (i, w) in words.enumerated() {
            let term = Analyzer.stem(w)
            var best: [Int: Double] = [:]
            func add(_ t: String, _ weight: Double) throws {
                guard let p = try postings(t) else { return }
                for (d, s) in p { best[d] = max(best[d] ?? 0, Double(s) * weight) }
            }
            try add(term, 1)
            if term != w { try add(w, 1) }
            let isLast = i == words.count - 1
            if isLast && !complete && !text.hasSuffix(" ") {
                for t in try expansions(w) where t != term { try add(t, Self.prefixWeight) }
            }
            if best.isEmpty && w.count >= Self.typoMinimumLength {
                // One edit from the word as typed or from its stem ("drils" → "drill", "drills").
                var candidates = Set(try typoCandidates(w))
                if term != w && term.count >= Self.typoMinimumLength - 1 { candidates.formUnion(try typoCandidates(term)) }
                // The likeliest intended words: candidates at least half as frequent as the most frequent one
                // ("drils" means "drill", not the rarer "drip").
                var lists: [(String, [Int: Int])] = []
                for t in candidates.sorted(by: RankedIndexBuilder.byteOrder) { if let p = try postings(t) { lists.append((t, p)) } }
                let top = lists.map(\.1.count).max() ?? 0
                for (_, p) in lists where p.count * 2 >= top { for (d, s) in p { best[d] = max(best[d] ?? 0, Double(s) * Self.typoWeight) } }
            }
            perTerm.append(best)
        }
        var total: [Int: (score: Double, matched: Int)] = [:]
        for m in perTerm { for (d, s) in m { total[d, default: (0, 0)].score += s; total[d, default: (0, 0)].matched += 1 } }
        let n = Double(perTerm.count)
        return total.map { (doc: $0.key, score: $0.value.score * Double($0.value.matched) / n) }
    }
}
