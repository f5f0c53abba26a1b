import XCTest
import Foundation
@testable import Generator
import Schemas

/// The large-catalog settings on the real corpus, with the very site.json of the Large catalogs article (target
/// object-storage, the seed search indexes left out, category pages of 100): every file that could name the left-out
/// indexes consistent; the same tree on one thread and on two; and the size limits of both targets naming the
/// setting that fixes them.
final class LargeCatalogTests: XCTestCase {
    /// The first `json` block of the Large catalogs article (Generator.docc/LargeCatalogs.md).
    static func readmeSite() throws -> [String: Any] {
        let article = try String(contentsOf: TestSupport.repoRoot.appendingPathComponent("Sources/Generator/Generator.docc/LargeCatalogs.md"),
                                 encoding: .utf8)
        let open = try XCTUnwrap(article.range(of: "```json\n"), "LargeCatalogs.md has no json block")
        let close = try XCTUnwrap(article[open.upperBound...].range(of: "\n```"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(article[open.upperBound..<close.lowerBound].utf8)) as? [String: Any])
    }

    /// The article's site.json, with the real corpus's id field.
    static let largeSettings: (inout [String: Any]) -> Void = { s in
        s = try! readmeSite()
        var catalog = s["catalog"] as? [String: Any] ?? [:]
        catalog["fields"] = ["id": "itemId"]
        s["catalog"] = catalog
    }
    static let base = "https://cdn.example.com/catalog/"

    /// The real corpus with `edit` applied to its site.json.
    static func realInput(_ edit: (inout [String: Any]) -> Void) throws -> URL {
        let input = RealCorpusTests.realInput()
        let url = input.appendingPathComponent("site.json")
        var site = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        edit(&site)
        try JSONSerialization.data(withJSONObject: site, options: [.sortedKeys]).write(to: url)
        return input
    }

    /// The real corpus with the large-catalog settings, built on two threads and on one (shared by the tests).
    static let trees: (two: URL, one: URL) = {
        let input = try! realInput(largeSettings)
        func build(_ threads: Int) -> URL {
            let out = TestSupport.tempDir("large-\(threads)").appendingPathComponent("dist")
            _ = try! Build.run(BuildOptions(input: input, output: out, threads: threads, epochSeconds: 1_700_000_000))
            return out
        }
        return (build(2), build(1))
    }()

    func testLargeSettingsBuildTheSameTreeOnOneThreadAndTwo() {
        let two = TestSupport.snapshot(Self.trees.two), one = TestSupport.snapshot(Self.trees.one)
        XCTAssertGreaterThan(two.count, 4_600)
        XCTAssertEqual(Set(two.keys), Set(one.keys))
        for (path, bytes) in two where one[path] != bytes { XCTFail("\(path) differs between 1 and 2 threads") }
    }

