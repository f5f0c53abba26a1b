import XCTest
import Foundation
@testable import Generator

/// The shared state catalog outputs render from (`CatalogContext`).
final class CatalogOutputTests: XCTestCase {
    /// The search order, made from integer keys and 8-byte name prefixes, is the plain order it stands for: brand key,
    /// category path, name, id, each compared as Swift strings. On the real catalog, with products added whose names
    /// share long prefixes, differ only in case, accents (composed and decomposed), or are not ASCII at all.
    func testSearchOrderIsBrandCategoryNameIdAsStrings() throws {
        let input = RealCorpusTests.realInput()
        let productsURL = input.appendingPathComponent("catalog/products.jsonl")
        let real = try String(contentsOf: productsURL, encoding: .utf8)
        let template = try XCTUnwrap(real.split(separator: "\n").first { $0.contains("\"price\": ") }.map(String.init))
        let names = ["Cordless Drill Kit", "Cordless Drill Kit 2", "Cordless Drill", "Cordless", "Cordless\u{00E9}", "Cordlesse\u{0301}",
                     "cordless drill", "Ébéniste Saw", "Ebeniste Saw", "Zebra", "Über Hammer", "Uber Hammer", "Cordless Drill Kit",
                     "A", "\u{1F527} Wrench", "Cordless\u{0020}Drill\u{00A0}Kit"]
        var lines = [real]
        for (k, name) in names.enumerated() {
            var row = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(template.utf8)) as? [String: Any])
            row["itemId"] = "order-\(k % 3 == 0 ? "b" : "a")-\(k)"
            row["name"] = name
            if k % 2 == 0 { row["brand"] = k % 4 == 0 ? "Ünbrand" : "unbrand" }
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: row), as: UTF8.self) + "\n")
        }
        try lines.joined().write(to: productsURL, atomically: true, encoding: .utf8)

        let site = try SiteConfig.load(input.appendingPathComponent("site.json"), displayName: "site.json")
        let build = BuildContext(site: site, inputDirectory: input, epochSeconds: 1_700_000_000, threads: 2)
        let model = try CatalogDomain().load(build)
        let catalog = CatalogContext(model: model, site: site, settings: try CatalogSettings.read(site, file: "site.json"),
                                     generatedAt: "2023-11-14T22:13:20Z", threads: 2)
        let products = model.products
        XCTAssertGreaterThan(products.count, 1_000)
        let expected = products.indices.sorted { a, b in
            let pa = products[a], pb = products[b]
            let ka = (pa.brandKey ?? "", catalog.categoryPath(pa)), kb = (pb.brandKey ?? "", catalog.categoryPath(pb))
            if ka != kb { return ka < kb }
            if pa.name != pb.name { return pa.name < pb.name }
            return pa.id < pb.id
        }
        XCTAssertEqual(catalog.searchOrder, expected)
        // The added products are all there, in the real catalog's order among themselves.
        XCTAssertEqual(catalog.searchOrder.filter { products[$0].id.hasPrefix("order-") }.count, names.count)
    }
}
