import XCTest
import Foundation
import Schemas
import TestTools
@testable import Indexer

/// BM25F scores and result orders of the ranked index, checked against an oracle written in this file from the
/// formula the Search article (Indexer.docc) documents — never from the code under test:
///
///   tf(t, d) = Σ over fields of field weight × occurrences of t      dl(d) = Σ over fields of weight × terms
///   idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
///   score = idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × dl / avgdl)),   k1 = 1.2, b = 0.75
///   stored = round(1.06 ^ round(ln(max(1, score × 100)) / ln 1.06))      (format 3: a geometric grid of 6 % steps)
///
/// postings written as the G distinct stored scores best first, then one number per document in document order:
/// (gap from the document before − 1) × G + the rank of its score;
///
/// and, for queries (the Search article, Query.swift's documentation): each query word takes a document's best match
/// (exact 1.0; prefix of the last word while typing 0.9, or 0.45 for a term found in no document's first field; one
/// edit for words of 5+ characters that match nothing else 0.7, typo candidates at least half as frequent as the most
/// frequent one). A result matches every word; when no document does, the documents matching the most words are
/// returned, `partial`. A word matched only by prefix or typo counts for at most the least exact contribution of the
/// other words. A document's score is the sum over words times the share of words it matches; ties go to the earlier
/// document.
///
/// The corpus uses lowercase words without stop words, plurals or punctuation, so analysing a text is splitting it
/// on spaces (checked first, so the premise cannot silently break).
final class BM25OracleTests: XCTestCase {
    // The documented settings, stated here (not read from the code).
    static let k1 = 1.2, b = 0.75, scale = 100.0
    static let name = 3.0, brand = 2.0, category = 1.5, description = 1.0
    static let prefixWeight = 0.9, secondaryPrefixWeight = 0.45, typoWeight = 0.7, scoreStep = 0.06

    /// (name, brand, category, description)
    static let corpus: [(String, String, String, String)] = [
        ("cordless drill", "acme", "power tool", "drill wood metal drill"),                  // 0
        ("claw hammer", "acme", "hand tool", "steel hammer handle"),                         // 1
        ("impact driver", "boltz", "power tool", "driver bit drill"),                        // 2
        ("drill bit set", "boltz", "accessory", ""),                                         // 3
        ("garden hose", "greenly", "garden", "watering garden hose reel long rubber hose"),  // 4
        ("hammer drill", "boltz", "power tool", "hammer drill masonry concrete"),            // 5
        ("claw hammer", "acme", "hand tool", "steel hammer handle"),                         // 6: the same as 1
        ("propane grill", "greenly", "outdoor", "grill cover"),                              // 7
    ]

    static func documents() -> [RankedDocument] {
        corpus.enumerated().map { i, d in
            RankedDocument(id: "d\(i)", fields: [("name", name, d.0), ("brand", brand, d.1), ("category", category, d.2),
                                                 ("description", description, d.3)],
                           stored: .obj(["id": .string("d\(i)")]))
        }
    }

    // MARK: the oracle

    struct Oracle {
        let n: Int
        var tf: [[String: Double]] = [], dl: [Double] = [], df: [String: Int] = [:]

        init(_ docs: [[(weight: Double, text: String)]]) {
            n = docs.count
            for fields in docs {
                var t: [String: Double] = [:], len = 0.0
                for f in fields {
                    for w in f.text.split(separator: " ") { t[String(w), default: 0] += f.weight; len += f.weight }
                }
                tf.append(t); dl.append(len)
                for w in t.keys { df[w, default: 0] += 1 }
            }
        }

        var avgdl: Double { dl.reduce(0, +) / Double(n) }

        func idf(_ term: String) -> Double {
            let d = Double(df[term] ?? 0)
            return Foundation.log(1 + (Double(n) - d + 0.5) / (d + 0.5))
        }

        func score(_ term: String, _ doc: Int) -> Double? {
            guard let f = tf[doc][term] else { return nil }
            return idf(term) * f * (k1 + 1) / (f + k1 * (1 - b + b * dl[doc] / avgdl))
        }

