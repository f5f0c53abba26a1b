import XCTest
import Foundation
@testable import Generator
import Schemas

/// The declared sort of a collection, with orders worked out by hand: keys in turn, ascending or descending, numbers
/// by value (not as text), null and missing last whatever the order, then the id; across pages.
final class CollectionSortTests: XCTestCase {
    static let csv = """
    sku,city,price
    a,Boston,100
    b,Boston,250
    c,,300
    d,Cambridge,
    e,Boston,
    f,Cambridge,50
    g,Boston,250
    h,,10
    i,Boston,1000

    """

    func order(_ sort: String) throws -> [String] {
        let decl = #"""
        {"sources": ["collections/data/s.csv"], "id": "sku",
         "fields": {"sku": {"type": "string"}, "city": {"type": "string", "nullable": true}, "price": {"type": "decimal", "nullable": true}},
         "list": {"pageSize": 4}, "sort": \#(sort)}
        """#
        let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") },
                                          files: ["collections/s.json": decl, "collections/data/s.csv": Self.csv])
        let out = TestSupport.tempDir("coll-sort").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        var ids: [String] = []
        for n in 1...3 {
            let page = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("collections/s/page-\(n).json")))
            ids += page["items"]?.arrayValue?.compactMap { $0["sku"]?.stringValue } ?? []
        }
        return ids
    }

    func testCityThenPriceDescending() throws {
        // Boston by price, most first (1000 > 250 = 250 by id > 100 > null), Cambridge (50, null), no city (300, 10).
        XCTAssertEqual(try order(#"[{"field": "city"}, {"field": "price", "order": "desc"}]"#),
                       ["i", "b", "g", "a", "e", "f", "d", "c", "h"])
    }

    func testCityDescendingKeepsNullsLast() throws {
        XCTAssertEqual(try order(#"[{"field": "city", "order": "desc"}, {"field": "price", "order": "desc"}]"#),
                       ["f", "d", "i", "b", "g", "a", "e", "c", "h"])
    }

    func testPriceAscendingThenId() throws {
        // Numbers by value: 10 < 50 < 100 < 250 (b, g by id) < 300 < 1000; the nulls last by id (d, e).
        XCTAssertEqual(try order(#"[{"field": "price", "order": "asc"}]"#), ["h", "f", "a", "b", "g", "c", "i", "d", "e"])
    }

    func testNoSortIsIdOrder() throws {
        XCTAssertEqual(try order("[]"), ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
    }
}
