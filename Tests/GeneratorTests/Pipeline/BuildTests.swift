import XCTest
import Foundation
@testable import Generator
import Schemas

final class BuildDeterminismTests: XCTestCase {
    func build(_ input: URL, _ out: URL, threads: Int, epoch: Int) throws -> BuildSummary {
        try Build.run(BuildOptions(input: input, output: out, threads: threads, epochSeconds: epoch))
    }

    func testSameInputSameBytesWhateverTheThreadCount() throws {
        let a = TestSupport.tempDir("a").appendingPathComponent("dist"), b = TestSupport.tempDir("b").appendingPathComponent("dist")
        _ = try build(TestSupport.defaultInput, a, threads: 1, epoch: 1_700_000_000)
        // (On two threads the file index is written in two halves: here too, though it lists a few hundred files.)
        let halves = ReleaseFiles.indexInHalvesFrom
        ReleaseFiles.indexInHalvesFrom = 16
        defer { ReleaseFiles.indexInHalvesFrom = halves }
        _ = try build(TestSupport.defaultInput, b, threads: 2, epoch: 1_700_000_000)
        let sa = TestSupport.snapshot(a), sb = TestSupport.snapshot(b)
        XCTAssertGreaterThan(sa.count, 300)
        XCTAssertEqual(Set(sa.keys), Set(sb.keys))
        for (k, v) in sa { XCTAssertEqual(v, sb[k], k) }
    }

    func testLaterDateChangesNoProductOrCategoryPage() throws {
        let a = TestSupport.tempDir("a").appendingPathComponent("dist"), b = TestSupport.tempDir("b").appendingPathComponent("dist")
        _ = try build(TestSupport.defaultInput, a, threads: 2, epoch: 1_700_000_000)
        _ = try build(TestSupport.defaultInput, b, threads: 2, epoch: 1_800_000_000)
        let sa = TestSupport.snapshot(a), sb = TestSupport.snapshot(b)
        let pages = sa.keys.filter { $0.hasPrefix("products/") || $0.hasPrefix("categories/") }
        XCTAssertGreaterThan(pages.count, 250)
        for p in pages { XCTAssertEqual(sa[p], sb[p], p) }
        // The build time does show where it belongs.
        XCTAssertNotEqual(sa["app-config.json"], sb["app-config.json"])
    }

    /// A killed build leaves its staging folder behind; the next build removes it, but never a folder without the
    /// marker a build writes (more in StagingLeftoverTests).
    func testAbandonedStagingFoldersAreRemoved() throws {
        let parent = TestSupport.tempDir("abandoned")
        let out = parent.appendingPathComponent("dist")
        let fm = FileManager.default
        // A pid above the kernel's pid_max is never alive; pid 1 always is, but its folder has no marker.
        let dead = parent.appendingPathComponent(".dist.staging-99999999"), live = parent.appendingPathComponent(".dist.staging-1")
        for d in [dead, live] {
            try fm.createDirectory(at: d.appendingPathComponent("products/x"), withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: d.appendingPathComponent("products/x/details.json"))
        }
        try Data("\(StagedTree.markerHeader)\n".utf8).write(to: dead.appendingPathComponent(StagedTree.markerName))
        _ = try build(TestSupport.defaultInput, out, threads: 2, epoch: 1_700_000_000)
        XCTAssertFalse(fm.fileExists(atPath: dead.path))
        XCTAssertTrue(fm.fileExists(atPath: live.path))
        XCTAssertTrue(fm.fileExists(atPath: out.appendingPathComponent("update-manifest.json").path))
    }

    func testNoChangeRebuildWritesNothing() throws {
        let out = TestSupport.tempDir("n").appendingPathComponent("dist")
        let first = try build(TestSupport.defaultInput, out, threads: 2, epoch: 1_700_000_000)
        XCTAssertTrue(first.changed)
        let before = TestSupport.snapshot(out)
        let mtime = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("update-manifest.json").path)[.modificationDate] as! Date
        let second = try build(TestSupport.defaultInput, out, threads: 2, epoch: 1_800_000_000)
        XCTAssertFalse(second.changed)
        XCTAssertEqual(second.version, first.version)
        XCTAssertEqual(TestSupport.snapshot(out), before)
        let mtime2 = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("update-manifest.json").path)[.modificationDate] as! Date
        XCTAssertEqual(mtime, mtime2)
    }
}

/// Bad input: a clear error naming file, line and field; non-zero exit; previous dist untouched.
final class BadInputTests: XCTestCase {
    let cats = TestSupport.categoriesJSON

    /// The default input's tree and its cache, built once for every case.
    static let goodTree: URL = {
        let out = TestSupport.tempDir("good").appendingPathComponent("dist")
        _ = try! Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }()

