import Foundation
import Schemas

/// Words: each query word's matching documents and scores, from the term shards and vocabulary files, and how they
/// combine (every word; or, when no document has them all, the most words).
extension Query {
    /// One term's postings: document → stored score, and whether the term occurs only in secondary fields.
    struct TermPostings {
        var scores: [Int: Int]
        var secondary: Bool
    }

    static func queryWords(_ text: String) -> [String] {
        Analyzer.words(text).filter { !Analyzer.stopWords.contains($0) }
    }

    /// The term shards whose ranges meet the range `inRange` admits (given a shard's first and last term), walking
    /// down the term tree (`RankedIndexBuilder.directoryTree`) only into directories that meet it too.
    func termShards(_ inRange: (Shard) -> Bool) throws -> [Shard] {
        var entries = Self.shards(meta["termShards"]?["entries"]).filter(inRange)
        for _ in 0..<(meta["termShards"]?["levels"]?.intValue ?? 0) {
            var below: [Shard] = []
            for e in entries { below += Self.shards(try file(e.path)["entries"]).filter(inRange) }
            entries = below
        }
        return entries
    }

    /// Postings of one term, or nil when the index does not have it.
    func postings(_ term: String) throws -> TermPostings? {
        if let cached = postingCache[term] { return cached }
        var p: TermPostings?
        let holds = { (s: Shard) in !RankedIndexBuilder.byteOrder(term, s.first) && !RankedIndexBuilder.byteOrder(s.last, term) }
        if let shard = try termShards(holds).first {
            let j = try file(shard.path)
            if let k = Self.find(term, in: j["terms"]?.arrayValue ?? []), let text = j["postings"]?[k]?.stringValue {
                let secondary = (j["secondary"]?.arrayValue ?? []).contains { $0.intValue == k }
                p = TermPostings(scores: Self.decodeGroups(PostingText.numbers(text)), secondary: secondary)
            }
        }
        postingCache[term] = p
        return p
    }

    /// `[score, count, gap…, score, count, gap…]` (a list's `PostingText` numbers): each group's documents as gaps from 0.
    static func decodeGroups(_ flat: [Int]) -> [Int: Int] {
        var out: [Int: Int] = [:]
        var k = 0
        while k + 1 < flat.count {
            let score = flat[k], n = flat[k + 1]
            k += 2
            var doc = 0
            for _ in 0..<n where k < flat.count { doc += flat[k]; out[doc] = score; k += 1 }
        }
        return out
    }

    /// The number of documents of a posting list as written (the sum of its groups' counts).
    static func documentCount(_ flat: [Int]) -> Int {
        var k = 0, n = 0
        while k + 1 < flat.count { let c = flat[k + 1]; n += c; k += 2 + c }
        return n
    }

