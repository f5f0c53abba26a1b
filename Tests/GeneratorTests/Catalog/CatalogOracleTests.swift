import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

/// Catalog orders against values computed outside the code (Python, from the product lines): the Bayesian average
/// (m·C + n·R) / (m + n) of the Outputs article (m = catalog.ratingPrior, 20 by default; C the mean rating of products
/// with reviews, to the hundredth; n the review count) orders category pages, ancestors' pages and the offline catalog, ties by id;
/// SUMMARY.json's top brands by product count, ties by name, case variants merged under the most frequent spelling.
final class CatalogOracleTests: XCTestCase {
    static let categories = #"{"categories":[{"id":"tools","name":"Tools","parent":null},{"id":"tools/drills","name":"Drills","parent":"tools"},{"id":"garden","name":"Garden","parent":null}]}"#
    /// id, brand, rating average, review count, category
    static let products: [(String, String, Double, Int, String)] = [
        ("p1", "Acme", 5.0, 1, "tools/drills"), ("p2", "Boltz", 4.5, 100, "tools/drills"), ("p3", "Crank", 4.0, 10, "tools/drills"),
        ("p4", "Acme", 4.9, 0, "tools/drills"),   // an average without reviews: not rated (n = 0, not part of C)
        ("p5", "Boltz", 3.0, 50, "tools/drills"), ("p6", "Crank", 4.8, 5, "tools/drills"),
        ("p7", "ACME", 4.5, 100, "tools/drills"), // the same score as p2: the id breaks the tie
        ("p8", "Dyna", 3.5, 2, "garden"),
    ]

    static var lines: [String] {
        products.map { p in
            #"{"id":"\#(p.0)","name":"Tool \#(p.0)","description":"d","brand":"\#(p.1)","price":10,"currency":"USD","inStock":true,"imageUrl":"https://x.example/i.jpg","rating":{"average":\#(p.2),"count":\#(p.3)},"category":"\#(p.4)"}"#
        }
    }

