import XCTest
import Foundation
import Schemas
@testable import Indexer

/// BM25F scores and result orders of the ranked index, checked against an oracle written in this file from the
/// formula the Search article (Indexer.docc) documents — never from the code under test:
///
///   tf(t, d) = Σ over fields of field weight × occurrences of t      dl(d) = Σ over fields of weight × terms
///   idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
///   score = idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × dl / avgdl)),   k1 = 1.2, b = 0.75
///   stored = max(1, round(score × 100))
///
/// and, for queries (the Search article, Query.swift's documentation): each query term takes a document's best match (exact
/// 1.0, prefix of the last term while typing 0.9, one edit for words of 5+ characters that are not in the index 0.7,
/// typo candidates at least half as frequent as the most frequent one); a document's score is the sum over terms
/// times the share of query terms it matches; ties go to the earlier document.
///
/// The corpus uses lowercase words without stop words, plurals or punctuation, so analysing a text is splitting it
/// on spaces (checked first, so the premise cannot silently break).
final class BM25OracleTests: XCTestCase {
    // The documented settings, stated here (not read from the code).
    static let k1 = 1.2, b = 0.75, scale = 100.0
    static let name = 3.0, brand = 2.0, category = 1.5, description = 1.0
    static let prefixWeight = 0.9, typoWeight = 0.7

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
                           stored: .obj(["id": .string("d\(i)")]), group: d.1)
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
            score(term, doc).map { max(1, Int(($0 * scale).rounded())) }
        }

        /// Every term's postings, doc → stored score.
        var postings: [String: [Int: Int]] {
            var out: [String: [Int: Int]] = [:]
            for (d, t) in tf.enumerated() { for term in t.keys { out[term, default: [:]][d] = stored(term, d)! } }
            return out
        }

        /// Ranks documents for query terms, each term given as the index terms it matches with their weights.
        func rank(_ terms: [[(String, Double)]]) -> [(doc: Int, score: Double)] {
            var total: [Int: (Double, Int)] = [:]
            for matches in terms {
                var best: [Int: Double] = [:]
                for (t, w) in matches { for d in 0..<n { if let s = stored(t, d) { best[d] = max(best[d] ?? 0, Double(s) * w) } } }
                for (d, s) in best { total[d, default: (0, 0)].0 += s; total[d, default: (0, 0)].1 += 1 }
            }
            return total.map { (doc: $0.key, score: $0.value.0 * Double($0.value.1) / Double(terms.count)) }
                .sorted { $0.score != $1.score ? $0.score > $1.score : $0.doc < $1.doc }
        }
    }

    static let oracle = Oracle(corpus.map { [(name, $0.0), (brand, $0.1), (category, $0.2), (description, $0.3)] })

    // MARK: reading the built index (its files, as a client would)

    func build(_ docs: [RankedDocument] = documents(), settings: RankedIndexBuilder.Settings = .init()) throws -> [String: [UInt8]] {
        var map: [String: [UInt8]] = [:]
        for (p, text) in try RankedIndexBuilder(settings: settings).build(docs, folder: "search").files { map[p] = text }
        return map
    }

    /// term → doc → stored score, decoded from the term shards listed in meta.json.
    func storedPostings(_ files: [String: [UInt8]]) throws -> [String: [Int: Int]] {
        let meta = try JSONReader.parse(XCTUnwrap(files["search/meta.json"]))
        var out: [String: [Int: Int]] = [:]
        for shard in meta["termShards"]?.arrayValue ?? [] {
            let s = try JSONReader.parse(XCTUnwrap(files[XCTUnwrap(shard["path"]?.stringValue)]))
            for (i, term) in (s["terms"]?.arrayValue ?? []).enumerated() {
                let flat = s["postings"]?[i]?.arrayValue?.compactMap(\.intValue) ?? []
                var doc = 0, list: [Int: Int] = [:]
                for k in stride(from: 0, to: flat.count - 1, by: 2) { doc += flat[k]; list[doc] = flat[k + 1] }
                out[term.stringValue!] = list
            }
        }
        return out
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
    /// score = 0.693147 × 3 × 2.2 / (3 + 1.2 × 1) = 1.089231 → stored 109.
    func testAScoreWorkedByHand() throws {
        let docs = [RankedDocument(id: "a", fields: [("name", 3, "alpha")], stored: .obj([:])),
                    RankedDocument(id: "b", fields: [("name", 3, "beta")], stored: .obj([:]))]
        let p = try storedPostings(build(docs))
        XCTAssertEqual(p["alpha"], [0: 109])
        XCTAssertEqual(p["beta"], [1: 109])
        // A longer document scores lower for the same tf: "alpha" in "alpha gamma" (dl 6) and in "alpha" (dl 3).
        let longer = [RankedDocument(id: "a", fields: [("name", 3, "alpha gamma")], stored: .obj([:])),
                      RankedDocument(id: "b", fields: [("name", 3, "alpha")], stored: .obj([:])),
                      RankedDocument(id: "c", fields: [("name", 3, "beta")], stored: .obj([:]))]
        // N = 3, df(alpha) = 2: idf = ln(1 + 1.5/2.5) = ln 1.6 = 0.470004; avgdl = (6 + 3 + 3)/3 = 4.
        // a: norm = 1.2 × (0.25 + 0.75 × 6/4) = 1.65, 0.470004 × 6.6 / 4.65 = 0.667102 → 67
        // b: norm = 1.2 × (0.25 + 0.75 × 3/4) = 0.975, 0.470004 × 6.6 / 3.975 = 0.780383 → 78
        XCTAssertEqual(try storedPostings(build(longer))["alpha"], [0: 67, 1: 78])
    }

    /// Every (term, document) score the index stores equals the oracle's.
    func testEveryStoredScoreMatchesTheOracle() throws {
        let stored = try storedPostings(build())
        let expected = Self.oracle.postings
        XCTAssertEqual(Set(stored.keys), Set(expected.keys))
        for (term, list) in expected { XCTAssertEqual(stored[term], list, term) }
        // The corpus exercises what the formula is about: repeated terms, several fields, shared terms of every df.
        XCTAssertEqual(Self.oracle.tf[0]["drill"], 3 + 2)          // name once (3) + description twice (1 + 1)
        XCTAssertEqual(Self.oracle.tf[4]["garden"], 3 + 1.5 + 1)
        XCTAssertEqual(Self.oracle.df["drill"], 4)
        XCTAssertEqual(Self.oracle.df["propane"], 1)
    }

    /// The index states the documented settings.
    func testMetaStatesTheDocumentedSettings() throws {
        let meta = try JSONReader.parse(XCTUnwrap(try build()["search/meta.json"]))
        XCTAssertEqual(meta["ranking"]?["k1"]?.doubleValue, Self.k1)
        XCTAssertEqual(meta["ranking"]?["b"]?.doubleValue, Self.b)
        XCTAssertEqual(meta["ranking"]?["scoreScale"]?.doubleValue, Self.scale)
        XCTAssertEqual(meta["ranking"]?["fieldWeights"], .obj(["name": 3, "brand": 2, "category": 1.5, "description": 1]))
        XCTAssertEqual(meta["query"]?["prefixWeight"]?.doubleValue, Self.prefixWeight)
        XCTAssertEqual(meta["query"]?["typoWeight"]?.doubleValue, Self.typoWeight)
        XCTAssertEqual(meta["query"]?["typoMinimumLength"]?.intValue, 5)
        XCTAssertEqual(meta["query"]?["prefixExpansions"]?.intValue, 40)
        XCTAssertEqual(meta["documents"]?.intValue, Self.corpus.count)
    }

    func assertRanks(_ q: Query, _ text: String, complete: Bool, _ terms: [[(String, Double)]],
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try q.rank(text, complete: complete)
        let want = Self.oracle.rank(terms)
        XCTAssertFalse(want.isEmpty, text, file: file, line: line)
        XCTAssertEqual(got.map(\.doc), want.map(\.doc), "order of \(text)", file: file, line: line)
        for (g, w) in zip(got, want) { XCTAssertEqual(g.score, w.score, accuracy: 1e-9, "\(text): doc \(w.doc)", file: file, line: line) }
    }

    /// Orders and scores of queries: one term, two terms (with the share of terms matched), ties.
    func testQueryOrdersAndScoresMatchTheOracle() throws {
        let q = try query(build())
        try assertRanks(q, "drill", complete: true, [[("drill", 1)]])
        try assertRanks(q, "hammer drill", complete: true, [[("hammer", 1)], [("drill", 1)]])
        try assertRanks(q, "acme hose", complete: true, [[("acme", 1)], [("hose", 1)]])
        try assertRanks(q, "garden tool", complete: true, [[("garden", 1)], [("tool", 1)]])
        // "drill": the documents with the word in their name come first, the description-only one last.
        let drill = try q.rank("drill", complete: true).map(\.doc)
        XCTAssertEqual(Set(drill.prefix(3)), [0, 3, 5])
        XCTAssertEqual(drill.last, 2)
        // "hammer drill": only document 5 has both words, so it leads (score times 2/2, the others times 1/2).
        XCTAssertEqual(try q.rank("hammer drill", complete: true).first?.doc, 5)
    }

    /// Documents 1 and 6 are identical, so every query scores them alike; the earlier one comes first. The tie is
    /// real (same score), and the order is the documented one, not whatever a hash map gives.
    func testTiesGoToTheEarlierDocument() throws {
        let q = try query(build())
        for text in ["claw", "hammer", "claw hammer", "steel handle", "acme hammer"] {
            let r = try q.rank(text, complete: true)
            let one = try XCTUnwrap(r.firstIndex { $0.doc == 1 }, text), six = try XCTUnwrap(r.firstIndex { $0.doc == 6 }, text)
            XCTAssertEqual(r[one].score, r[six].score, text)
            XCTAssertEqual(six, one + 1, "\(text): \(r)")
        }
        // The same through the results page (the store is read for the ids).
        let ids = try q.search("claw", limit: 10, complete: true).results.compactMap { $0.stored["id"]?.stringValue }
        XCTAssertEqual(ids, ["d1", "d6"])
        // Reversed, the corpus puts document 6's twin first: the order follows the position, not the id.
        let reversed = Array(Self.documents().reversed())
        let rq = try query(build(reversed))
        XCTAssertEqual(try rq.search("claw", limit: 10, complete: true).results.compactMap { $0.stored["id"]?.stringValue }, ["d6", "d1"])
    }

    /// The last term while typing matches the terms it is a prefix of, at 0.9 of their score.
    func testPrefixWeight() throws {
        let q = try query(build())
        try assertRanks(q, "hamm", complete: false, [[("hammer", Self.prefixWeight)]])
        try assertRanks(q, "boltz dri", complete: false, [[("boltz", 1)], [("drill", Self.prefixWeight), ("driver", Self.prefixWeight)]])
        // A complete word matches exactly, and its extensions only at 0.9: "garden" is no prefix of another term.
        try assertRanks(q, "hose", complete: false, [[("hose", 1)]])
        XCTAssertEqual(try q.rank("hamm", complete: true).count, 0)
    }

    /// A word of 5+ characters that is not in the index matches terms one edit away at 0.7; of several candidates
    /// only those at least half as frequent as the most frequent one count ("brill": "drill" in 4 documents, "grill"
    /// in 1: only "drill").
    func testTypoWeightAndCandidates() throws {
        let q = try query(build())
        try assertRanks(q, "hammr", complete: true, [[("hammer", Self.typoWeight)]])     // deletion
        try assertRanks(q, "hmamer", complete: true, [[("hammer", Self.typoWeight)]])    // swap of neighbours
        try assertRanks(q, "brill", complete: true, [[("drill", Self.typoWeight)]])      // substitution; grill too rare
        try assertRanks(q, "griill", complete: true, [[("grill", Self.typoWeight)]])     // insertion
        try assertRanks(q, "acme hammr", complete: true, [[("acme", 1)], [("hammer", Self.typoWeight)]])
        XCTAssertEqual(try q.rank("hamer", complete: true).map(\.doc), Self.oracle.rank([[("hammer", Self.typoWeight)]]).map(\.doc))
        // Four characters are too short for a typo; two edits are too many.
        XCTAssertEqual(try q.rank("hose", complete: true).count, 1)
        XCTAssertEqual(try q.rank("hoze", complete: true).count, 0)
        XCTAssertEqual(try q.rank("hamnnr", complete: true).count, 0)
    }

    /// The same index and orders whatever the shard sizes.
    func testShardingChangesNoScore() throws {
        var s = RankedIndexBuilder.Settings()
        s.termShardBytes = 40
        s.storeShardSize = 2
        let small = try build(settings: s)
        XCTAssertGreaterThan(small.keys.filter { $0.hasPrefix("search/terms/") }.count, 3)
        XCTAssertEqual(try storedPostings(small), Self.oracle.postings)
        let q = try query(small)
        try assertRanks(q, "hammer drill", complete: true, [[("hammer", 1)], [("drill", 1)]])
    }
}
