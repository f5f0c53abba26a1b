import XCTest
import Foundation
@testable import Generator
import Indexer
import Schemas
import TestTools

/// A collection's search offers its declared facets, ranges and sorts: the listings of the default input (a real-shaped
/// CSV) browsed and searched with filters, their facet counts and sorted orders against a recount of the CSV in Python.
final class CollectionSearchFieldsTests: XCTestCase {
    static let tree: Result<URL, Error> = Result {
        let out = TestSupport.tempDir("coll-search-fields").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }

    /// The recount: per request (a word or none, a price span, property types), the total, the counts of property_type,
    /// city and price range, and the first ten prices from the dearest.
    static let script = #"""
    import csv, json, sys
    rows = list(csv.DictReader(open(sys.argv[1])))
    edges = [250000, 500000, 750000, 1000000]
    def rng(p):
        k = next((i for i, e in enumerate(edges) if p < e), len(edges))
        lo = "" if k == 0 else str(edges[k - 1]); hi = "" if k == len(edges) else str(edges[k])
        return lo + ".." + hi
    out = []
    for req in json.loads(sys.argv[2]):
        lo, hi = req["price"].split("..") if req["price"] else ("", "")
        hits = [r for r in rows
                if (not req["word"] or req["word"] in (r["StreetAddress"] + " " + r["City"] + " " + r["PropertyType"] + " " + r["Features"]).lower().replace("|", " ").split())
                and (lo == "" or float(r["ListPrice"]) >= float(lo)) and (hi == "" or float(r["ListPrice"]) < float(hi))
                and (not req["types"] or r["PropertyType"] in req["types"])]
        def counts(f):
            c = {}
            for r in hits: c[f(r)] = c.get(f(r), 0) + 1
            return c
        out.append({"total": len(hits), "property_type": counts(lambda r: r["PropertyType"]), "city": counts(lambda r: r["City"]),
                    "list_price": counts(lambda r: rng(float(r["ListPrice"]))),
                    "dearest": sorted((float(r["ListPrice"]) for r in hits), reverse=True)[:10]})
    print(json.dumps(out))
    """#

    func testFiltersFacetsAndSortsAgainstTheCSV() throws {
        try Tool.require(.python3)
        let dist = try Self.tree.get()
        let requests: [(word: String, price: String, types: [String])] = [
            ("", "250000..750000", []), ("", "..500000", ["Condo"]), ("condo", "", []), ("parking", "500000..", ["Condo", "Townhouse"]),
            ("", "1000000..", []), ("boston", "..1000000", ["Single Family"]), ("", "", ["Multi Family"]),
        ]
        let arg = try JSONWriter().string(.array(requests.map { .obj(["word": .string($0.word), "price": .string($0.price), "types": .strings($0.types)]) }))
        let csv = TestSupport.defaultInput.appendingPathComponent("collections/data/listings.csv").path
        let run = try TestSupport.run(["python3", "-c", Self.script, csv, arg])
        XCTAssertEqual(run.status, 0, run.output)
        let want = try JSONReader.parse(run.output).arrayValue ?? []
        let tree = try TreeReader(root: dist)
        for (r, w) in zip(requests, want) {
            var filters: [String: [String]] = [:]
            if !r.price.isEmpty { filters["list_price"] = [r.price] }
            if !r.types.isEmpty { filters["property_type"] = r.types }
            let q = try Query(metaPath: "collections/listings/search/meta.json") { try tree.read($0) }
            let got = try q.search(Query.Request(r.word, filters: filters, sort: "list_price-desc", facets: true, complete: true))
            XCTAssertEqual(got.total, w["total"]?.intValue, "\(r)")
            for f in got.facets {
                let want = (w[f.field]?.objectValue?.members ?? []).reduce(into: [String: Int]()) { $0[$1.key] = $1.value.intValue }
                XCTAssertEqual(Dictionary(uniqueKeysWithValues: f.values.map { ($0.value, $0.count) }), want, "\(f.field) of \(r)")
            }
            XCTAssertEqual(got.facets.map(\.field), ["property_type", "city", "list_price"])
            XCTAssertEqual(got.results.compactMap { $0.stored["list_price"]?.doubleValue }, (w["dearest"]?.arrayValue ?? []).compactMap(\.doubleValue), "\(r)")
        }
    }

    /// With no words and no sort, a browse takes the declared list order (newest first); the sorts on offer are the
    /// declared one both ways and the range field both ways.
    func testBrowseTakesTheDeclaredOrder() throws {
        let dist = try Self.tree.get()
        let tree = try TreeReader(root: dist)
        let meta = try JSONReader.parse(tree.read("collections/listings/search/meta.json"))
        XCTAssertEqual(meta["browse"], "listed_at-desc")
        XCTAssertEqual((meta["sorts"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue },
                       ["listed_at-desc", "listed_at", "list_price", "list_price-desc"])
        let q = try Query(metaPath: "collections/listings/search/meta.json") { try tree.read($0) }
        let got = try q.search(Query.Request("", filters: ["property_type": ["Condo"]], limit: 50))
        let dates = got.results.compactMap { $0.stored["listed_at"]?.stringValue }.compactMap(CollectionSearchOutput.seconds)
        XCTAssertEqual(dates.count, got.results.count)
        XCTAssertGreaterThan(dates.count, 5)
        XCTAssertEqual(dates, dates.sorted(by: >))
    }

    func testRangesAreCheckedWhenDeclared() throws {
        for (ranges, message) in [(#"{"city": [1]}"#, "field 'ranges.city': is string"), (#"{"list_price": [5, 2]}"#, "ascending numbers"),
                                  (#"{"nope": [1]}"#, "field 'ranges.nope': is not a declared field")] {
            let decl = #"{"sources": ["collections/data/s.csv"], "id": "id", "fields": {"id": {"type": "string"}, "city": {"type": "string"}, "list_price": {"type": "decimal"}}, "ranges": "# + ranges + "}"
            XCTAssertThrowsError(try CollectionDeclaration.parse(JSONReader.parse(Array(decl.utf8)), name: "s", file: "collections/s.json")) { e in
                XCTAssertTrue("\(e)".contains(message) && "\(e)".contains("collections/s.json"), "\(e)")
            }
        }
    }
}
