import XCTest
import Foundation
@testable import Generator
import Indexer
import Schemas

/// The catalog's ranked index (`search/`), built from a small catalog, against an oracle written here from the Search
/// article (Indexer.docc): BM25F with k1 1.2, b 0.75, field weights name 3, brand 2, category 1.5, description 1, scores × 100
/// moved to the nearest step of the grid 1.06^k and rounded (format 3). Words are lowercase-able plain words without
/// plurals or stop words, so analysis is lowercasing and splitting on spaces.
final class RankedSearchOracleTests: XCTestCase {
    static let k1 = 1.2, b = 0.75
    static let weights = (name: 3.0, brand: 2.0, category: 1.5, description: 1.0)

    static let categories = #"{"categories":[{"id":"power","name":"Power Tool","parent":null},{"id":"power/drivers","name":"Drill Driver","parent":"power"},{"id":"hand","name":"Hand Tool","parent":null},{"id":"garden","name":"Garden","parent":null}]}"#
    /// id, name, brand, category id, category name, description
    static let products: [(String, String, String, String, String, String)] = [
        ("p1", "Cordless Drill", "Acme", "power/drivers", "Drill Driver", "drill wood metal drill"),
        ("p2", "Claw Hammer", "Acme", "hand", "Hand Tool", "steel hammer handle"),
        ("p3", "Impact Driver", "Boltz", "power/drivers", "Drill Driver", "driver bit"),
        ("p4", "Garden Hose", "Greenly", "garden", "Garden", "garden hose reel long rubber hose"),
        ("p5", "Hammer Drill", "Boltz", "power/drivers", "Drill Driver", "hammer drill masonry concrete"),
        ("p6", "Bench Grinder", "Acme", "power", "Power Tool", "grinder wheel"),
    ]

    static var tree: [String: Data] = {
        let lines = products.map { p in
            #"{"id":"\#(p.0)","name":"\#(p.1)","description":"\#(p.5)","brand":"\#(p.2)","price":10,"currency":"USD","inStock":true,"imageUrl":"https://x.example/i.jpg","rating":{"average":4,"count":1},"category":"\#(p.3)"}"#
        }
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": lines.joined(separator: "\n") + "\n",
                                                  "catalog/categories.json": categories])
        let out = TestSupport.tempDir("ranked-oracle").appendingPathComponent("dist")
        _ = try! Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return TestSupport.snapshot(out)
    }()

    func json(_ path: String) throws -> JSON { try JSONReader.parse(XCTUnwrap(Self.tree[path], path)) }

    /// The oracle: term → product id → stored score.
    static func oracle() -> [String: [String: Int]] {
        var tf: [String: [String: Double]] = [:], dl: [String: Double] = [:], df: [String: Int] = [:]
        for p in products {
            var t: [String: Double] = [:], len = 0.0
            for (w, text) in [(weights.name, p.1), (weights.brand, p.2), (weights.category, p.4), (weights.description, p.5)] {
                for word in text.lowercased().split(separator: " ") { t[String(word), default: 0] += w; len += w }
            }
            tf[p.0] = t; dl[p.0] = len
            for word in t.keys { df[word, default: 0] += 1 }
        }
        let n = Double(products.count), avgdl = dl.values.reduce(0, +) / n
        var out: [String: [String: Int]] = [:]
        for (id, t) in tf {
            for (word, f) in t {
                let d = Double(df[word]!)
                let idf = Foundation.log(1 + (n - d + 0.5) / (d + 0.5))
                let score = idf * f * (k1 + 1) / (f + k1 * (1 - b + b * dl[id]! / avgdl))
                out[word, default: [:]][id] = RankedIndexReading.quantised(score)
            }
        }
        return out
    }

    func testStoredScoresMatchTheOracle() throws {
        let meta = try json("search/meta.json")
        // Position → product id, from the result store (down its directory tree).
        let ids = try RankedIndexReading.storedDocuments(meta, folder: "search", file: json).map { $0["id"]?.stringValue }
        XCTAssertEqual(ids.count, Self.products.count)
        XCTAssertEqual(Set(ids.compactMap { $0 }), Set(Self.products.map(\.0)))
        let stored = try RankedIndexReading.postings(meta, file: json).mapValues { list in
            Dictionary(uniqueKeysWithValues: list.map { (ids[$0.key]!, $0.value) })
        }
        let expected = Self.oracle()
        XCTAssertEqual(Set(stored.keys), Set(expected.keys))
        for (term, list) in expected { XCTAssertEqual(stored[term], list, term) }
        XCTAssertEqual(meta["ranking"]?["fieldWeights"], .obj(["name": 3, "brand": 2, "category": 1.5, "description": 1]))
        XCTAssertEqual(meta["ranking"]?["k1"]?.doubleValue, Self.k1)
        XCTAssertEqual(meta["ranking"]?["b"]?.doubleValue, Self.b)
    }

    /// The Search article's claim, on this catalog: a word in the name outranks the same word in the description only.
    func testNameOutranksDescription() throws {
        let q = try Query(metaPath: "search/meta.json") { p in [UInt8](Self.tree[p] ?? Data()) }
        let hits = try q.search("grinder", limit: 10, complete: true).results.compactMap { $0.stored["id"]?.stringValue }
        XCTAssertEqual(hits, ["p6"])
        let hammer = try q.search("hammer", limit: 10, complete: true).results.compactMap { $0.stored["id"]?.stringValue }
        XCTAssertEqual(Set(hammer), ["p2", "p5"])
        let expected = Self.oracle()["hammer"]!
        XCTAssertEqual(hammer.first, expected.max { $0.value < $1.value }!.key)
    }
}