        /// The integer the index stores for (term, doc), or nil when the document lacks the term.
        func stored(_ term: String, _ doc: Int) -> Int? {
            score(term, doc).map(Oracle.quantised)
        }

        /// A score × 100 moved to the nearest step (in the exponent) of the grid 1.06^k, then rounded.
        static func quantised(_ score: Double) -> Int {
            let step = Foundation.log(1 + scoreStep)
            let k = (Foundation.log(max(1, score * scale)) / step).rounded()
            return Int(Foundation.exp(k * step).rounded())
        }

        /// Every term's postings, doc → stored score.
        var postings: [String: [Int: Int]] {
            var out: [String: [Int: Int]] = [:]
            for (d, t) in tf.enumerated() { for term in t.keys { out[term, default: [:]][d] = stored(term, d)! } }
            return out
        }

        /// Ranks documents for query words, each word given as the index terms it matches with their weights (weight 1:
        /// the word itself, an exact match; any other weight: a prefix or typo match). Documents that match every word;
        /// when none does, those matching the most words (`partial`).
        func rank(_ words: [[(String, Double)]], capped: Bool = true) -> (ranked: [(doc: Int, score: Double)], partial: Bool) {
            // Per word and document: the best exact and the best other (prefix, typo) contribution.
            var exact: [[Int: Double]] = [], other: [[Int: Double]] = []
            for matches in words {
                var e: [Int: Double] = [:], o: [Int: Double] = [:]
                for (t, w) in matches {
                    for d in 0..<n {
                        guard let s = stored(t, d) else { continue }
                        if w == 1 { e[d] = max(e[d] ?? 0, Double(s)) } else { o[d] = max(o[d] ?? 0, Double(s) * w) }
                    }
                }
                exact.append(e); other.append(o)
            }
            let matched = (0..<n).map { d in (0..<words.count).filter { exact[$0][d] != nil || other[$0][d] != nil }.count }
            let most = matched.max() ?? 0
            guard most > 0 else { return ([], false) }
            var out: [(doc: Int, score: Double)] = []
            for d in 0..<n where matched[d] == most {
                var sum = 0.0
                for i in words.indices {
                    let e = exact[i][d] ?? 0, o = other[i][d] ?? 0
                    if e >= o { sum += e; continue }
                    // Matched better by prefix or typo: at most the least exact contribution of the other words.
                    let others = words.indices.filter { $0 != i }.compactMap { j -> Double? in
                        let ej = exact[j][d] ?? 0, oj = other[j][d] ?? 0
                        return ej > 0 && ej >= oj ? ej : nil
                    }
                    sum += capped ? max(e, min(o, others.min() ?? .infinity)) : o
                }
                out.append((d, sum * Double(most) / Double(words.count)))
            }
            return (out.sorted { $0.score != $1.score ? $0.score > $1.score : $0.doc < $1.doc }, most < words.count)
        }

        /// The terms found in some document's first field (the name).
        var primary: Set<String> { Set(BM25OracleTests.corpus.flatMap { $0.0.split(separator: " ").map(String.init) }) }
    }

    static let oracle = Oracle(corpus.map { [(name, $0.0), (brand, $0.1), (category, $0.2), (description, $0.3)] })

    // MARK: reading the built index (its files, as a client would)

    func build(_ docs: [RankedDocument] = documents(), settings: RankedIndexBuilder.Settings = .init()) throws -> [String: [UInt8]] {
        var map: [String: [UInt8]] = [:]
        for (p, text) in try RankedIndexBuilder(settings: settings).build(docs, folder: "search").files { map[p] = text }
        return map
    }

    /// term → doc → stored score, decoded from the term shards listed in meta.json (TestTools' `packedPostings`,
    /// which checks the scores are best first), and the terms each shard lists as `secondary`.
    func storedPostings(_ files: [String: [UInt8]]) throws -> [String: [Int: Int]] { try decoded(files).postings }

