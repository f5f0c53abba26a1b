import Foundation
import Schemas

/// Words: each query word's matching documents and scores, from the term shards and vocabulary files, and how they
/// combine (every word; or, when no document has them all, the most words).
extension Query {
    /// One term's postings: document → stored score, and whether the term occurs only in secondary fields.
    struct TermPostings {
        var scores: [Int: Int]
        var secondary: Bool
        /// Where the term is: its shard's positions down the term tree (`termShards`), and its number in the shard.
        var at: [Int]
        var index: Int
    }

    static func queryWords(_ text: String) -> [String] {
        Analyzer.words(text).filter { !Analyzer.stopWords.contains($0) }
    }

    /// The term shards that may hold `term` (with `prefix`, every term it starts), walking down the term tree
    /// (`RankedIndexBuilder.termTree`: entries `[first term, name]`, each holding the terms from its first to the next
    /// one's); each with its positions down the tree (in the meta file's entries, then in each directory), which the
    /// column trees share.
    func termShards(_ term: String, prefix: Bool = false) throws -> [(path: String, at: [Int])] {
        guard let folder = metaFolder else { return [] }
        var entries = Self.covering(meta["termShards"]?["entries"]?.arrayValue ?? [], term, prefix: prefix).map { ($0.name, [$0.k]) }
        for _ in 0..<(meta["termShards"]?["levels"]?.intValue ?? 0) {
            var below: [(String, [Int])] = []
            for (name, at) in entries {
                let list = try file("\(folder)termdirs/\(name).json")["entries"]?.arrayValue ?? []
                below += Self.covering(list, term, prefix: prefix).map { ($0.name, at + [$0.k]) }
            }
            entries = below
        }
        return entries.map { (path: "\(folder)terms/\($0.0).json", at: $0.1) }
    }

    /// Of a term tree's entries, the one whose range holds `term` (the last whose first term is not after it) and, with
    /// `prefix`, the ones after it whose first term starts with it.
    static func covering(_ entries: [JSON], _ term: String, prefix: Bool) -> [(k: Int, name: String)] {
        let firsts = entries.map { $0[0]?.stringValue ?? "" }
        var lo = 0, hi = firsts.count   // the first entry whose first term is after `term`
        while lo < hi { let mid = (lo + hi) / 2; if RankedIndexBuilder.byteOrder(term, firsts[mid]) { hi = mid } else { lo = mid + 1 } }
        var picked = lo > 0 ? [lo - 1] : []
        if prefix { var k = lo; while k < firsts.count && firsts[k].hasPrefix(term) { picked.append(k); k += 1 } }
        return picked.compactMap { k in entries[k][1]?.stringValue.map { (k: k, name: $0) } }
    }

    /// Postings of one term, or nil when the index does not have it.
    func postings(_ term: String) throws -> TermPostings? {
        if let cached = postingCache[term] { return cached }
        var p: TermPostings?
        if let (path, at) = try termShards(term).first {
            let j = try file(path)
            if let k = Self.find(term, in: j["terms"]?.arrayValue ?? []), let text = j["postings"]?[k]?.stringValue {
                let secondary = (j["secondary"]?.arrayValue ?? []).contains { $0.intValue == k }
                p = TermPostings(scores: Self.decodePacked(PostingText.numbers(text)), secondary: secondary, at: at, index: k)
            }
        }
        postingCache[term] = p
        return p
    }

    /// `[G, score₀ … score_G−1, n…]` (a list's `PostingText` numbers, `RankedIndexBuilder.packedPostings`): G scores
    /// best first, then per document in document order n = (gap from the document before − 1) × G + its score's rank.
    static func decodePacked(_ flat: [Int]) -> [Int: Int] {
        guard let g = flat.first, g > 0, flat.count > g else { return [:] }
        var out: [Int: Int] = [:]
        out.reserveCapacity(flat.count - g - 1)
        var doc = -1
        for n in flat[(g + 1)...] {
            doc += n / g + 1
            out[doc] = flat[1 + n % g]
        }
        return out
    }

    /// The number of documents of a posting list as written (one number per document after the scores).
    static func documentCount(_ flat: [Int]) -> Int {
        guard let g = flat.first else { return 0 }
        return max(0, flat.count - g - 1)
    }

    /// Index terms that start with `prefix`, most frequent first (at most `prefixExpansions`).
    func expansions(_ prefix: String) throws -> [String] {
        var found: [(String, Int)] = []
        for (path, _) in try termShards(prefix, prefix: true) {
            let j = try file(path)
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
        guard let list = meta["vocabulary"]?.stringValue else { return [] }
        for v in try file(list)["files"]?.arrayValue ?? [] {
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
        /// The terms it matched through, in the order they were added.
        var terms: [String] = []
        var documents: Set<Int> { Set(exact.keys).union(other.keys) }
    }

    func wordMatches(_ w: String, isLast: Bool, typing: Bool) throws -> WordMatches {
        var m = WordMatches()
        let term = Analyzer.stem(w)
        func add(_ t: String, _ weight: Double, exact: Bool) throws {
            guard let p = try postings(t) else { return }
            m.terms.append(t)
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
            var lists: [(String, [Int: Int])] = []
            for t in candidates.sorted(by: RankedIndexBuilder.byteOrder) { if let p = try postings(t) { lists.append((t, p.scores)) } }
            let top = lists.map(\.1.count).max() ?? 0
            for (t, p) in lists where p.count * 2 >= top {
                m.terms.append(t)
                for (d, s) in p { m.other[d] = max(m.other[d] ?? 0, Double(s) * Self.typoWeight) }
            }
        }
        return m
    }

    /// Each word's matches (the last one also as a prefix while typing).
    func wordMatchList(_ words: [String], text: String, complete: Bool) throws -> [WordMatches] {
        let typing = !complete && !text.hasSuffix(" ")
        return try words.enumerated().map { i, w in try wordMatches(w, isLast: i == words.count - 1, typing: typing) }
    }

    /// The documents (within `filter`, when given) that match every word, with their scores; or, when none does, those
    /// that match the most words, scaled by the share they match, and `partial`.
    func matches(_ words: [String], text: String, complete: Bool, within filter: Set<Int>?) throws -> (scores: [Int: Double], partial: Bool) {
        guard !words.isEmpty else { return ([:], false) }
        return Self.combine(try wordMatchList(words, text: text, complete: complete), within: filter)
    }

    /// Words' matches combined (see `matches`). Filtered after the typo rule looked at each word's matches: a filter
    /// never turns a known word into a typo.
    static func combine(_ matchList: [WordMatches], within filter: Set<Int>?) -> (scores: [Int: Double], partial: Bool) {
        var perWord = matchList
        if let filter {
            for k in perWord.indices {
                perWord[k].exact = perWord[k].exact.filter { filter.contains($0.key) }
                perWord[k].other = perWord[k].other.filter { filter.contains($0.key) }
            }
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
            scores[d] = sum * Double(c) / Double(perWord.count)
        }
        return (scores, most < perWord.count)
    }
}
