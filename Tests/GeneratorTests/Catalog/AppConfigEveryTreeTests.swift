import Foundation
import XCTest
@testable import Generator

/// app-config.json is the app's entry point (the design document's app loads it first and cannot start without
/// it), so every tree has one, whatever domains its input holds.
final class AppConfigEveryTreeTests: XCTestCase {
    /// The design document's `AppConfig` model (seed 004), field for field: what the app decodes.
    struct AppConfig: Decodable {
        let appVersion: String, minimumAppVersion: String, dataVersion: String, lastUpdated: String, baseURL: String
        let endpoints: Endpoints, features: Features, caching: CachingConfig, images: ImageConfig
        struct Endpoints: Decodable {
            let appConfig, summary, searchIndex, categories, categoryDetails, productDetails, productImage, featuredContent: String
        }
        struct Features: Decodable { let search, favorites, offlineMode, categories, productDetails: Bool }
        struct CachingConfig: Decodable {
            let strategy: String, ttl: TTL
            struct TTL: Decodable { let appConfig, summary, searchIndex, categories, products, images: Int }
        }
        struct ImageConfig: Decodable {
            let sizes: Sizes, defaultSize: String
            struct Sizes: Decodable { let thumbnail, small, medium, large: String }
        }
    }

    /// An input holding only the default input's `domain` folder, and site.json without the other domains' sections.
    func input(only domain: String) throws -> URL {
        let dir = TestSupport.tempDir("only-\(domain)")
        let fm = FileManager.default
        var site = try JSONSerialization.jsonObject(with: Data(contentsOf: TestSupport.defaultInput.appendingPathComponent("site.json"))) as! [String: Any]
        for other in ["catalog", "auctions", "nba", "collections"] where other != domain { site.removeValue(forKey: other) }
        try JSONSerialization.data(withJSONObject: site, options: [.prettyPrinted, .sortedKeys]).write(to: dir.appendingPathComponent("site.json"))
        try fm.copyItem(at: TestSupport.defaultInput.appendingPathComponent(domain), to: dir.appendingPathComponent(domain))
        return dir
    }

    func testEveryDomainAloneGetsAnAppConfigTheAppDecodes() throws {
        for domain in ["auctions", "nba", "collections", "catalog"] {
            let out = TestSupport.tempDir("out-\(domain)")
            _ = try Build.run(BuildOptions(input: try input(only: domain), output: out, threads: 2, epochSeconds: 1_700_000_000))
            let data = try Data(contentsOf: out.appendingPathComponent("app-config.json"))
            let config = try JSONDecoder().decode(AppConfig.self, from: data)
            XCTAssertEqual(config.baseURL, "https://example.github.io/orange-catalog/", domain)
            XCTAssertEqual(config.endpoints.appConfig, config.baseURL + "app-config.json", domain)
            XCTAssertEqual(config.dataVersion.count, 12, domain)
            // The catalog's features are on only where the tree has a catalog: the app must not ask for its files.
            let catalogFeatures = [config.features.search, config.features.categories, config.features.productDetails,
                                   config.features.offlineMode, config.features.favorites]
            XCTAssertEqual(catalogFeatures, Array(repeating: domain == "catalog", count: 5), domain)
            XCTAssertEqual(FileManager.default.fileExists(atPath: out.appendingPathComponent("SUMMARY.json").path), domain == "catalog", domain)
            // Listed in the file index with its schema, like every other file.
            let index = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("releases/1/files.json"))) as! [String: Any]
            let entry = (index["files"] as! [[String: Any]]).first { $0["path"] as? String == "app-config.json" }
            XCTAssertEqual(entry?["schema"] as? String, "schemas/app-config.schema.json", domain)
        }
    }

    /// Without a catalog, dataVersion follows the tree's content: a new build time alone makes no release, a data
    /// change gives a new dataVersion.
    func testDataVersionOfATreeWithoutCatalogFollowsItsContent() throws {
        let input = try input(only: "nba")
        let out = TestSupport.tempDir("out")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let first = try JSONDecoder().decode(AppConfig.self, from: Data(contentsOf: out.appendingPathComponent("app-config.json")))

        // Same input, later build time, another output folder built from the first: no new release.
        let again = try Build.run(BuildOptions(input: input, output: out, previous: out, threads: 1, epochSeconds: 1_700_086_400))
        XCTAssertFalse(again.changed)

        // One more game line: new content, new dataVersion.
        let lines = input.appendingPathComponent("nba/lines.csv")
        var text = try String(contentsOf: lines, encoding: .utf8)
        let rows = text.split(separator: "\n")
        let last = rows.last!.split(separator: ",", omittingEmptySubsequences: false)
        XCTAssertGreaterThan(last.count, 2)
        text = rows.dropLast().joined(separator: "\n") + "\n"
        try text.write(to: lines, atomically: true, encoding: .utf8)
        let changed = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_172_800))
        XCTAssertTrue(changed.changed)
        let second = try JSONDecoder().decode(AppConfig.self, from: Data(contentsOf: out.appendingPathComponent("app-config.json")))
        XCTAssertNotEqual(first.dataVersion, second.dataVersion)
        XCTAssertEqual(second.lastUpdated, "2023-11-16T22:13:20Z")
    }

    /// With a catalog, dataVersion (app-config.json and SUMMARY.json) follows every product: the same input gives the
    /// same one on any thread count, and a change to any field a product shows — price, rating, image, stock,
    /// description — gives a new one.
    func testDataVersionOfACatalogFollowsEveryProductField() throws {
        let input = try input(only: "catalog")
        let products = input.appendingPathComponent("catalog/products.jsonl")
        let original = try String(contentsOf: products, encoding: .utf8)
        func dataVersion(threads: Int = 2) throws -> String {
            let out = TestSupport.tempDir("out")
            _ = try Build.run(BuildOptions(input: input, output: out, threads: threads, epochSeconds: 1_700_000_000))
            let config = try JSONDecoder().decode(AppConfig.self, from: Data(contentsOf: out.appendingPathComponent("app-config.json")))
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("SUMMARY.json"))) as! [String: Any]
            XCTAssertEqual(summary["dataVersion"] as? String, config.dataVersion)
            XCTAssertEqual(config.dataVersion.count, 12)
            return config.dataVersion
        }
        let first = try dataVersion()
        XCTAssertEqual(try dataVersion(threads: 1), first)
        var seen = [first]
        // Each edit to the first product's line, alone.
        let line = String(original.prefix { $0 != "\n" })
        for (from, to) in [("\"price\": 73.97", "\"price\": 73.98"), ("\"average\": 4.5877", "\"average\": 4.5878"),
                           ("main_400.jpg", "main_401.jpg"), ("\"inStock\": true", "\"inStock\": false"),
                           ("two-speed gearbox.", "two-speed gearbox!")] {
            XCTAssertTrue(line.contains(from), from)
            try original.replacingOccurrences(of: line, with: line.replacingOccurrences(of: from, with: to)).write(to: products, atomically: true, encoding: .utf8)
            let v = try dataVersion()
            XCTAssertFalse(seen.contains(v), "\(from) → \(to): dataVersion \(v) again")
            seen.append(v)
        }
    }
}