    static var tree: [String: Data] = {
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": lines.joined(separator: "\n") + "\n",
                                                  "catalog/categories.json": categories])
        let out = TestSupport.tempDir("catalog-oracle").appendingPathComponent("dist")
        _ = try! Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return TestSupport.snapshot(out)
    }()

    func json(_ path: String) throws -> JSON { try JSONReader.parse(XCTUnwrap(Self.tree[path], path)) }

    /// Python: product ids per category, best Bayesian average first (ties by id).
    func pythonOrder() throws -> [String: [String]] {
        let script = #"""
        import json, math, sys
        m = 20.0
        rows = [json.loads(l) for l in sys.stdin if l.strip()]
        rated = [r["rating"]["average"] for r in rows if r["rating"]["count"] > 0]
        c = math.floor(sum(rated) / len(rated) * 100 + 0.5) / 100
        def score(r):
            n = r["rating"]["count"]
            return (m * c + n * r["rating"]["average"]) / (m + n)
        out = {}
        for cat in ["tools", "tools/drills", "garden"]:
            members = [r for r in rows if r["category"] == cat or r["category"].startswith(cat + "/")]
            out[cat] = [r["id"] for r in sorted(members, key=lambda r: (-score(r), r["id"]))]
        print(json.dumps(out))
        """#
        try Tool.require(.python3)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script]
        let inPipe = Pipe(), outPipe = Pipe()
        p.standardInput = inPipe; p.standardOutput = outPipe; p.standardError = outPipe
        try p.run()
        inPipe.fileHandleForWriting.write(Data((Self.lines.joined(separator: "\n") + "\n").utf8))
        try inPipe.fileHandleForWriting.close()
        let data = outPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, String(decoding: data, as: UTF8.self))
        let j = try JSONReader.parse(data)
        var out: [String: [String]] = [:]
        for m in j.objectValue?.members ?? [] { out[m.key] = m.value.arrayValue?.compactMap(\.stringValue) }
        return out
    }

    func testCategoryPagesAndOfflineCatalogFollowTheBayesianAverage() throws {
        let expected = try pythonOrder()
        // By hand: C = (5 + 4.5 + 4 + 3 + 4.8 + 4.5 + 3.5) / 7 = 4.1857 → 4.19; p2 = p7 = (20C + 450)/120 = 4.4483,
        // p6 = (20C + 24)/25 = 4.312, p1 = (20C + 5)/21 = 4.2286, p4 = C, p3 = (20C + 40)/30 = 4.1267, p5 = (20C + 150)/70 = 3.34.
        XCTAssertEqual(expected["tools/drills"], ["p2", "p7", "p6", "p1", "p4", "p3", "p5"])
        for (category, path) in [("tools/drills", "categories/tools/drills.json"), ("tools", "categories/tools.json"), ("garden", "categories/garden.json")] {
            let ids = try json(path)["products"]?.arrayValue?.compactMap { $0["product_id"]?.stringValue }
            XCTAssertEqual(ids, expected[category], path)
        }
        let offline = try json("offline-catalog.json")
        for c in offline["categories"]?.arrayValue ?? [] {
            let id = c["id"]!.stringValue!
            XCTAssertEqual(c["productIds"]?.arrayValue?.compactMap(\.stringValue), expected[id].map { Array($0.prefix(10)) }, id)
        }
        XCTAssertEqual(offline["categories"]?.arrayValue?.count, 3)
    }

    /// A rated product added to one department leaves another department's page as it was: the prior mean C moves
    /// from 3.6030 to 3.6020, across 3.6025 where d1 (4.0 from 20 reviews) and d2 (4.19875 from 10) swap places
    /// ((C + 4)/2 = (2C + 4.19875)/3), but both means are 3.60 to the hundredth, which orders d1 first in both builds.
    func testAProductAddedElsewhereLeavesAPagesOrderAsItWas() throws {
        func line(_ id: String, _ average: Double, _ count: Int, _ category: String) -> String {
            #"{"id":"\#(id)","name":"Tool \#(id)","description":"d","brand":"B","price":10,"currency":"USD","inStock":true,"imageUrl":"https://x.example/i.jpg","rating":{"average":\#(average),"count":\#(count)},"category":"\#(category)"}"#
        }
        // C = (4 + 4.19875 + 8 × 3.47890625) / 10 = 3.6030; with g9 (3.592): 3.6020.
        let before = [line("d1", 4.0, 20, "tools/drills"), line("d2", 4.19875, 10, "tools/drills")]
            + (1...8).map { line("g\($0)", 3.47890625, 3, "garden") }
        let work = TestSupport.tempDir("prior"), out = work.appendingPathComponent("dist")
        func build(_ lines: [String], day: Int) throws -> [String: Data] {
            let input = TestSupport.makeInput(files: ["catalog/products.jsonl": lines.joined(separator: "\n") + "\n",
                                                      "catalog/categories.json": Self.categories])
            _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000 + day * 86_400))
            return TestSupport.snapshot(out)
        }
        let first = try build(before, day: 0)
        let second = try build(before + [line("g9", 3.592, 4, "garden")], day: 1)
        let page = "categories/tools/drills.json"
        let ids = try JSONReader.parse(XCTUnwrap(first[page]))["products"]?.arrayValue?.compactMap { $0["product_id"]?.stringValue }
        XCTAssertEqual(ids, ["d1", "d2"])
        XCTAssertEqual(first[page], second[page], "the drills page is the same bytes")
        XCTAssertNotEqual(first["categories/garden.json"], second["categories/garden.json"])
        let delta = try JSONReader.parse(XCTUnwrap(second["releases/2/delta-from-1.json"]))
        XCTAssertFalse(delta["changed"]?.arrayValue?.contains { $0["path"]?.stringValue == page } ?? true)
    }

    func testTopBrands() throws {
        let top = try json("SUMMARY.json")["topBrands"]?.arrayValue ?? []
        // acme 3 (Acme twice, ACME once: shown as Acme), then boltz and crank with 2 (by name), dyna 1.
        XCTAssertEqual(top.compactMap { $0["name"]?.stringValue }, ["Acme", "Boltz", "Crank", "Dyna"])
        XCTAssertEqual(top.compactMap { $0["productCount"]?.intValue }, [3, 2, 2, 1])
        XCTAssertEqual(top.first?["variants"]?.arrayValue?.compactMap(\.stringValue), ["ACME", "Acme"])
    }
}