    func testSeedIndexesLeftOutAndNothingNamesThem() throws {
        let tree = TestSupport.snapshot(Self.trees.two)
        for gone in ["search-index.json", "search-index-compact.json", "schemas/search-index.schema.json", "schemas/search-index-compact.schema.json"] {
            XCTAssertNil(tree[gone], gone)
        }
        // No file of the tree names them: not the file index, app-config, the deeplink map, openapi.json or the types.
        for (path, bytes) in tree where String(decoding: bytes, as: UTF8.self).contains("search-index") {
            XCTFail("\(path) names a seed index")
        }
        // app-config: the seed endpoints are left out, in the file and in its schema; search is the ranked index.
        let config = try JSONReader.parse(XCTUnwrap(tree["app-config.json"]))
        let endpoints = try XCTUnwrap(config["endpoints"]?.objectValue)
        XCTAssertEqual(endpoints.keys, ["appConfig", "summary", "searchRanked", "categories", "categoryDetails", "productDetails",
                                        "productImage", "featuredContent", "offlineCatalog", "updateManifest", "deeplinkMap"])
        XCTAssertEqual(endpoints["searchRanked"]?.stringValue, Self.base + "search/meta.json")
        XCTAssertNotNil(tree["search/meta.json"])
        XCTAssertEqual(config["features"]?["search"], .bool(true))
        let schema = try JSONReader.parse(XCTUnwrap(tree["schemas/app-config.schema.json"]))
        let endpointSchema = try XCTUnwrap(schema["properties"]?["endpoints"])
        XCTAssertEqual(endpointSchema["required"]?.arrayValue?.compactMap(\.stringValue), endpoints.keys)
        XCTAssertEqual(endpointSchema["additionalProperties"], .bool(false))
        // The deeplink map's search and brand links open the search page.
        let map = try JSONReader.parse(XCTUnwrap(tree["deeplink-map.json"]))
        let routes = Dictionary(uniqueKeysWithValues: try XCTUnwrap(map["routes"]?.arrayValue).map { ($0["name"]!.stringValue!, $0) })
        XCTAssertEqual(routes["search"]?["webURL"]?.stringValue, Self.base + "search/index.html?q={query}")
        XCTAssertEqual(routes["search"]?["exampleWebURL"]?.stringValue, Self.base + "search/index.html?q=cordless%20drill")
        XCTAssertTrue(routes["brand"]?["exampleWebURL"]?.stringValue?.contains("search/index.html?q=") == true)
        XCTAssertNotNil(tree["search/index.html"])
        // `generator search` says why a seed index is missing.
        let r = try TestSupport.runCLI(["search", Self.trees.two.path, "drill", "--index", "full"])
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(r.output.contains("catalog.seedIndexes false") && r.output.contains("--index ranked"), r.output)
    }

    /// Every category's pages chain from `categories/{id}.json` through `next_page`, 100 products a page, and list the
    /// category's distinct products exactly once (the count the category index gives).
    func testCategoryPagesOfOneHundred() throws {
        let tree = TestSupport.snapshot(Self.trees.two)
        let index = try JSONReader.parse(XCTUnwrap(tree["categories/index.json"]))
        var pagesSeen = 0
        for category in try XCTUnwrap(index["categories"]?.arrayValue) {
            let count = try XCTUnwrap(category["product_count"]?.intValue), path = try XCTUnwrap(category["path"]?.stringValue)
            let totalPages = max(1, (count + 99) / 100)
            XCTAssertEqual(category["total_pages"]?.intValue, totalPages, path)
            var ids: [String] = [], next: String? = path, page = 0
            while let p = next {
                page += 1
                let json = try JSONReader.parse(XCTUnwrap(tree[p], p))
                XCTAssertEqual(json["page"]?.intValue, page, p)
                XCTAssertEqual(json["per_page"]?.intValue, 100, p)
                XCTAssertEqual(json["total_pages"]?.intValue, totalPages, p)
                XCTAssertEqual(json["total_products"]?.intValue, count, p)
                let products = try XCTUnwrap(json["products"]?.arrayValue)
                XCTAssertEqual(products.count, page < totalPages ? 100 : count - 100 * (totalPages - 1), p)
                ids += products.compactMap { $0["product_id"]?.stringValue }
                next = json["next_page"]?.stringValue
            }
            XCTAssertEqual(page, totalPages, path)
            XCTAssertEqual(ids.count, count, path)
            XCTAssertEqual(Set(ids).count, count, path)
            pagesSeen += page
        }
        XCTAssertEqual(tree.keys.filter { $0.hasPrefix("categories/") && $0 != "categories/index.json" }.count, pagesSeen)
        XCTAssertGreaterThan(pagesSeen, 60)   // the uncategorized bucket alone has 25 pages
    }

    /// check-tree.py (python-jsonschema) and `generator validate` accept the tree.
    func testLargeTreePassesBothJudges() throws {
        let judged = try TestSupport.judges(Self.trees.two)
        let python = try judged.python.get(), ours = try judged.ours.get()
        XCTAssertEqual(python.status, 0, String(python.output.suffix(2000)))
        XCTAssertTrue(python.output.hasSuffix(" 0 failed\n"), String(python.output.suffix(300)))
        XCTAssertEqual(ours.status, 0, String(ours.output.suffix(2000)))
    }

