import XCTest
import Foundation
@testable import Generator
import Indexer
import Schemas
import TestTools

/// Filters, facet counts, sorts and every-word totals of the catalog's ranked index on the real corpus, against an
/// independent recount over the input files (`Tests/Oracles/search_recount.py`: Python, no code shared with the
/// generator).
final class SearchRecountTests: XCTestCase {
    static let tree: Result<URL, Error> = Result {
        let out = TestSupport.tempDir("search-recount").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: RealCorpusTests.realInput(), output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }

    struct Request { var words: [String]; var filters: [String: [String]]; var sort = "relevance" }

    /// Each request answered by the reference client (one client per request, parsed files shared) and by the recount.
    func compare(_ requests: [Request], file: StaticString = #filePath, line: UInt = #line) throws {
        try Tool.require(.python3)
        let dist = try Self.tree.get()
        let reqFile = TestSupport.tempDir("recount-requests").appendingPathComponent("requests.json")
        let list: [JSON] = requests.map { r in
            .obj(["words": .strings(r.words), "filters": .object(JSONObject(r.filters.map { ($0.key, JSON.strings($0.value)) })),
                  "sort": .string(r.sort)])
        }
        try JSONWriter().data(.array(list)).write(to: reqFile)
        let oracle = TestSupport.repoRoot.appendingPathComponent("Tests/Oracles/search_recount.py")
        let run = try TestSupport.run(["python3", oracle.path, TestSupport.testData.appendingPathComponent("catalog").path, reqFile.path])
        XCTAssertEqual(run.status, 0, run.output, file: file, line: line)
        let want = try JSONReader.parse(run.output).arrayValue ?? []
        XCTAssertEqual(want.count, requests.count, file: file, line: line)
        let tree = try TreeReader(root: dist), shared = Query.Files()
        for (r, w) in zip(requests, want) {
            let q = try Query(metaPath: "search/meta.json", shared: shared, load: { try tree.read($0) })
            let got = try q.search(Query.Request(r.words.joined(separator: " "), filters: r.filters, sort: r.sort, facets: true, complete: true))
            let what = "\(r.words) \(r.filters.sorted { $0.key < $1.key }) \(r.sort)"
            XCTAssertEqual(got.total, w["total"]?.intValue, "total of \(what)", file: file, line: line)
            XCTAssertFalse(got.partial, what, file: file, line: line)
            // Without facet counts a filter with words goes through the facet columns: the same answer.
            let plain = try Query(metaPath: "search/meta.json", shared: shared, load: { try tree.read($0) })
                .search(Query.Request(r.words.joined(separator: " "), filters: r.filters, sort: r.sort, complete: true))
            XCTAssertEqual(plain.total, w["total"]?.intValue, "total of \(what) without facet counts", file: file, line: line)
            XCTAssertEqual(plain.results.map(\.document), got.results.map(\.document), "page of \(what) without facet counts", file: file, line: line)
            for f in got.facets {
                let mine = Dictionary(uniqueKeysWithValues: f.values.map { ($0.value, $0.count) })
                let theirs = (w["facets"]?[f.field]?.objectValue?.members ?? []).reduce(into: [String: Int]()) { $0[$1.key] = $1.value.intValue }
                XCTAssertEqual(mine, theirs, "\(f.field) counts of \(what)", file: file, line: line)
            }
            if r.sort != "relevance" {
                let field = r.sort.hasPrefix("price") ? "price" : "rating"
                let keys = got.results.compactMap { $0.stored[field]?.doubleValue }
                let expected = (w["keys"]?.arrayValue ?? []).compactMap(\.doubleValue)
                // The stored rating is the input's average as written; the page holds the first ten keys in order.
                XCTAssertEqual(keys, expected, "\(r.sort) order of \(what)", file: file, line: line)
            }
        }
    }

