import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

/// openapi.json: accepted by openapi-spec-validator (an implementation we did not write, which also resolves every
/// `$ref` to the published schemas), and its path templates and the tree's files cover each other exactly.
final class OpenAPITests: XCTestCase {
    /// A template's paths as a regular expression: each `{parameter}` is one path segment.
    static func regex(_ template: String) -> NSRegularExpression {
        var pattern = "^"
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            pattern += NSRegularExpression.escapedPattern(for: String(rest[..<open])) + "[^/]+"
            rest = rest[rest.index(after: close)...]
        }
        pattern += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        return try! NSRegularExpression(pattern: pattern)
    }

    func assertCoverage(_ dist: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        try Tool.require(.python3, .openAPISpecValidator)
        let doc = try JSONReader.parse(Data(contentsOf: dist.appendingPathComponent("openapi.json")))
        let templates = try XCTUnwrap(doc["paths"]?.objectValue?.keys, file: file, line: line)
        let files = TestSupport.snapshot(dist).keys.map { "/" + $0 }
        let regexes = templates.map { ($0, Self.regex($0)) }
        func matches(_ r: NSRegularExpression, _ s: String) -> Bool { r.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil }
        for f in files where !regexes.contains(where: { matches($0.1, f) }) {
            XCTFail("\(f) matches no path template of openapi.json", file: file, line: line)
        }
        for (t, r) in regexes where !files.contains(where: { matches(r, $0) }) {
            XCTFail("template \(t) matches no file of the tree", file: file, line: line)
        }
        let v = try TestSupport.run(["python3", "-m", "openapi_spec_validator", dist.appendingPathComponent("openapi.json").path])
        XCTAssertEqual(v.status, 0, v.output, file: file, line: line)
        XCTAssertTrue(v.output.contains(": OK"), v.output, file: file, line: line)
        // Self-contained: valid with no base URI (a reference to another file could not be resolved), and every
        // $ref points inside the document.
        let script = """
        import json, sys
        from openapi_spec_validator import validate
        doc = json.load(open(sys.argv[1]))
        validate(doc)
        refs = []
        def walk(x):
            if isinstance(x, dict):
                if isinstance(x.get("$ref"), str): refs.append(x["$ref"])
                for v in x.values(): walk(v)
            elif isinstance(x, list):
                for v in x: walk(v)
        walk(doc)
        outside = [r for r in refs if not r.startswith("#/components/schemas/")]
        assert not outside, outside
        missing = [r for r in refs if r.split("/")[-1] not in doc["components"]["schemas"]]
        assert not missing, missing
        print("self-contained", len(refs), "refs")
        """
        let w = try TestSupport.run(["python3", "-c", script, dist.appendingPathComponent("openapi.json").path])
        XCTAssertEqual(w.status, 0, w.output, file: file, line: line)
        XCTAssertTrue(w.output.contains("self-contained"), w.output, file: file, line: line)
    }

    func testDefaultTreeFirstAndSecondRelease() throws {

        try Tool.require(.python3, .openAPISpecValidator)
        let out = TestSupport.tempDir("openapi").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        try assertCoverage(out)
        // A second release has a delta, so its template appears (and must match the delta file).
        let input = TestSupport.tempDir("openapi-in")
        try FileManager.default.removeItem(at: input)
        try FileManager.default.copyItem(at: TestSupport.defaultInput, to: input)
        let products = input.appendingPathComponent("catalog/products.jsonl")
        var lines = try String(contentsOf: products, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.removeLast()
        try (lines.joined(separator: "\n") + "\n").write(to: products, atomically: true, encoding: .utf8)
        let s = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_086_400))
        XCTAssertEqual(s.version, 2)
        XCTAssertTrue(TestSupport.snapshot(out).keys.contains("releases/2/delta-from-1.json"))
        try assertCoverage(out)
        let doc = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("openapi.json")))
        XCTAssertNotNil(doc["paths"]?["/releases/{version}/delta-from-{oldVersion}.json"])
    }

    func testResponsesReferThePublishedSchemas() throws {
        let out = TestSupport.tempDir("openapi-refs").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let doc = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("openapi.json")))
        let op = try XCTUnwrap(doc["paths"]?["/products/{productId}/details.json"]?["get"])
        XCTAssertEqual(op["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["$ref"], "#/components/schemas/ProductDetails")
        // The embedded schema is the published one (without its $schema and $id, which belong to a standalone file).
        guard case .object(var published) = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("schemas/product-details.schema.json"))) else {
            return XCTFail("schema file")
        }
        XCTAssertNotNil(published["$id"])
        published["$schema"] = nil
        published["$id"] = nil
        XCTAssertEqual(doc["components"]?["schemas"]?["ProductDetails"], .object(published))
        XCTAssertEqual(op["parameters"]?[0]?["name"], "productId")
        // Nested category ids are spread over one parameter per segment (OpenAPI parameters cannot hold "/").
        XCTAssertNotNil(doc["paths"]?["/categories/{categoryId1}/{categoryId2}.json"])
        XCTAssertEqual(doc["servers"]?[0]?["url"]?.stringValue, "https://example.github.io/orange-catalog")
    }

    func testTemplateMatching() {
        let t = OpenAPIDocument.Template("categories/{categoryId}.json")
        XCTAssertEqual(t.match("categories/tools.json"), [1])
        XCTAssertEqual(t.match("categories/tools/power-drills/impact.json"), [3])
        XCTAssertNil(t.match("products/x/details.json"))
        let d = OpenAPIDocument.Template("releases/{version}/delta-from-{oldVersion}.json")
        XCTAssertEqual(d.match("releases/12/delta-from-9.json"), [1, 1])
        XCTAssertEqual(t.expanded([2]).path, "categories/{categoryId1}/{categoryId2}.json")
    }

    func testAFileOutsideItsTemplateIsAnError() {
        let kind = OutputKind(name: "thing", pathTemplate: "things/{id}.json", summary: "x", schema: true)
        XCTAssertThrowsError(try OpenAPIDocument.render(kinds: [kind], files: [("other/a.json", "thing")], site: SiteConfig.placeholder)) { e in
            XCTAssertTrue("\(e)".contains("other/a.json"), "\(e)")
            XCTAssertTrue("\(e)".contains("things/{id}.json"), "\(e)")
        }
    }
}