    /// Object storage with a 1 MB file limit and the seed indexes kept: the real corpus's indexes (3.3 and 1.5 MB) are
    /// refused, each naming the settings that fix it; nothing is written.
    func testFileOverMaxFileMBNamesTheSetting() throws {
        let input = try Self.realInput { s in s["target"] = "object-storage"; s["maxFileMB"] = 1 }
        let out = TestSupport.tempDir("large-limit").appendingPathComponent("dist")
        XCTAssertThrowsError(try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))) { e in
            let m = "\(e)"
            XCTAssertTrue(m.contains("error: (output): search-index.json is 3.3 MB, over the 1 MB file limit (maxFileMB) of target object-storage: set catalog.seedIndexes to false or raise maxFileMB"), m)
            XCTAssertTrue(m.contains("search-index-compact.json is 1.5 MB, over the 1 MB file limit"), m)
            XCTAssertEqual(m.components(separatedBy: "\n").count, 2, m)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    /// GitHub Pages' limits on sizes alone (a 100 MB file in a unit test would only measure the disk): each refusal
    /// names the setting of the file's kind, and target object-storage.
    func testGitHubPagesLimitsNameTheSetting() throws {
        func refusal(_ files: [PagesRules.Entry], target: HostTarget = .githubPages) -> String {
            do { _ = try PagesRules.check(files, target: target); return "" } catch { return "\(error)" }
        }
        let mb = 1_048_576
        let index = PagesRules.Entry(path: "search-index.json", size: 905 * mb, sizeSetting: SearchIndexOutput.full.sizeSetting)
        XCTAssertEqual(refusal([index]), "error: (output): search-index.json is 905.0 MB, over GitHub Pages' 100 MB file limit: set catalog.seedIndexes to false or set target to object-storage")
        let page = PagesRules.Entry(path: "categories/uncategorized.json", size: 100 * mb + 1, sizeSetting: CategoryPageOutput.kind.sizeSetting)
        XCTAssertEqual(refusal([page]), "error: (output): categories/uncategorized.json is 100.0 MB, over GitHub Pages' 100 MB file limit: set pageSize (products per category page) or set target to object-storage")
        let other = PagesRules.Entry(path: "releases/3/files.json", size: 150 * mb)
        XCTAssertTrue(refusal([other]).hasSuffix("over GitHub Pages' 100 MB file limit: make it smaller or set target to object-storage"), refusal([other]))
        // A tree over 1 GB: object storage, and how much leaving out the seed indexes saves.
        let pages = (0..<20).map { PagesRules.Entry(path: "products/\($0).json", size: 60 * mb) }
        let compact = PagesRules.Entry(path: "search-index-compact.json", size: 90 * mb, sizeSetting: SearchIndexOutput.compact.sizeSetting)
        XCTAssertEqual(refusal(pages + [compact]), "error: (output): the tree is 1290.0 MB, over GitHub Pages' 1 GB site limit: set target to object-storage (no site limit), or set catalog.seedIndexes to false (90.0 MB of it)")
        XCTAssertEqual(refusal(Array(pages.prefix(17))), "")   // 1020 MB
        // Object storage: no site limit; files up to maxFileMB (512 by default).
        XCTAssertEqual(refusal(pages + [compact, page], target: .objectStorage(maxFileBytes: 512 * mb)), "")
        XCTAssertEqual(refusal([index], target: .objectStorage(maxFileBytes: 512 * mb)),
                       "error: (output): search-index.json is 905.0 MB, over the 512 MB file limit (maxFileMB) of target object-storage: set catalog.seedIndexes to false or raise maxFileMB")
        // A file of exactly a limit is within it, one byte more is over; the same for the site limit.
        for (target, limit) in [(HostTarget.githubPages, PagesRules.maxFileBytes), (.objectStorage(maxFileBytes: 3 * mb), 3 * mb)] {
            XCTAssertEqual(refusal([PagesRules.Entry(path: "a.json", size: limit)], target: target), "", target.name)
            XCTAssertTrue(refusal([PagesRules.Entry(path: "a.json", size: limit + 1)], target: target).contains("a.json is"), target.name)
        }
        let rest = PagesRules.Entry(path: "rest.json", size: PagesRules.maxSiteBytes - 17 * 60 * mb)
        XCTAssertEqual(refusal(Array(pages.prefix(17)) + [rest]), "")
        XCTAssertTrue(refusal(Array(pages.prefix(17)) + [PagesRules.Entry(path: "rest.json", size: rest.size + 1)]).contains("1 GB site limit"))
    }

    /// `target`, `maxFileMB` and `catalog.seedIndexes` are read strictly: a bad value names the file and field.
    func testSettingsAreReadStrictly() throws {
        func site(_ extra: [String: Any]) throws -> SiteConfig {
            var o: [String: Any] = ["siteName": "S", "baseURL": "https://example.org/", "appVersion": "1.0.0"]
            for (k, v) in extra { o[k] = v }
            return try SiteConfig.parse(JSONReader.parse([UInt8](JSONSerialization.data(withJSONObject: o))), file: "in/site.json")
        }
        func error(_ extra: [String: Any]) -> String {
            do { _ = try site(extra); return "" } catch { return "\(error)" }
        }
        XCTAssertEqual(try site([:]).target, .githubPages)
        XCTAssertEqual(try site(["target": "github-pages"]).target, .githubPages)
        XCTAssertEqual(try site(["target": "object-storage"]).target, .objectStorage(maxFileBytes: 512 * 1_048_576))
        XCTAssertEqual(try site(["target": "object-storage", "maxFileMB": 2048]).target, .objectStorage(maxFileBytes: 2048 * 1_048_576))
        XCTAssertEqual(error(["target": "s3"]), #"in/site.json: field 'target': must be "github-pages" or "object-storage", found "s3""#)
        XCTAssertEqual(error(["target": 3]), "in/site.json: field 'target': expected a string, found integer")
        XCTAssertEqual(error(["maxFileMB": 200]), "in/site.json: field 'maxFileMB': applies to target object-storage only (GitHub Pages' file limit is 100 MB, set by GitHub)")
        XCTAssertEqual(error(["target": "object-storage", "maxFileMB": 0]), "in/site.json: field 'maxFileMB': must be at least 1, found 0")
        XCTAssertEqual(error(["target": "object-storage", "maxFileMB": 6000]), "in/site.json: field 'maxFileMB': must be at most 5120, found 6000")
        XCTAssertEqual(error(["target": "object-storage", "maxFileMB": 1.5]), "in/site.json: field 'maxFileMB': expected a whole number, found 1.5")
        XCTAssertTrue(error(["targett": "object-storage"]).hasPrefix("in/site.json: field 'targett': unknown key"), error(["targett": "x"]))
        XCTAssertEqual(error(["pageSize": -1]), "in/site.json: field 'pageSize': must be at least 0, found -1")

        func catalog(_ c: [String: Any]) throws -> CatalogSettings { try CatalogSettings.read(site(["catalog": c]), file: "in/site.json") }
        XCTAssertTrue(try catalog([:]).seedIndexes)
        XCTAssertFalse(try catalog(["seedIndexes": false]).seedIndexes)
        XCTAssertThrowsError(try catalog(["seedIndexes": "no"])) {
            XCTAssertEqual("\($0)", "in/site.json: field 'catalog.seedIndexes': expected true or false, found string")
        }
        XCTAssertThrowsError(try catalog(["seedIndex": false])) {
            XCTAssertTrue("\($0)".hasPrefix("in/site.json: field 'catalog.seedIndex': unknown key"), "\($0)")
        }
    }
}
