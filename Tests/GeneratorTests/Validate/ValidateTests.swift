import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

/// `generator validate` agrees with scripts/check-tree.py (python-jsonschema, an implementation we did not write) on a
/// clean tree and on deliberately corrupted ones; the build refuses to publish a file that breaks its schema.
final class ValidateTests: XCTestCase {
    /// The default tree, built once for the class; each test damages a copy of its own.
    static let built: Result<URL, Error> = Result {
        let out = TestSupport.tempDir("validate-built").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }

    func freshTree() throws -> URL {
        let out = TestSupport.tempDir("validate").appendingPathComponent("dist")
        try FileManager.default.copyItem(at: try Self.built.get(), to: out)
        return out
    }

    /// Both judges' verdicts (exit codes) and output.
    func judge(_ dist: URL) throws -> (ours: (Int32, String), python: (Int32, String)) {
        // (Side by side: each is a process of its own.)
        let both = try TestSupport.judges(dist)
        let ours = try both.ours.get(), python = try both.python.get()
        return ((ours.status, ours.output), (python.status, python.output))
    }

    func assertBothReject(_ dist: URL, mentioning path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (ours, python) = try judge(dist)
        XCTAssertEqual(ours.0, 1, ours.1, file: file, line: line)
        XCTAssertEqual(python.0, 1, python.1, file: file, line: line)
        XCTAssertTrue(ours.1.contains(path), "ours: \(ours.1)", file: file, line: line)
        XCTAssertTrue(python.1.contains(path), "python: \(python.1)", file: file, line: line)
    }

    func testCleanTreeIsValidForBoth() throws {
        try Tool.require(.python3, .jsonschema)
        let (ours, python) = try judge(try freshTree())
        XCTAssertEqual(ours.0, 0, ours.1)
        XCTAssertEqual(python.0, 0, python.1)
        XCTAssertTrue(python.1.hasSuffix("0 failed\n"), python.1)
    }