    /// Index terms that start with `prefix`, most frequent first (at most `prefixExpansions`).
    func expansions(_ prefix: String) throws -> [String] {
        var found: [(String, Int)] = []
        // The shards whose range [first, last] meets the range of words starting with the prefix.
        let meets = { (s: Shard) in !RankedIndexBuilder.byteOrder(s.last, prefix) && (s.first.hasPrefix(prefix) || !RankedIndexBuilder.byteOrder(prefix, s.first)) }
        for s in try termShards(meets) {
            let j = try file(s.path)
            let terms = j["terms"]?.arrayValue ?? []
            for (i, t) in terms.enumerated() {
                guard let t = t.stringValue, t.hasPrefix(prefix), t != prefix else { continue }
                found.append((t, Self.documentCount(PostingText.numbers(j["postings"]?[i]?.stringValue ?? ""))))
            }
        }
        return found.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : RankedIndexBuilder.byteOrder($0.0, $1.0) }.prefix(Self.prefixExpansions).map(\.0)
    }

    /// Index terms exactly one edit away (Damerau–Levenshtein, adjacent swap counts as one).
    func typoCandidates(_ term: String) throws -> [String] {
        let len = term.count
        var out: [String] = []
        for v in meta["vocabulary"]?.arrayValue ?? [] {
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

    /// One word's matches: document → best weighted score through its exact or stemmed term (`exact`) and through the
    /// terms it is a prefix of or one edit from (`other`).
    struct WordMatches {
        var exact: [Int: Double] = [:]
        var other: [Int: Double] = [:]
        var documents: Set<Int> { Set(exact.keys).union(other.keys) }
    }

    func wordMatches(_ w: String, isLast: Bool, typing: Bool) throws -> WordMatches {
        var m = WordMatches()
        let term = Analyzer.stem(w)
        func add(_ t: String, _ weight: Double, exact: Bool) throws {
            guard let p = try postings(t) else { return }
            let weight = !exact && p.secondary && weight == Self.prefixWeight ? Self.secondaryPrefixWeight : weight
            for (d, s) in p.scores {
                let v = Double(s) * weight
                if exact { m.exact[d] = max(m.exact[d] ?? 0, v) } else { m.other[d] = max(m.other[d] ?? 0, v) }
            }
        }
        try add(term, 1, exact: true)
        if term != w { try add(w, 1, exact: true) }
        if isLast && typing {
            for t in try expansions(w) where t != term { try add(t, Self.prefixWeight, exact: false) }
        }
        if m.exact.isEmpty && m.other.isEmpty && w.count >= Self.typoMinimumLength {
            // One edit from the word as typed or from its stem ("drils" → "drill", "drills").
            var candidates = Set(try typoCandidates(w))
            if term != w && term.count >= Self.typoMinimumLength - 1 { candidates.formUnion(try typoCandidates(term)) }
            // The likeliest intended words: candidates at least half as frequent as the most frequent one
            // ("drils" means "drill", not the rarer "drip").
            var lists: [[Int: Int]] = []
            for t in candidates.sorted(by: RankedIndexBuilder.byteOrder) { if let p = try postings(t) { lists.append(p.scores) } }
            let top = lists.map(\.count).max() ?? 0
            for p in lists where p.count * 2 >= top { for (d, s) in p { m.other[d] = max(m.other[d] ?? 0, Double(s) * Self.typoWeight) } }
        }
        return m
    }

    /// The documents (within `filter`, when given) that match every word, with their scores; or, when none does, those
    /// that match the most words, scaled by the share they match, and `partial`.
    func matches(_ words: [String], text: String, complete: Bool, within filter: Set<Int>?) throws -> (scores: [Int: Double], partial: Bool) {
        guard !words.isEmpty else { return ([:], false) }
        let typing = !complete && !text.hasSuffix(" ")
        var perWord: [WordMatches] = []
        for (i, w) in words.enumerated() {
            var m = try wordMatches(w, isLast: i == words.count - 1, typing: typing)
            if let filter { m.exact = m.exact.filter { filter.contains($0.key) }; m.other = m.other.filter { filter.contains($0.key) } }
            perWord.append(m)
        }
        var count: [Int: Int] = [:]
        for m in perWord { for d in m.documents { count[d, default: 0] += 1 } }
        let most = count.values.max() ?? 0
        guard most > 0 else { return ([:], false) }
        var scores: [Int: Double] = [:]
        for (d, c) in count where c == most {
            // Each word's best; a prefix or typo match never counts for more than the least of the other words' exact
            // matches (a last word still being typed never outranks the words already typed).
            let best = perWord.map { (exact: $0.exact[d] ?? 0, other: $0.other[d] ?? 0) }
            let cap = best.filter { $0.exact > 0 && $0.exact >= $0.other }.map(\.exact).min() ?? .infinity
            let sum = best.reduce(0.0) { $0 + ($1.exact >= $1.other ? $1.exact : max($1.exact, min($1.other, cap))) }
            scores[d] = sum * Double(c) / Double(words.count)
        }
        return (scores, most < words.count)
    }
}
