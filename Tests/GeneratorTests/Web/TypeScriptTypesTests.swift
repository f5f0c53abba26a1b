import XCTest
import TestTools
import Foundation
@testable import Generator
import Indexer
import Schemas

/// `types/index.d.ts` of the default tree, checked by the TypeScript compiler (`tsc --noEmit --strict`): the app
/// program committed in Tests/Web/types reads every kind with it, and one file of each kind of the tree, written
/// as a literal of its kind's type, type-checks (so the types accept the real files, closed objects included); a
/// file with a field missing, one too many and one of the wrong type does not. The program then runs in Node over
/// the tree.
final class TypeScriptTypesTests: XCTestCase {
    static let tree: Result<URL, Error> = Result {
        let out = TestSupport.tempDir("ts-default").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }

    func testDefaultTreeTypeChecksWithTsc() throws {
        try Tool.require(.tsc, .node)
        let tree = try Self.tree.get()
        let dir = TestSupport.tempDir("ts-check")
        try FileManager.default.copyItem(at: tree.appendingPathComponent("types/index.d.ts"), to: dir.appendingPathComponent("index.d.ts"))
        try FileManager.default.copyItem(at: tree.appendingPathComponent("search/search.js"), to: dir.appendingPathComponent("search.js"))
        try FileManager.default.copyItem(at: tree.appendingPathComponent("flags/flags.js"), to: dir.appendingPathComponent("flags.js"))
        try FileManager.default.copyItem(at: WebTools.folder.appendingPathComponent("types/app.ts"), to: dir.appendingPathComponent("app.ts"))

        // The smallest file of each kind the file index lists, as a literal of its kind's type.
        let manifest = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent("update-manifest.json")))
        let index = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent(XCTUnwrap(manifest["fileIndex"]?["path"]?.stringValue))))
        var smallest: [String: (path: String, size: Int)] = [:]
        for f in index["files"]?.arrayValue ?? [] {
            guard let schema = f["schema"]?.stringValue, let path = f["path"]?.stringValue, let size = f["size"]?.intValue else { continue }
            let kind = schema.hasPrefix("schemas/") ? String(schema.dropFirst("schemas/".count).dropLast(".schema.json".count)) : "json-schema"
            if smallest[kind].map({ size < $0.size }) ?? true { smallest[kind] = (path, size) }
        }
        smallest["update-manifest"] = ("update-manifest.json", 0)
        smallest["file-index"] = (manifest["fileIndex"]!["path"]!.stringValue!, 0)
        var samples = "import type { Kinds } from \"./index\";\n"
        for (i, (kind, f)) in smallest.sorted(by: { $0.key < $1.key }).enumerated() {
            let text = try String(contentsOf: tree.appendingPathComponent(f.path), encoding: .utf8)
            samples += "// \(f.path)\nexport const sample\(i): Kinds[\(TypeScriptTypes.literal(.string(kind)))] = \(text);\n"
        }
        try samples.write(to: dir.appendingPathComponent("samples.ts"), atomically: true, encoding: .utf8)
        // Every kind of the tree has a sample, and the program reads every kind the types declare.
        let declared = try String(contentsOf: dir.appendingPathComponent("index.d.ts"), encoding: .utf8)
        let kinds = declared.components(separatedBy: "export interface Kinds {\n")[1].split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("  \"") ? String(line.dropFirst(3).prefix { $0 != "\"" }) : nil
        }
        // (A first release has no delta file, a small ranked index no term, store or column directories, which appear
        // above 8 entries, and an index without a field of ranges or thresholds no columns: the program reads their
        // types all the same.)
        let mayLack = ["search-term-directory", "search-store-directory", "search-column-directory", "search-columns"]
        let absent = Set(kinds.filter { k in mayLack.contains { k.hasSuffix($0) } }).subtracting(smallest.keys)
        XCTAssertEqual(Set(kinds), Set(smallest.keys).union(["delta"]).union(absent))
        let program = try String(contentsOf: dir.appendingPathComponent("app.ts"), encoding: .utf8)
        for k in kinds { XCTAssertTrue(program.contains("load(base, \"\(k)\""), "app.ts reads no \(k)") }
        for name in ["ProductDetail", "CategoryResponse", "TotalsAnalysisResponse", "PropertyResponse", "AppConfig", "UpdateManifest",
                     "FeaturedContent", "CategoryIndex", "SearchIndex", "TeamStanding", "Game", "PlayerStats", "Property", "PropertyListData", "School",
                     "TotalsAnalysisGame", "MonteCarloResult", "EVMetrics", "Product", "Category", "SearchProduct"] {
            XCTAssertTrue(declared.contains("export type \(name) = "), name)
        }

        // A wrong product page: a field missing, one too many, one of the wrong type.
        var bad = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent(smallest["product-details"]!.path)))
        guard case .object(var o) = bad else { return XCTFail("product page") }
        o["title"] = nil
        o["colour"] = "red"
        o["description"] = 42
        bad = .object(o)
        try ("import type { ProductDetail } from \"./index\";\nexport const wrong: ProductDetail = \(bad.compactText);\n")
            .write(to: dir.appendingPathComponent("wrong.ts"), atomically: true, encoding: .utf8)

        let r = try TestSupport.run(["tsc", "--noEmit", "--strict", "--allowJs", "--target", "es2022", "--module", "es2022",
                                     "--moduleResolution", "node", "--lib", "es2022,dom", "app.ts", "samples.ts", "wrong.ts"], cwd: dir)
        let errors = r.output.split(separator: "\n").filter { $0.contains("error TS") }
        XCTAssertEqual(errors.filter { !$0.hasPrefix("wrong.ts") }, [], "app.ts or a real file fails its type:\n" + r.output.prefix(3000))
        // The wrong page is refused (tsc reports the first problem of a literal: the extra field).
        XCTAssertTrue(errors.contains { $0.hasPrefix("wrong.ts") }, r.output)
        XCTAssertNotEqual(r.status, 0)

        // The program also runs: compiled to JavaScript and run in Node over the tree's files, it reads every kind
        // (a path or field the types allowed but the tree lacked would throw), and its search is the reference's.
        let built = try TestSupport.run(["tsc", "--strict", "--allowJs", "--target", "es2022", "--module", "es2022", "--moduleResolution", "node",
                                         "--lib", "es2022,dom", "--outDir", "out", "app.ts"], cwd: dir)
        XCTAssertEqual(built.status, 0, built.output)
        let ran = try TestSupport.run(["node", WebTools.folder.appendingPathComponent("types/run.mjs").path, "out", tree.path], cwd: dir)
        XCTAssertEqual(ran.status, 0, ran.output)
        let lines = ran.output.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("version ") == true, ran.output)
        let hits = try TreeSearch.run(dist: tree, query: "cordless drill", index: .ranked, limit: 5)
        XCTAssertTrue(lines.contains("\(hits.total) results: " + hits.hits.map(\.name).joined(separator: ", ")), ran.output)
        let filtered = try TreeSearch.run(dist: tree, request: Query.Request("drill", filters: ["price": ["50..200"], "rating": ["4"]], sort: "price",
                                                                           limit: 3, facets: true), index: .ranked)
        XCTAssertGreaterThan(filtered.total, 0)
        XCTAssertTrue(lines.contains("\(filtered.total) filtered\(filtered.partial ? " (partly)" : ""): "
                                     + filtered.facets.map { "\($0.field) \($0.values.first?.label ?? "-")" }.joined(separator: ", ")), ran.output)
        XCTAssertGreaterThanOrEqual(lines.count, 20, ran.output)
    }

    /// Every index folder of the default tree has the module (the same bytes, those of the template) and the page,
    /// listed in the file index like every other file.
    func testEveryIndexFolderHasTheModuleAndThePage() throws {
        let tree = try Self.tree.get()
        let template = try Data(contentsOf: TestSupport.repoRoot.appendingPathComponent("Sources/Generator/Web/search.js"))
        let manifest = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent("update-manifest.json")))
        let index = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent(XCTUnwrap(manifest["fileIndex"]?["path"]?.stringValue))))
        let listed = Set((index["files"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue })
        for folder in ["search", "collections/listings/search", "collections/schools/search"] {
            XCTAssertEqual(try Data(contentsOf: tree.appendingPathComponent("\(folder)/search.js")), template, folder)
            let page = try String(contentsOf: tree.appendingPathComponent("\(folder)/index.html"), encoding: .utf8)
            XCTAssertTrue(page.contains("import { search, treeURL, fields } from \"./search.js\""), folder)
            XCTAssertFalse(page.contains("{{title}}"), folder)
            XCTAssertTrue(listed.isSuperset(of: ["\(folder)/search.js", "\(folder)/index.html", "\(folder)/meta.json"]), folder)
        }
        XCTAssertTrue(listed.contains(TypeScriptTypes.path))
        XCTAssertTrue(try String(contentsOf: tree.appendingPathComponent("search/index.html"), encoding: .utf8).contains("<title>Search Orange Catalog</title>"))
        XCTAssertTrue(try String(contentsOf: tree.appendingPathComponent("collections/listings/search/index.html"), encoding: .utf8)
            .contains("<title>Search Property listings</title>"))
    }
}
