import XCTest
import Foundation
@testable import Generator
import Schemas
import Indexer
import TestTools

/// Collections: typed values, errors naming file/line/field/type, pagination edges, and a real dataset.
final class CollectionsTests: XCTestCase {
    /// An input folder with only collections: the given declaration and data files.
    func input(_ files: [String: String]) -> URL {
        TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: files)
    }

    func build(_ input: URL) throws -> (URL, [String: Data]) {
        let out = TestSupport.tempDir("coll").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return (out, TestSupport.snapshot(out))
    }

    func json(_ tree: [String: Data], _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSON {
        try JSONReader.parse(XCTUnwrap(tree[path], "missing \(path)", file: file, line: line))
    }

    static let priceDecl = #"""
    {"sources": ["collections/data/p.csv"], "id": "sku",
     "fields": {"sku": {"type": "string"}, "price": {"type": "decimal"}, "sold_at": {"type": "date-time", "timeZone": "America/New_York", "required": false}},
     "list": {"pageSize": 3}}
    """#

    func testDecimalsAreExactAndWrittenFromTheirText() throws {
        // 0.1 + 0.2 + 0.3 + 499000.10 + 1e-2 as binary doubles is 499000.70999999996; the exact sum is 499000.71.
        let doubleSum = [0.1, 0.2, 0.3, 499000.10, 0.01].reduce(0, +)
        XCTAssertNotEqual(doubleSum, 499000.71)
        let csv = "sku,price\na,0.10\nb,0.2\nc,0.30\nd,499000.10\ne,0.01\n"
        let (_, tree) = try build(input(["collections/p.json": Self.priceDecl, "collections/data/p.csv": csv]))
        XCTAssertEqual(String(decoding: tree["collections/p/items/d.json"]!, as: UTF8.self), #"{"sku":"d","price":499000.1}"#)
        XCTAssertEqual(String(decoding: tree["collections/p/items/a.json"]!, as: UTF8.self), #"{"sku":"a","price":0.1}"#)
        let stats = try json(tree, "collections/p/index.json")["stats"]?["price"]
        XCTAssertEqual(stats?["sum"]?.numberValue?.description, "499000.71")
        XCTAssertEqual(stats?["mean"]?.numberValue?.description, "99800.142")
        XCTAssertEqual(stats?["min"]?.numberValue?.description, "0.01")
    }

    func testThreeDateTimeFormatsBecomeUTC() throws {
        let csv = """
        sku,price,sold_at
        frac,1,2025-12-24T12:30:00.000Z
        offset,1,2025-12-24T12:30:00+00:00
        west,1,2025-12-24T07:30:00-05:00
        mysql-winter,1,2025-12-24 12:30:00
        mysql-summer,1,2025-07-04 12:30:00
        millis,1,2025-12-24T12:30:00.250+01:00

        """
        let (_, tree) = try build(input(["collections/p.json": Self.priceDecl, "collections/data/p.csv": csv]))
        func soldAt(_ id: String) throws -> String? { try json(tree, "collections/p/items/\(id).json")["sold_at"]?.stringValue }
        XCTAssertEqual(try soldAt("frac"), "2025-12-24T12:30:00Z")
        XCTAssertEqual(try soldAt("offset"), "2025-12-24T12:30:00Z")
        XCTAssertEqual(try soldAt("west"), "2025-12-24T12:30:00Z")
        XCTAssertEqual(try soldAt("mysql-winter"), "2025-12-24T17:30:00Z")   // EST, UTC−5
        XCTAssertEqual(try soldAt("mysql-summer"), "2025-07-04T16:30:00Z")   // EDT, UTC−4
        XCTAssertEqual(try soldAt("millis"), "2025-12-24T11:30:00.25Z")
    }

    func testPaginationEdges() throws {
        func pages(_ n: Int) throws -> [JSON] {
            let csv = "sku,price\n" + (0..<n).map { "s\($0),\($0)\n" }.joined()
            let (_, tree) = try build(input(["collections/p.json": Self.priceDecl, "collections/data/p.csv": csv]))
            let files = tree.keys.filter { $0.hasPrefix("collections/p/page-") }.sorted()
            return try files.map { try json(tree, $0) }
        }
        // No items: one empty page, so an app can always open page 1.
        let empty = try pages(0)
        XCTAssertEqual(empty.count, 1)
        XCTAssertEqual(empty[0]["items"]?.arrayValue?.count, 0)
        XCTAssertEqual(empty[0]["total"], 0)
        XCTAssertEqual(empty[0]["total_pages"], 1)
        // Exactly one full page.
        let one = try pages(3)
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(one[0]["items"]?.arrayValue?.count, 3)
        XCTAssertEqual(one[0]["total_pages"], 1)
        // A last partial page.
        let partial = try pages(7)
        XCTAssertEqual(partial.count, 3)
        XCTAssertEqual(partial.map { $0["items"]?.arrayValue?.count }, [3, 3, 1])
        XCTAssertEqual(partial[2]["page"], 3)
        XCTAssertEqual(partial[2]["total"], 7)
        XCTAssertEqual(partial[2]["per_page"], 3)
        // Sorted by id (no sort declared); the order does not depend on input order.
        XCTAssertEqual(partial[0]["items"]?[0]?["sku"], "s0")
    }

    func testNullVersusMissingAsDeclared() throws {
        let decl = #"""
        {"sources": ["collections/data/s.jsonl"], "id": "id",
         "fields": {"id": {"type": "integer"}, "grade": {"type": "string", "nullable": true}, "note": {"type": "string", "required": false}}}
        """#
        let data = #"{"id": 1, "grade": null}"# + "\n" + #"{"id": 2, "grade": "A", "note": "x"}"# + "\n"
        let (_, tree) = try build(input(["collections/s.json": decl, "collections/data/s.jsonl": data]))
        XCTAssertEqual(String(decoding: tree["collections/s/items/1.json"]!, as: UTF8.self), #"{"id":1,"grade":null}"#)
        XCTAssertEqual(String(decoding: tree["collections/s/items/2.json"]!, as: UTF8.self), #"{"id":2,"grade":"A","note":"x"}"#)
    }

    /// Bad input fails through the CLI with file, line, field and expected type, and leaves the previous tree as it was.
    func assertFails(_ files: [String: String], mentions expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let good = input(["collections/p.json": Self.priceDecl, "collections/data/p.csv": "sku,price\na,1\n"])
        let (out, before) = try build(good)
        let bad = input(files)
        let r = try TestSupport.runCLI(["build", "--input", bad.path, "--out", out.path], env: ["SOURCE_DATE_EPOCH": "1700000001"])
        XCTAssertEqual(r.status, 1, r.output, file: file, line: line)
        for e in expected { XCTAssertTrue(r.output.contains(e), "expected '\(e)' in: \(r.output)", file: file, line: line) }
        XCTAssertEqual(TestSupport.snapshot(out), before, "previous dist changed", file: file, line: line)
    }

    func testWrongTypeNamesFileLineFieldAndType() throws {
        try assertFails(["collections/p.json": Self.priceDecl, "collections/data/p.csv": "sku,price\na,1\nb,12.5.1\n"],
                        mentions: ["collections/data/p.csv:3", "field 'price'", "expected a decimal number", "\"12.5.1\""])
    }

    func testMissingRequiredField() throws {
        let decl = #"{"sources": ["collections/data/s.jsonl"], "id": "id", "fields": {"id": {"type": "integer"}, "name": {"type": "string"}}}"#
        try assertFails(["collections/s.json": decl, "collections/data/s.jsonl": #"{"id": 1, "name": "x"}"# + "\n" + #"{"id": 2}"# + "\n"],
                        mentions: ["collections/data/s.jsonl:2", "field 'name'", "required field is missing"])
    }

    func testUnknownDeclarationKey() throws {
        let decl = #"{"sources": ["collections/data/p.csv"], "id": "sku", "fields": {"sku": {"type": "string"}}, "pagesize": 3}"#
        try assertFails(["collections/p.json": decl, "collections/data/p.csv": "sku\na\n"], mentions: ["collections/p.json", "additionalProperties", "declaration schema"])
        // The shipped schema is a valid draft 2020-12 schema (checked by python-jsonschema too) and accepts the defaults.
        try Tool.require(.python3, .jsonschema)
        let schemaFile = TestSupport.tempDir("decl").appendingPathComponent("s.json")
        try Data(JSONWriter().bytes(CollectionDeclaration.schemaDocument)).write(to: schemaFile)
        for d in ["listings", "schools"] {
            let r = try TestSupport.run(["python3", "-c", "import json,sys,jsonschema; s=json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(s); jsonschema.validate(json.load(open(sys.argv[2])), s)",
                                         schemaFile.path, TestSupport.defaultInput.appendingPathComponent("collections/\(d).json").path])
            XCTAssertEqual(r.status, 0, r.output)
        }
        let fieldTypo = #"{"sources": ["collections/data/p.csv"], "id": "sku", "fields": {"sku": {"type": "string", "requried": false}}}"#
        try assertFails(["collections/p.json": fieldTypo, "collections/data/p.csv": "sku\na\n"], mentions: ["/fields/sku", "additionalProperties"])
        let badType = #"{"sources": ["collections/data/p.csv"], "id": "sku", "fields": {"sku": {"type": "text"}}}"#
        try assertFails(["collections/p.json": badType, "collections/data/p.csv": "sku\na\n"], mentions: ["/fields/sku/type", "enum"])
    }

    func testRangesEnumsAndIds() throws {
        let decl = #"""
        {"sources": ["collections/data/s.csv"], "id": "id",
         "fields": {"id": {"type": "string"}, "lat": {"type": "latitude"}, "kind": {"type": "enum", "values": ["A", "B"]}}}
        """#
        try assertFails(["collections/s.json": decl, "collections/data/s.csv": "id,lat,kind\nx,91.5,A\n"], mentions: ["s.csv:2", "field 'lat'", "outside -90…90"])
        try assertFails(["collections/s.json": decl, "collections/data/s.csv": "id,lat,kind\nx,1,C\n"], mentions: ["s.csv:2", "field 'kind'", "expected one of A, B"])
        try assertFails(["collections/s.json": decl, "collections/data/s.csv": "id,lat,kind\n../../etc/passwd,1,A\n"], mentions: ["s.csv:2", "field 'id'", "escape its folder"])
        try assertFails(["collections/s.json": decl, "collections/data/s.csv": "id,lat,kind\nx,1,A\nx,2,B\n"], mentions: ["s.csv:3", "duplicate id \"x\""])
    }

    /// The default input's collections meet the real-estate document's shapes (PropertyListData keys).
    func testDefaultListingsMeetTheDeclaredPageShape() throws {
        let out = TestSupport.tempDir("coll-default").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let tree = TestSupport.snapshot(out)
        let page = try json(tree, "collections/listings/page-1.json")
        XCTAssertEqual(page.objectValue?.keys, ["properties", "total", "page", "perPage", "totalPages"])
        XCTAssertEqual(page["total"], 120)
        XCTAssertEqual(page["totalPages"], 6)
        // Newest first, as declared.
        let dates = (1...6).flatMap { n in (try? json(tree, "collections/listings/page-\(n).json"))?["properties"]?.arrayValue?.compactMap { $0["listed_at"]?.stringValue } ?? [] }
        XCTAssertEqual(dates.count, 120)
        XCTAssertEqual(dates, dates.sorted(by: >))
        XCTAssertEqual(tree.keys.filter { $0.hasPrefix("collections/schools/items/") }.count, 60)
    }

    /// A collection declared over the real product corpus (4,603 JSON Lines records, nested rating object).
    func testRealProductCorpusAsACollection() throws {
        let products = TestSupport.testData.appendingPathComponent("catalog/products.jsonl")
        let decl = #"""
        {"title": "Products", "sources": ["collections/data/products.jsonl"], "id": "id",
         "fields": {
           "id": {"type": "string", "from": "itemId"}, "name": {"type": "string"}, "brand": {"type": "string", "nullable": true},
           "price": {"type": "decimal", "nullable": true}, "category": {"type": "string", "nullable": true},
           "rating": {"type": "number", "from": "rating.average", "nullable": true, "required": false},
           "reviews": {"type": "integer", "from": "rating.count", "nullable": true, "required": false},
           "in_stock": {"type": "boolean", "from": "inStock"}, "image": {"type": "url", "from": "imageUrl"}},
         "list": {"pageSize": 100, "fields": ["id", "name", "brand", "price"]},
         "sort": [{"field": "reviews", "order": "desc"}],
         "search": {"name": 3, "brand": 2, "category": 1},
         "facets": ["brand", "in_stock"]}
        """#
        let dir = input(["collections/products.json": decl])
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("collections/data"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: products, to: dir.appendingPathComponent("collections/data/products.jsonl"))
        let (_, tree) = try build(dir)
        let index = try json(tree, "collections/products/index.json")
        XCTAssertEqual(index["count"], 4603)
        XCTAssertEqual(index["pages"], 47)
        XCTAssertEqual(tree.keys.filter { $0.hasPrefix("collections/products/items/") }.count, 4603)
        // The facet counts agree with a plain count over the source file.
        let lines = try String(contentsOf: products, encoding: .utf8).split(separator: "\n")
        let inStock = lines.filter { $0.contains(#""inStock": true"#) }.count
        let facet = index["facets"]?["in_stock"]?["values"]?.arrayValue ?? []
        XCTAssertEqual(facet.first { $0["value"] == true }?["count"]?.intValue, inStock)

        // The declared sort (reviews, most first; products without a count last), then the id — computed by Python
        // from the source file, and compared with the 47 pages in order.
        let script = #"""
        import json, sys
        rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
        def key(r):
            c = (r.get("rating") or {}).get("count")
            return (c is None, -(c or 0), r["itemId"])
        print(json.dumps([r["itemId"] for r in sorted(rows, key=key)]))
        """#
        let py = try TestSupport.run(["python3", "-c", script, products.path])
        XCTAssertEqual(py.status, 0, py.output)
        let expectedOrder = try JSONReader.parse(py.output).arrayValue?.compactMap(\.stringValue) ?? []
        var pagedOrder: [String] = []
        for n in 1...47 { pagedOrder += try json(tree, "collections/products/page-\(n).json")["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
        XCTAssertEqual(pagedOrder.count, 4603)
        XCTAssertEqual(pagedOrder, expectedOrder)

        // Its search finds products as the catalog's ranked search does.
        XCTAssertEqual(index["search"]?.stringValue, "collections/products/search/meta.json")
        let q = try Query(metaPath: "collections/products/search/meta.json") { p in [UInt8](tree[p] ?? Data()) }
        let top = try q.search("dewalt drill", limit: 10, complete: true).results
        XCTAssertEqual(top.count, 10)
        for r in top {
            XCTAssertEqual(r.stored["brand"]?.stringValue, "DEWALT")
            XCTAssertTrue(r.stored["name"]?.stringValue?.lowercased().contains("drill") == true, "\(r.stored)")
        }
        XCTAssertTrue(try q.search("drils", limit: 5, complete: true).results.allSatisfy { $0.stored["name"]?.stringValue?.lowercased().contains("drill") == true })
        // Every 50th product is found by its exact name, as in the catalog test.
        let items = tree.filter { $0.key.hasPrefix("collections/products/items/") }.sorted { $0.key < $1.key }
        for (path, data) in stride(from: 0, to: items.count, by: 50).map({ items[$0] }) {
            let item = try JSONReader.parse(data)
            let name = item["name"]!.stringValue!, id = item["id"]!.stringValue!
            let found = try q.search(name, limit: 10_000, complete: true).results.contains { $0.stored["id"]?.stringValue == id }
            XCTAssertTrue(found, "\(path): \(name)")
        }
    }
}
