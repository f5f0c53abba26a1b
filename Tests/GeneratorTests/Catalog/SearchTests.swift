import XCTest
import Foundation
@testable import Generator
import Indexer
import Schemas

/// Search on the real corpus (Tests/Data/catalog), through the files a client downloads.
final class SearchTests: XCTestCase {
    static var tree: URL = {
        let out = TestSupport.tempDir("search-real").appendingPathComponent("dist")
        _ = try! Build.run(BuildOptions(input: RealCorpusTests.realInput(), output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }()

    func ranked(_ q: String, limit: Int = 10) throws -> [TreeSearch.Hit] {
        try TreeSearch.run(dist: Self.tree, query: q, index: .ranked, limit: limit).hits
    }

    func testDewaltDrillRanksDewaltDrillsFirst() throws {
        let hits = try ranked("dewalt drill")
        XCTAssertEqual(hits.count, 10)
        for h in hits {
            XCTAssertEqual(h.brand, "DEWALT", h.name)
            XCTAssertTrue(h.name.lowercased().contains("drill"), h.name)
        }
    }

    func testTypoAndPrefixFindDrillsAndDewalt() throws {
        let typo = try ranked("drils")
        XCTAssertEqual(typo.count, 10)
        for h in typo { XCTAssertTrue(h.name.lowercased().contains("drill"), h.name) }
        // "dewa": the products of DEWALT, or with DeWalt in their name ("Pressure Washer with DeWalt 210 Engine": its
        // score is on the grid step of DEWALT's own products, and it comes before some of them in the search order),
        // in the order of "dewalt" itself.
        let prefix = try ranked("dewa")
        XCTAssertEqual(prefix.count, 10)
        for h in prefix { XCTAssertTrue(h.brand == "DEWALT" || h.name.lowercased().contains("dewalt"), "\(h.name) — \(h.brand)") }
        XCTAssertGreaterThanOrEqual(prefix.filter { $0.brand == "DEWALT" }.count, 8)
        XCTAssertEqual(prefix.map(\.id), try ranked("dewalt").map(\.id))
        // "dewa dri" while typing: DEWALT drills.
        for h in try ranked("dewalt dri") { XCTAssertEqual(h.brand, "DEWALT", h.name) }
    }

    func testCaseDoesNotMatter() throws {
        for kind in TreeSearch.IndexKind.allCases {
            let upper = try TreeSearch.run(dist: Self.tree, query: "RYOBI", index: kind, limit: 1000)
            let lower = try TreeSearch.run(dist: Self.tree, query: "ryobi", index: kind, limit: 1000)
            XCTAssertGreaterThan(upper.total, 100, kind.rawValue)
            XCTAssertEqual(upper.hits.map(\.id), lower.hits.map(\.id), kind.rawValue)
        }
    }

    /// The compact index's size target on the real corpus: gzip at most 40 % of the full index's gzip.
    func testCompactIndexIsAtMostFortyPercentOfTheFullOne() throws {
        let full = try [UInt8](Data(contentsOf: Self.tree.appendingPathComponent("search-index.json")))
        let compact = try [UInt8](Data(contentsOf: Self.tree.appendingPathComponent("search-index-compact.json")))
        let ratio = Double(Gzip.compressedSize(compact)) / Double(Gzip.compressedSize(full))
        print("compact / full gzip on the real corpus: \(String(format: "%.2f", ratio * 100)) %")
        XCTAssertLessThanOrEqual(ratio, 0.40)
    }

    /// Every priced product is found by its exact name, in all three indexes.
    func testEveryProductIsFoundByItsExactName() throws {
        let full = try JSONReader.parse(Data(contentsOf: Self.tree.appendingPathComponent("search-index.json")))
        let compact = try JSONReader.parse(Data(contentsOf: Self.tree.appendingPathComponent("search-index-compact.json")))
        let products = full["products"]?.arrayValue ?? []
        XCTAssertEqual(products.count, 4603 - 25)
        let q = try Query(metaPath: "search/meta.json") { [tree = Self.tree] p in [UInt8](try Data(contentsOf: tree.appendingPathComponent(p))) }
        // Position of each product in the ranked index, from the result store (down its directory tree).
        let meta = try JSONReader.parse(Data(contentsOf: Self.tree.appendingPathComponent("search/meta.json")))
        let stored = try RankedIndexReading.storedDocuments(meta, folder: "search") { [tree = Self.tree] p in
            try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent(p)))
        }
        var position: [String: Int] = [:]
        for (i, d) in stored.enumerated() { position[d["id"]!.stringValue!] = i }
        XCTAssertEqual(position.count, products.count)
        let fullClient = SeedIndex.Client(full), compactClient = SeedIndex.Client(compact)
        // Two workers, each with its own ranked client (a client caches the shards it read).
        let clients = [q, try Query(metaPath: "search/meta.json") { [tree = Self.tree] p in [UInt8](try Data(contentsOf: tree.appendingPathComponent(p))) }]
        let found = TestSupport.concurrently(products.count, workers: clients.count) { i in
            let id = products[i]["id"]!.stringValue!, name = products[i]["name"]!.stringValue!
            // Ranked: the product is among the results for its own name (all of them, not just a page: every match
            // `rank` sorts). Item i runs on worker i % 2, so each worker keeps to its own client.
            return try clients[i % clients.count].rank(name, complete: true).contains { $0.doc == position[id] }
        }
        var missing: [String: [String]] = [:]
        for (i, p) in products.enumerated() {
            let id = p["id"]!.stringValue!, name = p["name"]!.stringValue!
            if !fullClient.finds(id, name) { missing["full", default: []].append(id) }
            if !compactClient.finds(id, name) { missing["compact", default: []].append(id) }
            if try !found[i].get() { missing["ranked", default: []].append(id) }
        }
        XCTAssertEqual(missing.mapValues(\.count), [:], "\(missing.mapValues { $0.prefix(5) })")
    }

    func testSearchFilesAreIdenticalWhateverTheThreadCount() throws {
        let other = TestSupport.tempDir("search-real-1t").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: RealCorpusTests.realInput(), output: other, threads: 1, epochSeconds: 1_700_000_000))
        let a = TestSupport.snapshot(Self.tree).filter { $0.key.hasPrefix("search") }
        let b = TestSupport.snapshot(other).filter { $0.key.hasPrefix("search") }
        XCTAssertGreaterThan(a.count, 10)
        XCTAssertEqual(a, b)
    }

    /// The real-corpus tree passes check-tree.py (python-jsonschema) and `generator validate`.
    func testRealTreePassesBothJudges() throws {
        let judged = try TestSupport.judges(Self.tree)
        let python = try judged.python.get(), ours = try judged.ours.get()
        XCTAssertEqual(python.status, 0, String(python.output.suffix(2000)))
        XCTAssertTrue(python.output.hasSuffix(" 0 failed\n"), String(python.output.suffix(300)))
        XCTAssertEqual(ours.status, 0, String(ours.output.suffix(2000)))
    }

    func testSearchCommandReportsDownloads() throws {
        let r = try TestSupport.runCLI(["search", Self.tree.path, "dewalt drill", "--limit", "3"])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("search/meta.json"), r.output)
        XCTAssertTrue(r.output.contains("downloaded:"), r.output)
        let bad = try TestSupport.runCLI(["search", "/nonexistent", "x"])
        XCTAssertEqual(bad.status, 2, bad.output)
    }
}