    func decoded(_ files: [String: [UInt8]]) throws -> (postings: [String: [Int: Int]], secondary: Set<String>) {
        let meta = try JSONReader.parse(XCTUnwrap(files["search/meta.json"]))
        var out: [String: [Int: Int]] = [:], secondary = Set<String>()
        // The term tree: the meta file's top level, each entry with levels left a term directory of the level below.
        // (Entries are [first term, name]: directories at search/termdirs/{name}.json, shards at search/terms/{name}.json.)
        var shards = meta["termShards"]?["entries"]?.arrayValue ?? []
        for _ in 0..<(try XCTUnwrap(meta["termShards"]?["levels"]?.intValue)) {
            shards = try shards.flatMap {
                try JSONReader.parse(XCTUnwrap(files["search/termdirs/\(XCTUnwrap($0[1]?.stringValue)).json"]))["entries"]?.arrayValue ?? []
            }
        }
        for shard in shards {
            let s = try JSONReader.parse(XCTUnwrap(files["search/terms/\(XCTUnwrap(shard[1]?.stringValue)).json"]))
            let terms = (s["terms"]?.arrayValue ?? []).compactMap(\.stringValue)
            for (i, term) in terms.enumerated() {
                let flat = try postingNumbers(XCTUnwrap(s["postings"]?[i]?.stringValue, "\(term): a posting list is text"))
                let list = try packedPostings(term, flat)
                out[term] = list
            }
            for k in s["secondary"]?.arrayValue ?? [] { secondary.insert(terms[try XCTUnwrap(k.intValue)]) }
        }
        return (out, secondary)
    }

    func query(_ files: [String: [UInt8]]) throws -> Query {
        try Query(metaPath: "search/meta.json") { p in
            guard let b = files[p] else { throw NSError(domain: "missing \(p)", code: 1) }
            return b
        }
    }

    // MARK: tests

    func testAnalysisIsSplittingOnSpaces() {
        for d in Self.corpus { for text in [d.0, d.1, d.2, d.3] {
            XCTAssertEqual(Analyzer.terms(text), text.split(separator: " ").map(String.init), text)
        } }
    }

    /// A two-document case worked by hand: "alpha" only in document 0's name (weight 3).
    /// N = 2, df = 1: idf = ln(1 + 1.5/1.5) = ln 2 = 0.693147; tf = 3, dl = 3 = avgdl (document 1 is "beta", also 3):
    /// score = 0.693147 × 3 × 2.2 / (3 + 1.2 × 1) = 1.0892313; × 100 = 108.92313, ln of which / ln 1.06 = 80.49992
    /// (80.5 would be 108.92364): step 80, 1.06^80 = 105.796 → stored 106.
    func testAScoreWorkedByHand() throws {
        let docs = [RankedDocument(id: "a", fields: [("name", 3, "alpha")], stored: .obj([:])),
                    RankedDocument(id: "b", fields: [("name", 3, "beta")], stored: .obj([:]))]
        let p = try storedPostings(build(docs))
        XCTAssertEqual(p["alpha"], [0: 106])
        XCTAssertEqual(p["beta"], [1: 106])
        // A longer document scores lower for the same tf: "alpha" in "alpha gamma" (dl 6) and in "alpha" (dl 3).
        let longer = [RankedDocument(id: "a", fields: [("name", 3, "alpha gamma")], stored: .obj([:])),
                      RankedDocument(id: "b", fields: [("name", 3, "alpha")], stored: .obj([:])),
                      RankedDocument(id: "c", fields: [("name", 3, "beta")], stored: .obj([:]))]
        // N = 3, df(alpha) = 2: idf = ln(1 + 1.5/2.5) = ln 1.6 = 0.470004; avgdl = (6 + 3 + 3)/3 = 4.
        // a: norm = 1.2 × (0.25 + 0.75 × 6/4) = 1.65, 0.470004 × 6.6 / 4.65 = 0.667102: 66.7102, step 72.09 → 72,
        //    1.06^72 = 66.378 → 66
        // b: norm = 1.2 × (0.25 + 0.75 × 3/4) = 0.975, 0.470004 × 6.6 / 3.975 = 0.780383: 78.0383, step 74.78 → 75,
        //    1.06^75 = 79.057 → 79
        XCTAssertEqual(try storedPostings(build(longer))["alpha"], [0: 66, 1: 79])
        // The oracle's grid, by hand: 1 stays 1 (and anything below, e.g. a score of 0.001), 1.06^2 = 1.1236 → 1,
        // 100 (step 79.03 → 79, 1.06^79 = 99.81) → 100.
        XCTAssertEqual([0.00001, 0.01, 0.0112, 1].map(Oracle.quantised), [1, 1, 1, 100])
    }