    /// Every published output schema is checked by the validator's one-walk fast path (only the meta-schema, with its
    /// `$dynamicRef`, needs the general evaluator), so validating 100,000 pages stays cheap.
    func testEveryOutputSchemaHasTheFastPath() throws {
        let dist = try freshTree()
        let folder = dist.appendingPathComponent("schemas")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".schema.json") }.sorted()
        XCTAssertGreaterThan(names.count, 15)
        for name in names {
            let doc = try JSONReader.parse(Data(contentsOf: folder.appendingPathComponent(name)))
            let v = try JSONSchemaValidator(schema: doc, baseURI: doc["$id"]?.stringValue)
            XCTAssertTrue(v.hasFastPath, "\(name) uses a keyword outside the fast path")
        }
    }

    /// A value that breaks the schema, with hashes and sizes updated so only the schema can tell.
    func testCorruptedValue() throws {
        try Tool.require(.python3, .jsonschema)
        let dist = try freshTree()
        let target = "SUMMARY.json"
        var summary = try JSONReader.parse(Data(contentsOf: dist.appendingPathComponent(target)))
        guard case .object(var o) = summary, case .object(var totals)? = o["totals"] else { return XCTFail("no totals") }
        totals["products"] = .string("many")
        o["totals"] = .object(totals); summary = .object(o)
        let bytes = try JSONWriter().bytes(summary)
        try Data(bytes).write(to: dist.appendingPathComponent(target))
        try reindex(dist) { path, entry in path == target ? [("sha256", .string(Build.sha256Hex(bytes))), ("size", .int(bytes.count))] : [] }
        try assertBothReject(dist, mentioning: target)
        let ours = try TestSupport.runCLI(["validate", dist.path, "--format", "json"])
        let report = try JSONReader.parse(ours.output)
        XCTAssertEqual(report["valid"], false)
        XCTAssertTrue(report["problems"]?[0]?["message"]?.stringValue?.contains("/totals/products") == true, ours.output)
    }

    func testCorruptedHash() throws {
        try Tool.require(.python3, .jsonschema)
        let dist = try freshTree()
        let target = dist.appendingPathComponent("categories/index.json")
        var data = try Data(contentsOf: target)
        data.append(contentsOf: Array(" ".utf8))   // still valid JSON, different bytes
        try data.write(to: target)
        try assertBothReject(dist, mentioning: "categories/index.json")
    }

    func testDeletedFile() throws {
        try Tool.require(.python3, .jsonschema)
        let dist = try freshTree()
        try FileManager.default.removeItem(at: dist.appendingPathComponent("deeplink-map.json"))
        try assertBothReject(dist, mentioning: "deeplink-map.json")
    }

    func testStrayFile() throws {
        try Tool.require(.python3, .jsonschema)
        let dist = try freshTree()
        try Data("{}".utf8).write(to: dist.appendingPathComponent("categories/stray.json"))
        try assertBothReject(dist, mentioning: "categories/stray.json")
    }

    func testUsageError() throws {
        XCTAssertEqual(try TestSupport.runCLI(["validate", "/nonexistent/tree"]).status, 2)
    }

    /// Rewrites the file index (and the manifest's reference to it) with changed entries.
    func reindex(_ dist: URL, _ change: (String, JSON) -> [(String, JSON)]) throws {
        let manifestURL = dist.appendingPathComponent("update-manifest.json")
        guard case .object(var manifest) = try JSONReader.parse(Data(contentsOf: manifestURL)),
              case .object(var ref)? = manifest["fileIndex"], let indexPath = ref["path"]?.stringValue else { return XCTFail("manifest") }
        let indexURL = dist.appendingPathComponent(indexPath)
        guard case .object(var index) = try JSONReader.parse(Data(contentsOf: indexURL)), let files = index["files"]?.arrayValue else { return XCTFail("index") }
        index["files"] = .array(files.map { e in
            guard case .object(var o) = e, let p = o["path"]?.stringValue else { return e }
            for (k, v) in change(p, e) { o[k] = v }
            return .object(o)
        })
        let indexBytes = try JSONWriter().bytes(.object(index))
        try Data(indexBytes).write(to: indexURL)
        ref["sha256"] = .string(Build.sha256Hex(indexBytes)); ref["size"] = .int(indexBytes.count)
        manifest["fileIndex"] = .object(ref)
        try Data(try JSONWriter().bytes(.object(manifest))).write(to: manifestURL)
    }

    /// The build refuses a file that breaks its kind's schema, naming file, location and keyword.
    func testBuildRefusesAFileThatBreaksItsSchema() throws {
        struct Broken: Domain {
            var name: String { "broken" }
            static let kind = OutputKind(name: "thing", pathTemplate: "things/{id}.json", summary: "x",
                                         schema: Schema.object(["count": Schema.nonNegativeInteger]))
            func isPresent(in context: BuildContext) -> Bool { true }
            func build(_ context: BuildContext) throws -> DomainResult {
                DomainResult(files: [OutputFile(path: "things/a.json", json: ["count": 1], kind: Self.kind),
                                     OutputFile(path: "things/b.json", json: ["count": -2], kind: Self.kind),
                                     // Deferred files are checked the same way when they are rendered.
                                     OutputFile(path: "things/c.json", kind: Self.kind, weight: 1) { ["count": 3] },
                                     OutputFile(path: "things/d.json", kind: Self.kind, weight: 1) { ["count": "many"] },
                                     // Streamed files are checked from their text: a violation, and text that is not JSON.
                                     OutputFile(path: "things/e.json", kind: Self.kind, weight: 1) { s in s.beginObject(); s.key("count"); s.int(4); s.endObject() },
                                     OutputFile(path: "things/f.json", kind: Self.kind, weight: 1) { s in s.beginObject(); s.key("count"); try s.double(0.5); s.endObject() },
                                     OutputFile(path: "things/g.json", kind: Self.kind, weight: 1) { s in s.beginObject(); s.key("count"); s.int(5) }],
                             kinds: [Self.kind])
            }
        }
        let out = try freshTree()
        let before = TestSupport.snapshot(out)
        XCTAssertThrowsError(try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000),
                                           domains: Build.domains + [Broken()])) { e in
            let m = "\(e)"
            XCTAssertTrue(m.contains("things/b.json") && m.contains("/count") && m.contains("minimum"), m)
            XCTAssertTrue(m.contains("things/d.json") && m.contains("type"), m)
            XCTAssertTrue(m.contains("things/f.json") && m.contains("/count") && m.contains("type"), m)
            XCTAssertTrue(m.contains("things/g.json") && m.contains("not well-formed JSON"), m)
            XCTAssertFalse(m.contains("things/a.json") || m.contains("things/c.json") || m.contains("things/e.json"), m)
        }
        XCTAssertEqual(TestSupport.snapshot(out), before)
    }
}
