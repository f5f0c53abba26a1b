import XCTest
import Foundation
@testable import Generator
import Schemas

/// GitHub Pages' rules, enforced by the build: each offending output is refused with a clear message naming the
/// path and the rule, and the previous tree stays as it was.
final class PagesRulesTests: XCTestCase {
    /// A domain that emits whatever files a test gives it.
    struct Fixture: Domain {
        let files: [(String, OutputFile.Content)]
        /// Files made later (content-named files are: see `DomainResult.later`).
        var late: [String] = []
        var name: String { "fixture" }
        static let kind = OutputKind(name: "fixture", pathTemplate: "{path}", summary: "Test files.", schema: true)
        static let asset = AssetKind(name: "fixture-bytes", pathTemplate: "{path}", mediaType: "application/octet-stream", summary: "Test files.")
        func isPresent(in context: BuildContext) -> Bool { true }
        func build(_ context: BuildContext) throws -> DomainResult {
            DomainResult(files: files.map { path, content in
                switch content {
                case .json(let j): return OutputFile(path: path, json: j, kind: Self.kind)
                case .bytes(let b): return OutputFile(path: path, bytes: b, asset: Self.asset)
                case .deferred(let weight, let render): return OutputFile(path: path, kind: Self.kind, weight: weight, render: render)
                case .streamed(let weight, let write): return OutputFile(path: path, kind: Self.kind, weight: weight, write: write)
                case .fragmented(let weight, let write): return OutputFile(path: path, kind: Self.kind, weight: weight, fragments: write)
                }
            }, kinds: [Self.kind], later: late.isEmpty ? [] : [{ [late] in late.map { OutputFile(path: $0, json: ["late": true], kind: Self.kind) } }])
        }
    }

    let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: [:])

    func build(_ files: [(String, OutputFile.Content)], out: URL) throws -> BuildSummary {
        try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000), domains: [Fixture(files: files)])
    }

    /// Builds a good tree, then the offending one; returns the error text after checking the tree is untouched.
    func refusal(_ files: [(String, OutputFile.Content)], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let out = TestSupport.tempDir("pages").appendingPathComponent("dist")
        _ = try build([("ok.json", .json(["a": 1]))], out: out)
        let before = TestSupport.snapshot(out)
        var message = ""
        XCTAssertThrowsError(try build(files, out: out), file: file, line: line) { message = "\($0)" }
        XCTAssertEqual(TestSupport.snapshot(out), before, "previous tree changed", file: file, line: line)
        return message
    }

    /// A file made later (content-named) at a path a file of the domain has: refused before anything is swapped in.
    func testLateFileClaimingAStagedPath() throws {
        let out = TestSupport.tempDir("pages").appendingPathComponent("dist")
        _ = try build([("ok.json", .json(["a": 1]))], out: out)
        let before = TestSupport.snapshot(out)
        let run = { try Build.run(BuildOptions(input: self.input, output: out, threads: 2, epochSeconds: 1_700_000_000),
                                  domains: [Fixture(files: [("ok.json", .json(["a": 2])), ("b/c.json", .json(["c": 1]))], late: $0)]) }
        XCTAssertThrowsError(try run(["b/c.json"])) { XCTAssertTrue("\($0)".contains("two outputs claim the path b/c.json"), "\($0)") }
        XCTAssertEqual(TestSupport.snapshot(out), before, "previous tree changed")
        XCTAssertNoThrow(try run(["b/d.json"]))
    }

    func testSegmentStartingWithUnderscore() throws {
        let m = try refusal([("_drafts/a.json", .json(["a": 1]))])
        XCTAssertTrue(m.contains("_drafts/a.json") && m.contains("starts with '_' or '.'"), m)
    }

    func testSegmentStartingWithDot() throws {
        let m = try refusal([("products/.hidden.json", .json(["a": 1]))])
        XCTAssertTrue(m.contains("products/.hidden.json") && m.contains("starts with '_' or '.'"), m)
    }

    func testSpaceInPath() throws {
        let m = try refusal([("products/red drill.json", .json(["a": 1]))])
        XCTAssertTrue(m.contains("products/red drill.json") && m.contains("percent-encoding"), m)
    }

    func testNonASCIIAndReservedCharacters() throws {
        for path in ["products/café.json", "products/a?b.json", "products/50%.json", "products/a#b.json"] {
            let m = try refusal([(path, .json(["a": 1]))])
            XCTAssertTrue(m.contains(path) && m.contains("percent-encoding"), m)
        }
    }

    func testFileOver100MBIsRefused() throws {
        let m = try refusal([("big.bin", .bytes([UInt8](repeating: 0x20, count: PagesRules.maxFileBytes + 1)))])
        XCTAssertTrue(m.contains("big.bin is 100.0 MB, over GitHub Pages' 100 MB file limit: make it smaller or set target to object-storage"), m)
    }

    func testFileOver50MBIsWarned() throws {
        let out = TestSupport.tempDir("pages-warn").appendingPathComponent("dist")
        let s = try build([("large.bin", .bytes([UInt8](repeating: 0x20, count: PagesRules.warnFileBytes + 1)))], out: out)
        XCTAssertEqual(s.warnings.count, 1)
        XCTAssertTrue(s.warnings[0].contains("large.bin") && s.warnings[0].contains("50 MB"), s.warnings[0])
    }

    /// The 1 GB limit is checked on sizes alone (making a real 1 GB tree in a unit test would only measure the disk).
    func testTreeOver1GBIsRefused() throws {
        let files = (0..<11).map { (path: "part-\($0).bin", size: 99 * 1_048_576) }
        XCTAssertThrowsError(try PagesRules.check(files)) { e in
            XCTAssertTrue("\(e)".contains("over GitHub Pages' 1 GB site limit: set target to object-storage"), "\(e)")
        }
        XCTAssertNoThrow(try PagesRules.check(Array(files.prefix(10))))
    }

    func testTreeHasNoJekyllMarker404PageAndSizeReport() throws {
        let out = TestSupport.tempDir("pages-ok").appendingPathComponent("dist")
        let s = try build([("ok.json", .json(["a": 1]))], out: out)
        let tree = TestSupport.snapshot(out)
        XCTAssertEqual(tree[".nojekyll"], Data())
        let html = String(decoding: try XCTUnwrap(tree["404.html"]), as: UTF8.self)
        XCTAssertTrue(html.contains("update-manifest.json") && html.hasPrefix("<!doctype html>"), html)
        XCTAssertTrue(s.bytesByKind.contains { $0.kind == "fixture" && $0.files == 1 })
        // Both are listed in the file index, so apps and `generator validate` see them.
        let index = try JSONReader.parse(XCTUnwrap(tree["releases/1/files.json"]))
        let paths = index["files"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        XCTAssertTrue(paths.contains("404.html") && paths.contains(".nojekyll"), "\(paths)")
    }

    func testSiteNameIsEscapedIn404Page() {
        var site = SiteConfig.placeholder
        site.siteName = "Tom & <Jerry>"
        let html = String(decoding: NotFoundPage.render(site: site), as: UTF8.self)
        XCTAssertTrue(html.contains("Tom &amp; &lt;Jerry&gt;"))
        XCTAssertFalse(html.contains("<Jerry>"))
    }
}
