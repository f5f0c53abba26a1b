import XCTest
import Foundation
@testable import Generator
import Schemas

/// The real, messy corpus (Tests/Data/catalog) builds, and every anomaly is counted.
final class RealCorpusTests: XCTestCase {
    static func realInput() -> URL {
        let dir = TestSupport.makeInput(site: { s in
            s["catalog"] = ["fields": ["id": "itemId"]]
            s["baseURL"] = "https://example.github.io/orange-catalog/production data/"
        }, files: [:])
        let cat = dir.appendingPathComponent("catalog")
        try! FileManager.default.createDirectory(at: cat, withIntermediateDirectories: true)
        for f in ["products.jsonl", "categories.json"] {
            // Copied, not linked: a link pointing out of the input folder is refused.
            try! FileManager.default.copyItem(at: TestSupport.testData.appendingPathComponent("catalog/\(f)"), to: cat.appendingPathComponent(f))
        }
        return dir
    }

    func testRealCorpusBuildsAndReportsEveryAnomaly() throws {
        let out = TestSupport.tempDir("real").appendingPathComponent("dist")
        let summary = try Build.run(BuildOptions(input: Self.realInput(), output: out, threads: 2, epochSeconds: 1_700_000_000))
        func count(_ key: String) -> Int? { summary.report.first { $0.key == key }?.count }
        XCTAssertEqual(count("products read"), 4603)
        XCTAssertEqual(count("products without a price"), 25)
        XCTAssertEqual(count("products without a category"), 2447)
        XCTAssertEqual(count("products without a brand"), 228)
        XCTAssertEqual(count("categories missing from the tree"), 2)
        XCTAssertGreaterThanOrEqual(count("brands with case variants") ?? 0, 1)
        XCTAssertTrue(summary.report.first { $0.key == "brands with case variants" }!.examples.contains("DEWALT/Dewalt"))

        // Unpriced products are in no page; priced ones each have a detail page.
        let files = TestSupport.snapshot(out)
        XCTAssertEqual(files.keys.filter { $0.hasSuffix("/details.json") }.count, 4603 - 25)
        // baseURL's raw space is encoded.
        let config = try JSONReader.parse(files["app-config.json"]!)
        XCTAssertEqual(config["baseURL"]?.stringValue, "https://example.github.io/orange-catalog/production%20data/")

        // Department counts are distinct products of the subtree.
        let index = try JSONReader.parse(files["categories/index.json"]!)
        let tools = index["categories"]!.arrayValue!.first { $0["id"]?.stringValue == "tools" }!
        let toolPage = try JSONReader.parse(files["categories/tools.json"]!)
        XCTAssertEqual(tools["product_count"]?.intValue, toolPage["products"]?.arrayValue?.count)
        let ids = toolPage["products"]!.arrayValue!.map { $0["product_id"]!.stringValue! }
        XCTAssertEqual(Set(ids).count, ids.count)

        // The offline catalog keeps to its budget.
        XCTAssertLessThanOrEqual(files["offline-catalog.json"]!.count, 100 * 1024)
    }
}
