import XCTest
import Foundation
@testable import Generator
import FaultServerSupport

/// The documentation's runnable examples (`Snippets/`, shown in each library's DocC catalog) run and do what their
/// text says: they are built with the tests, so an API change that breaks one fails the build, and a change of what
/// they print fails here.
final class SnippetTests: XCTestCase {
    func run(_ name: String, _ args: [String] = []) throws -> (status: Int32, output: String) {
        try TestSupport.run([TestSupport.builtExecutable(name).path] + args)
    }

    func testSchemasValidate() throws {
        let r = try run("SchemasValidate")
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertEqual(r.output.split(separator: "\n").map(String.init), [
            "good is valid: true",
            "bad: /id violates /properties/id/minLength: is 0 characters long, less than 1",
            "bad: /price violates /properties/price/minimum: -1 is less than 0",
            #"{"price":19.990,"id":"p-1"}"#,
        ])
    }

    func testIndexerSearch() throws {
        let r = try run("IndexerSearch")
        XCTAssertEqual(r.status, 0, r.output)
        // The prefix finds the drills (their "drill" scores are one step of the 6 % grid, so they come in document
        // order); a brand query finds its product; only the files those queries needed.
        XCTAssertTrue(r.output.contains(#"dril: 2 found: ["DEWALT 20V Cordless Drill", "Hammer Drill Kit"]"#), r.output)
        XCTAssertTrue(r.output.contains(#"DEWALT: 1 found: ["DEWALT 20V Cordless Drill"]"#), r.output)
        XCTAssertTrue(r.output.contains(#"hose: 1 found: ["Garden Hose 50 ft"]"#), r.output)
        let counts = try XCTUnwrap(r.output.split(separator: "\n").first { $0.hasPrefix("files downloaded: ") }, r.output)
            .dropFirst("files downloaded: ".count).split(separator: " ").compactMap { Int($0) }
        XCTAssertEqual(counts.count, 2, r.output)
        XCTAssertLessThan(counts.first ?? 0, counts.last ?? 0, r.output)
        XCTAssertGreaterThan(counts.first ?? 0, 1, r.output)
    }

    /// The build snippet builds a small catalog, then finds nothing changed; the sync snippet copies that tree from a
    /// server on 127.0.0.1 and finds it current the second time.
    func testGeneratorBuildAndTreeClientSync() throws {
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": ["p1", "p2", "p3"].map { TestSupport.productLine($0) }.joined(separator: "\n") + "\n",
                                                  "catalog/categories.json": TestSupport.categoriesJSON])
        let out = TestSupport.tempDir("snippet").appendingPathComponent("dist")
        let first = try run("GeneratorBuild", [input.path, out.path])
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.output.hasPrefix("version 1 ("), first.output)
        XCTAssertTrue(first.output.contains("catalog: products read: 3"), first.output)
        let again = try run("GeneratorBuild", [input.path, out.path])
        XCTAssertEqual(again.output, "no content changes: still version 1\n" + again.output.split(separator: "\n").dropFirst().map { $0 + "\n" }.joined())

        let server = try FaultServer(root: out)
        defer { server.stop() }
        let copy = TestSupport.tempDir("snippet-copy").appendingPathComponent("copy")
        let synced = try run("TreeClientSync", [server.base.absoluteString, copy.path])
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertTrue(synced.output.hasPrefix("version none → 1"), synced.output)
        XCTAssertEqual(ReleaseLoop.differences(copy, out), [])
        let current = try run("TreeClientSync", [server.base.absoluteString, copy.path])
        XCTAssertTrue(current.output.hasPrefix("already current at version 1"), current.output)
        let bad = try run("TreeClientSync", [server.base.absoluteString])
        XCTAssertEqual(bad.status, 2, bad.output)
    }

    /// The flags snippet evaluates the default input's flags: an iOS 3.1.2 install is blocked, every flag printed.
    func testTreeClientFlags() throws {
        let flags = try String(contentsOf: TestSupport.repoRoot.appendingPathComponent("input/flags.json"), encoding: .utf8)
        let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: ["flags.json": flags])
        let out = TestSupport.tempDir("snippet-flags").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let r = try run("TreeClientFlags", [out.path, "install-42", "ios", "3.1.2"])
        XCTAssertEqual(r.status, 0, r.output)
        let lines = r.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "update: this version must be updated")
        XCTAssertEqual(lines.filter { $0.contains(" = ") }.map { String($0.prefix { $0 != " " }) },
                       ["new_checkout", "search_filters", "ar_preview", "home_banner", "payments_v2"])
        XCTAssertTrue(lines.contains("search_filters = true"), r.output)
        let none = try run("TreeClientFlags", [input.path, "install-42"])
        XCTAssertEqual(none.status, 1, none.output)
        XCTAssertTrue(none.output.hasPrefix("no flags: "), none.output)
    }
}