    /// Every stored score lies on the grid and within half a step (3 %, plus the final rounding) of the exact score.
    func testStoredScoresLieOnTheGeometricGrid() throws {
        let grid = Set((0..<200).map { Int(Foundation.pow(1 + Self.scoreStep, Double($0)).rounded()) })
        var checked = 0
        for (term, list) in try storedPostings(build()) {
            for (d, stored) in list {
                XCTAssertTrue(grid.contains(stored), "\(term) in \(d): \(stored)")
                let exact = try XCTUnwrap(Self.oracle.score(term, d)) * Self.scale
                XCTAssertEqual(Double(stored), exact, accuracy: exact * (Foundation.sqrt(1 + Self.scoreStep) - 1) + 0.5, "\(term) in \(d)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 50)
    }

    /// Every (term, document) score the index stores equals the oracle's, and the terms of no name are `secondary`.
    func testEveryStoredScoreMatchesTheOracle() throws {
        let (stored, secondary) = try decoded(build())
        let expected = Self.oracle.postings
        XCTAssertEqual(Set(stored.keys), Set(expected.keys))
        for (term, list) in expected { XCTAssertEqual(stored[term], list, term) }
        XCTAssertEqual(secondary, Set(expected.keys).subtracting(Self.oracle.primary))
        XCTAssertTrue(secondary.isSuperset(of: ["acme", "boltz", "greenly", "tool", "masonry"]), "\(secondary)")
        XCTAssertFalse(secondary.contains("drill"))   // in names, even if document 2 has it in its description only
        // The corpus exercises what the formula is about: repeated terms, several fields, shared terms of every df.
        XCTAssertEqual(Self.oracle.tf[0]["drill"], 3 + 2)          // name once (3) + description twice (1 + 1)
        XCTAssertEqual(Self.oracle.tf[4]["garden"], 3 + 1.5 + 1)
        XCTAssertEqual(Self.oracle.df["drill"], 4)
        XCTAssertEqual(Self.oracle.df["propane"], 1)
        // And grouping: documents of equal stored score share a group (the twins 1 and 6, always).
        XCTAssertEqual(stored["claw"]?[1], stored["claw"]?[6])
    }

    /// The index states the documented settings.
    func testMetaStatesTheDocumentedSettings() throws {
        let meta = try JSONReader.parse(XCTUnwrap(try build()["search/meta.json"]))
        XCTAssertEqual(meta["format"]?.intValue, 5)
        XCTAssertEqual(meta["ranking"]?["k1"]?.doubleValue, Self.k1)
        XCTAssertEqual(meta["ranking"]?["b"]?.doubleValue, Self.b)
        XCTAssertEqual(meta["ranking"]?["scoreScale"]?.doubleValue, Self.scale)
        XCTAssertEqual(meta["ranking"]?["scoreStep"]?.doubleValue, Self.scoreStep)
        XCTAssertEqual(meta["ranking"]?["fieldWeights"], .obj(["name": 3, "brand": 2, "category": 1.5, "description": 1]))
        XCTAssertEqual(meta["query"]?["matching"]?.stringValue, "every word")
        XCTAssertEqual(meta["query"]?["prefixWeight"]?.doubleValue, Self.prefixWeight)
        XCTAssertEqual(meta["query"]?["secondaryPrefixWeight"]?.doubleValue, Self.secondaryPrefixWeight)
        XCTAssertEqual(meta["query"]?["typoWeight"]?.doubleValue, Self.typoWeight)
        XCTAssertEqual(meta["query"]?["typoMinimumLength"]?.intValue, 5)
        XCTAssertEqual(meta["query"]?["prefixExpansions"]?.intValue, 40)
        XCTAssertEqual(meta["documents"]?.intValue, Self.corpus.count)
    }

    /// The index's ranking of `text` equals the oracle's for the words' matches `words`: documents, order, scores, and
    /// through a results page the total and whether it is partial.
    func assertRanks(_ q: Query, _ text: String, complete: Bool, _ words: [[(String, Double)]], partial: Bool = false,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try q.rank(text, complete: complete)
        let want = Self.oracle.rank(words)
        XCTAssertFalse(want.ranked.isEmpty, text, file: file, line: line)
        XCTAssertEqual(want.partial, partial, "the oracle's \(text)", file: file, line: line)
        XCTAssertEqual(got.map(\.doc), want.ranked.map(\.doc), "order of \(text)", file: file, line: line)
        for (g, w) in zip(got, want.ranked) { XCTAssertEqual(g.score, w.score, accuracy: 1e-9, "\(text): doc \(w.doc)", file: file, line: line) }
        let page = try q.search(Query.Request(text, limit: 100, complete: complete))
        XCTAssertEqual(page.total, want.ranked.count, "total of \(text)", file: file, line: line)
        XCTAssertEqual(page.partial, partial, "partial of \(text)", file: file, line: line)
        XCTAssertEqual(page.results.map(\.document), want.ranked.map(\.doc), "page of \(text)", file: file, line: line)
        XCTAssertEqual(page.results.compactMap { $0.stored["id"]?.stringValue }, want.ranked.map { "d\($0.doc)" }, file: file, line: line)
    }

    /// Orders and scores of queries: one word, two words that some documents have both of, ties.
    func testQueryOrdersAndScoresMatchTheOracle() throws {
        let q = try query(build())
        try assertRanks(q, "drill", complete: true, [[("drill", 1)]])
        try assertRanks(q, "hammer drill", complete: true, [[("hammer", 1)], [("drill", 1)]])
        try assertRanks(q, "drill power tool", complete: true, [[("drill", 1)], [("power", 1)], [("tool", 1)]])
        try assertRanks(q, "steel handle", complete: true, [[("steel", 1)], [("handle", 1)]])
        // "drill": the documents with the word in their name come first, the description-only one last.
        let drill = try q.rank("drill", complete: true).map(\.doc)
        XCTAssertEqual(Set(drill.prefix(3)), [0, 3, 5])
        XCTAssertEqual(drill.last, 2)
        // "hammer drill": only document 5 has both words, and only it is found (no longer the hammers and drills too).
        XCTAssertEqual(try q.rank("hammer drill", complete: true).map(\.doc), [5])
        XCTAssertEqual(try q.rank("drill power tool", complete: true).map(\.doc).sorted(), [0, 2, 5])
    }

    /// When no document has every word, those with the most words are returned, their scores times the share of the
    /// words they have, and the response says `partial`.
    func testWithoutADocumentOfEveryWordTheMostWordsArePartial() throws {
        let q = try query(build())
        // No document has both: each has one of two, at half its score.
        try assertRanks(q, "acme hose", complete: true, [[("acme", 1)], [("hose", 1)]], partial: true)
        try assertRanks(q, "garden tool", complete: true, [[("garden", 1)], [("tool", 1)]], partial: true)
        // Two of three at most ("propane" is in document 7 alone, "cover grill" in it too): only document 7, at 2/3.
        try assertRanks(q, "propane grill hammer", complete: true, [[("propane", 1)], [("grill", 1)], [("hammer", 1)]], partial: true)
        XCTAssertEqual(try q.rank("propane grill hammer", complete: true).map(\.doc), [7])
        // One of three: every document that has any.
        try assertRanks(q, "acme boltz greenly", complete: true, [[("acme", 1)], [("boltz", 1)], [("greenly", 1)]], partial: true)
        XCTAssertEqual(try q.rank("acme boltz greenly", complete: true).count, Self.corpus.count)
        // A word the index lacks at all makes every result partial, not none.
        try assertRanks(q, "hammer zzz", complete: true, [[("hammer", 1)], []], partial: true)
        // And no word found: nothing, not partial.
        let none = try q.search(Query.Request("zzz qqq", complete: true))
        XCTAssertEqual(none.total, 0)
        XCTAssertFalse(none.partial)
        XCTAssertTrue(none.results.isEmpty)
    }

    /// Documents 1 and 6 are identical, so every query scores them alike; the earlier one comes first. The tie is
    /// real (same score), and the order is the documented one, not whatever a hash map gives.
    func testTiesGoToTheEarlierDocument() throws {
        let q = try query(build())
        for text in ["claw", "hammer", "claw hammer", "steel handle", "acme hammer"] {
            let r = try q.rank(text, complete: true)
            let one = try XCTUnwrap(r.firstIndex { $0.doc == 1 }, text), six = try XCTUnwrap(r.firstIndex { $0.doc == 6 }, text)
            XCTAssertEqual(r[one].score, r[six].score, text)
            XCTAssertLessThan(one, six, "\(text): \(r)")
            // Others may tie with them too (stored scores are on a grid of 6 % steps: "hammer" gives document 5 the
            // same), and every tie is in document order.
            XCTAssertTrue(zip(r, r.dropFirst()).allSatisfy { $0.score > $1.score || ($0.score == $1.score && $0.doc < $1.doc) }, "\(text): \(r)")
        }
        // The same through the results page (the store is read for the ids).
        let ids = try q.search("claw", limit: 10, complete: true).results.compactMap { $0.stored["id"]?.stringValue }
        XCTAssertEqual(ids, ["d1", "d6"])
        // Reversed, the corpus puts document 6's twin first: the order follows the position, not the id.
        let reversed = Array(Self.documents().reversed())
        let rq = try query(build(reversed))
        XCTAssertEqual(try rq.search("claw", limit: 10, complete: true).results.compactMap { $0.stored["id"]?.stringValue }, ["d6", "d1"])
    }

    /// The last word while typing matches the terms it is a prefix of, at 0.9 of their score; at 0.45 for a term that
    /// is in no document's first field (a brand, category or description word only).
    func testPrefixWeight() throws {
        let q = try query(build())
        try assertRanks(q, "hamm", complete: false, [[("hammer", Self.prefixWeight)]])
        try assertRanks(q, "boltz dri", complete: false, [[("boltz", 1)], [("drill", Self.prefixWeight), ("driver", Self.prefixWeight)]])
        // A complete word matches exactly, and its extensions only at 0.9: "garden" is no prefix of another term.
        try assertRanks(q, "hose", complete: false, [[("hose", 1)]])
        XCTAssertEqual(try q.rank("hamm", complete: true).count, 0)
        // Brand, category and description words reached by a prefix: 0.45.
        try assertRanks(q, "acm", complete: false, [[("acme", Self.secondaryPrefixWeight)]])
        try assertRanks(q, "mason", complete: false, [[("masonry", Self.secondaryPrefixWeight)]])
        try assertRanks(q, "gr", complete: false, [[("greenly", Self.secondaryPrefixWeight), ("grill", Self.prefixWeight)]])
        try assertRanks(q, "hammer bol", complete: false, [[("hammer", 1)], [("boltz", Self.secondaryPrefixWeight)]])
        // "too": "tool" (categories only) at 0.45; "dri": "drill" is in names, so 0.9 even for document 2 (description).
        try assertRanks(q, "too", complete: false, [[("tool", Self.secondaryPrefixWeight)]])
        try assertRanks(q, "dri", complete: false, [[("drill", Self.prefixWeight), ("driver", Self.prefixWeight)]])
    }

    /// A word matched (better) only by a prefix or a typo counts for at most the least exact contribution of the other
    /// words, so a word still being typed never outranks the words already typed.
    func testAPrefixOrTypoCountsForNoMoreThanTheExactWords() throws {
        let q = try query(build())
        // "acme hamm": "hammer" (name and description of 1 and 6, df 2) at 0.9 is worth more than "acme" (brand, df 3).
        let words: [[(String, Double)]] = [[("acme", 1)], [("hammer", Self.prefixWeight)]]
        let capped = Self.oracle.rank(words).ranked, uncapped = Self.oracle.rank(words, capped: false).ranked
        XCTAssertEqual(capped.map(\.doc), [1, 6])
        XCTAssertLessThan(capped[0].score, uncapped[0].score, "the case exercises the cap")
        XCTAssertEqual(capped[0].score, 2 * Double(try XCTUnwrap(Self.oracle.stored("acme", 1))), accuracy: 1e-9)
        try assertRanks(q, "acme hamm", complete: false, words)
        // The same for a typo ("tool clawx": "claw" in names at 0.7 is worth more than "tool", a category word of five
        // documents), and not for a word matched exactly ("acme hammer": nothing capped).
        let typo: [[(String, Double)]] = [[("tool", 1)], [("claw", Self.typoWeight)]]
        XCTAssertEqual(Self.oracle.rank(typo).ranked.map(\.doc), [1, 6])
        XCTAssertLessThan(Self.oracle.rank(typo).ranked[0].score, Self.oracle.rank(typo, capped: false).ranked[0].score)
        try assertRanks(q, "tool clawx", complete: true, typo)
        let exact = try q.rank("acme hammer", complete: true)
        XCTAssertEqual(exact.first?.score ?? 0,
                       Double(try XCTUnwrap(Self.oracle.stored("acme", 1))) + Double(try XCTUnwrap(Self.oracle.stored("hammer", 1))),
                       accuracy: 1e-9)
        // Alone, a prefix has nothing to be capped by.
        XCTAssertEqual(try q.rank("hamm", complete: false).first?.score ?? 0,
                       Double(try XCTUnwrap(Self.oracle.stored("hammer", 1))) * Self.prefixWeight, accuracy: 1e-9)
    }

    /// A word of 5+ characters that matches nothing matches terms one edit away at 0.7; of several candidates
    /// only those at least half as frequent as the most frequent one count ("brill": "drill" in 4 documents, "grill"
    /// in 1: only "drill").
    func testTypoWeightAndCandidates() throws {
        let q = try query(build())
        try assertRanks(q, "hammr", complete: true, [[("hammer", Self.typoWeight)]])     // deletion
        try assertRanks(q, "hmamer", complete: true, [[("hammer", Self.typoWeight)]])    // swap of neighbours
        try assertRanks(q, "brill", complete: true, [[("drill", Self.typoWeight)]])      // substitution; grill too rare
        try assertRanks(q, "griill", complete: true, [[("grill", Self.typoWeight)]])     // insertion
        try assertRanks(q, "acme hammr", complete: true, [[("acme", 1)], [("hammer", Self.typoWeight)]])
        XCTAssertEqual(try q.rank("hamer", complete: true).map(\.doc), Self.oracle.rank([[("hammer", Self.typoWeight)]]).ranked.map(\.doc))
        // Four characters are too short for a typo; two edits are too many.
        XCTAssertEqual(try q.rank("hose", complete: true).count, 1)
        XCTAssertEqual(try q.rank("hoze", complete: true).count, 0)
        XCTAssertEqual(try q.rank("hamnnr", complete: true).count, 0)
    }

    /// The same index and orders whatever the shard sizes.
    func testShardingChangesNoScore() throws {
        var s = RankedIndexBuilder.Settings()
        s.termShardBytes = 40
        s.storeGroupSize = 2
        s.storeSliceSize = 1
        s.storeDirectoryShards = 2
        let small = try build(settings: s)
        XCTAssertGreaterThan(small.keys.filter { $0.hasPrefix("search/terms/") }.count, 3)
        XCTAssertGreaterThan(small.keys.filter { $0.hasPrefix("search/stores/") }.count, 1)
        XCTAssertEqual(try storedPostings(small), Self.oracle.postings)
        let q = try query(small)
        try assertRanks(q, "hammer drill", complete: true, [[("hammer", 1)], [("drill", 1)]])
        try assertRanks(q, "acme boltz greenly", complete: true, [[("acme", 1)], [("boltz", 1)], [("greenly", 1)]], partial: true)
    }
}