    static func products() throws -> [JSON] {
        try String(contentsOf: TestSupport.testData.appendingPathComponent("catalog/products.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONReader.parse(Array($0.utf8)) }.filter { !($0["price"]?.isNull ?? true) }
    }

    func testEveryBrandBrowseAndItsFacetCounts() throws {
        let brands = Set(try Self.products().map { $0["brand"]?.stringValue ?? "Unbranded" })
        XCTAssertGreaterThan(brands.count, 600)
        try compare(brands.sorted().map { Request(words: [], filters: ["brand": [$0]]) })
    }

    func testEveryCategoryBrowseAndItsFacetCounts() throws {
        let categories = Set(try Self.products().map { $0["category"]?.stringValue ?? "uncategorized" })
        XCTAssertGreaterThan(categories.count, 70)
        try compare(categories.sorted().map { Request(words: [], filters: ["category": [$0]]) })
    }

    /// Random words and filter combinations with a fixed seed: brand, category, price spans, rating, stock, two
    /// values of one field, and every sort.
    func testRandomFilterCombinationsAndSorts() throws {
        let products = try Self.products()
        var rng = TestSupport.Random(state: 43)
        let words = ["drill", "cordless", "saw", "steel", "kit", "battery", "white", "storage", "light", "tree", "table", "hammer"]
        let spans = ["50..200", "..25", "100..", "25..50", "200..1000", "..100"]
        let sorts = ["relevance", "price", "price-desc", "rating"]
        var requests: [Request] = []
        while requests.count < 24 {
            let p = products[Int(rng.next() % UInt64(products.count))]
            var filters: [String: [String]] = [:]
            switch requests.count % 6 {
            case 0: filters["brand"] = [p["brand"]?.stringValue ?? "Unbranded"]
            case 1: filters["category"] = [p["category"]?.stringValue ?? "uncategorized"]
            case 2: filters["price"] = [spans[Int(rng.next() % 6)]]
            case 3: filters["rating"] = ["\(1 + rng.next() % 4)"]; filters["price"] = [spans[Int(rng.next() % 6)]]
            case 4: filters["brand"] = [p["brand"]?.stringValue ?? "Unbranded", "RYOBI"]; filters["inStock"] = ["true"]
            default: filters["category"] = [p["category"]?.stringValue ?? "uncategorized"]; filters["rating"] = ["4"]
            }
            let w = rng.next() % 3 == 0 ? [] : [words[Int(rng.next() % UInt64(words.count))]]
            requests.append(Request(words: w, filters: filters, sort: sorts[requests.count % 4]))
        }
        try compare(requests)
    }

    /// `total` is the number of products holding every word, for 30 queries of one to three words.
    func testTotalsCountProductsWithEveryWord() throws {
        let queries = ["drill", "cordless drill", "cordless hammer drill", "dewalt", "dewalt drill", "milwaukee m18", "ryobi drill",
                       "washer", "front load washer", "refrigerator", "stainless steel refrigerator", "french door refrigerator",
                       "artificial tree", "christmas tree", "storage", "garage storage", "shelving unit", "table", "dining table",
                       "lamp", "floor lamp", "air compressor", "pancake compressor", "nailer", "framing nailer", "saw",
                       "circular saw", "miter saw", "battery", "lithium battery"]
        XCTAssertEqual(queries.count, 30)
        try compare(queries.map { Request(words: $0.split(separator: " ").map(String.init), filters: [:]) })
    }

    /// A price or rating filter with words reads the codes of the matched documents from the facet columns of the
    /// rarest word's terms, not the field's value lists; asked for facet counts, it reads the value lists (the counts
    /// need them). Both give the recount's total.
    func testAFilterWithWordsReadsColumnsNotValueLists() throws {
        let dist = try Self.tree.get()
        let tree = try TreeReader(root: dist)
        let meta = try JSONReader.parse(tree.read("search/meta.json"))
        let price = try XCTUnwrap(meta["facets"]?.arrayValue?.first { $0["field"]?.stringValue == "price" })
        XCTAssertNotNil(price["columns"]?["entries"], "the price field has a column tree")
        let priceShards = Set((price["shards"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue })
        for facets in [false, true] {
            let q = try Query(metaPath: "search/meta.json", load: { try tree.read($0) })
            let r = try q.search(Query.Request("cordless drill", filters: ["price": ["50..200"]], facets: facets, complete: true))
            let paths = q.fetched.map(\.path)
            XCTAssertEqual(paths.contains { $0.hasPrefix("search/columns/") }, !facets, "columns read \(facets ? "with" : "without") facet counts")
            XCTAssertEqual(paths.contains { priceShards.contains($0) }, facets, "price value lists read \(facets ? "with" : "without") facet counts")
            XCTAssertGreaterThan(r.total, 10)
        }
        try compare([Request(words: ["cordless", "drill"], filters: ["price": ["50..200"]]),
                     Request(words: ["miter", "saw"], filters: ["rating": ["4"]]),
                     Request(words: ["artificial", "plant"], filters: ["price": ["..50"]])])
    }
}