    func assertFails(_ input: URL, mentions expected: [String], absent: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let out = TestSupport.tempDir("bad").appendingPathComponent("dist")
        // A good previous tree first (a copy of one built once, with its cache).
        try FileManager.default.copyItem(at: Self.goodTree, to: out)
        try FileManager.default.copyItem(at: BuildCache.location(for: Self.goodTree, folder: nil), to: BuildCache.location(for: out, folder: nil))
        let before = TestSupport.snapshot(out)
        let cache = try Data(contentsOf: BuildCache.location(for: out, folder: nil))
        let result = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: ["SOURCE_DATE_EPOCH": "1700000001"])
        XCTAssertNotEqual(result.status, 0, result.output, file: file, line: line)
        for e in expected { XCTAssertTrue(result.output.contains(e), "expected '\(e)' in: \(result.output)", file: file, line: line) }
        for e in absent { XCTAssertFalse(result.output.contains(e), "did not expect '\(e)' in: \(result.output)", file: file, line: line) }
        XCTAssertEqual(TestSupport.snapshot(out), before, "previous dist changed", file: file, line: line)
        // The build cache beside it is the good build's, unchanged; nothing else is left.
        XCTAssertEqual(try Data(contentsOf: BuildCache.location(for: out, folder: nil)), cache, "build cache changed", file: file, line: line)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path).filter { $0 != "dist" && $0 != ".dist.cache" }
        XCTAssertEqual(leftovers, [], "staging left behind", file: file, line: line)
    }

    func testMalformedJSONLine() throws {
        let lines = [TestSupport.productLine("1"), #"{"id":"2","name": oops}"#, TestSupport.productLine("3")].joined(separator: "\n")
        try assertFails(TestSupport.makeInput(files: ["catalog/products.jsonl": lines, "catalog/categories.json": cats]),
                        mentions: ["catalog/products.jsonl:2:", "malformed JSON Lines record"])
    }

    func testCSVUnterminatedQuote() throws {
        let csv = "id,name,price,category\n1,Drill,19.99,tools/drills\n2,\"Saw with a quote,29.99,tools\n3,Sander,9.99,tools\n"
        let input = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c["products"] = "catalog/products.csv"; s["catalog"] = c
        }, files: ["catalog/products.csv": csv, "catalog/categories.json": cats])
        try assertFails(input, mentions: ["catalog/products.csv:3:", "unterminated quoted field"])
    }

    /// A duplicate id fails naming its line, the field and the first line; every later claim names the first line (not
    /// the previous claimant), for ids and for case-insensitive paths.
    func testEveryDuplicateNamesTheFirstLine() throws {
        let lines = [TestSupport.productLine("7"), TestSupport.productLine("Ab"), TestSupport.productLine("7"), TestSupport.productLine("7"),
                     TestSupport.productLine("ab"), TestSupport.productLine("AB")].joined(separator: "\n")
        try assertFails(TestSupport.makeInput(files: ["catalog/products.jsonl": lines, "catalog/categories.json": cats]),
                        mentions: ["catalog/products.jsonl:3:", "catalog/products.jsonl:4:", "field 'id'", "duplicate product id \"7\" (first seen on line 1)",
                                   "catalog/products.jsonl:5:", "catalog/products.jsonl:6:", "same file as \"Ab\""],
                        absent: ["first seen on line 3", "same file as \"ab\""])
    }

    func testPriceNotANumber() throws {
        let lines = [TestSupport.productLine("1"), TestSupport.productLine("2", price: "\"abc\"")].joined(separator: "\n")
        try assertFails(TestSupport.makeInput(files: ["catalog/products.jsonl": lines, "catalog/categories.json": cats]),
                        mentions: ["catalog/products.jsonl:2:", "field 'price'", "\"abc\""])
    }

    func testPathTraversalId() throws {
        let lines = [TestSupport.productLine("1"), TestSupport.productLine("../../etc/passwd")].joined(separator: "\n")
        try assertFails(TestSupport.makeInput(files: ["catalog/products.jsonl": lines, "catalog/categories.json": cats]),
                        mentions: ["catalog/products.jsonl:2:", "field 'id'", "../../etc/passwd"])
    }

    func testCategoryCycle() throws {
        let cycle = #"{"categories": [{"id": "tools", "name": "Tools"}, {"id": "garden", "name": "Garden", "parent": "yard"}, "#
            + #"{"id": "yard", "name": "Yard", "parent": "garden"}]}"#
        try assertFails(TestSupport.makeInput(files: ["catalog/products.jsonl": TestSupport.productLine("1"), "catalog/categories.json": cycle]),
                        mentions: ["catalog/categories.json:1:", "field 'parent'", "category \"garden\" is its own ancestor (garden → yard → garden)"])
    }

    func testUnknownSiteKey() throws {
        let input = TestSupport.makeInput(site: { $0["pageSzie"] = 20 }, files: ["catalog/products.jsonl": TestSupport.productLine("1"), "catalog/categories.json": cats])
        try assertFails(input, mentions: ["site.json", "field 'pageSzie'", "unknown key"])
    }
}
