import XCTest
import Foundation
@testable import Generator
import Schemas

final class SchemaChangeRuleTests: XCTestCase {
    let base: JSON = Schema.object(["id": Schema.string, "price": Schema.number, "status": Schema.enumeration(["a", "b"]), "note": Schema.optional(Schema.string)])

    func classify(_ new: JSON) -> [SchemaChange] { SchemaChanges.compare(kind: "k", old: base, new: new) }

    func testAddedOptionalFieldIsCompatible() {
        let c = classify(Schema.object(["id": Schema.string, "price": Schema.number, "status": Schema.enumeration(["a", "b"]), "note": Schema.optional(Schema.string), "extra": Schema.optional(Schema.integer)]))
        XCTAssertEqual(c.map(\.rule), ["optional property added"])
        XCTAssertFalse(c[0].breaking)
    }
    func testRemovedRequiredFieldIsBreaking() {
        let c = classify(Schema.object(["id": Schema.string, "status": Schema.enumeration(["a", "b"]), "note": Schema.optional(Schema.string)]))
        XCTAssertEqual(c.map(\.rule), ["required property removed"])
        XCTAssertTrue(c[0].breaking)
    }
    func testRenamedFieldIsBreaking() {
        let c = classify(Schema.object(["id": Schema.string, "cost": Schema.number, "status": Schema.enumeration(["a", "b"]), "note": Schema.optional(Schema.string)]))
        XCTAssertTrue(c.contains { $0.rule == "required property removed" && $0.breaking })
    }
    func testChangedTypeIsBreaking() {
        let c = classify(Schema.object(["id": Schema.string, "price": Schema.string, "status": Schema.enumeration(["a", "b"]), "note": Schema.optional(Schema.string)]))
        XCTAssertEqual(c.count, 1)
        XCTAssertTrue(c[0].breaking)
        XCTAssertTrue(c[0].rule.hasPrefix("type changed"))
    }
    func testNarrowedTypeIsBreaking() {
        let old = Schema.object(["v": Schema.nullable(Schema.number)]), new = Schema.object(["v": Schema.number])
        let c = SchemaChanges.compare(kind: "k", old: old, new: new)
        XCTAssertTrue(c.contains { $0.rule.hasPrefix("type narrowed") && $0.breaking })
    }
    func testEnumValueRemovedIsBreakingAddedIsNot() {
        let c = classify(Schema.object(["id": Schema.string, "price": Schema.number, "status": Schema.enumeration(["a", "c"]), "note": Schema.optional(Schema.string)]))
        XCTAssertTrue(c.contains { $0.rule == #"enum value "b" removed"# && $0.breaking })
        XCTAssertTrue(c.contains { $0.rule == #"enum value "c" added"# && !$0.breaking })
    }
}

final class DiffCommandTests: XCTestCase {
    func build() throws -> URL {
        let out = TestSupport.tempDir("diff").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }
    func copy(_ tree: URL) throws -> URL {
        let dest = TestSupport.tempDir("copy").appendingPathComponent("dist")
        try FileManager.default.copyItem(at: tree, to: dest)
        return dest
    }
    func editSchema(_ tree: URL, _ name: String, _ edit: (inout JSONObject) -> Void) throws {
        let url = tree.appendingPathComponent("schemas/\(name).schema.json")
        var o = try JSONReader.parse(Data(contentsOf: url)).objectValue!
        edit(&o)
        try Data(JSONWriter().bytes(.object(o))).write(to: url)
    }

    func testExitCodes() throws {
        let a = try build(), b = try copy(a)
        XCTAssertEqual(try TestSupport.runCLI(["diff", a.path, b.path]).status, 0)
        try Data("{}".utf8).write(to: b.appendingPathComponent("SUMMARY.json"))
        let r = try TestSupport.runCLI(["diff", a.path, b.path])
        XCTAssertEqual(r.status, 1, r.output)
        XCTAssertTrue(r.output.contains("0 added, 1 changed, 0 removed"), r.output)
        XCTAssertEqual(try TestSupport.runCLI(["diff", a.path, "/nonexistent/tree"]).status, 2)
    }

    func testMarkdownShowsCountsAndNotableChanges() throws {
        let a = try build(), b = try copy(a)
        // Reprice one product and remove another.
        let detail = b.appendingPathComponent("products/300179/details.json")
        var o = try JSONReader.parse(Data(contentsOf: detail)).objectValue!
        o["pricing"] = .obj(["currentPrice": 80.5, "currency": "USD"])
        try Data(JSONWriter().bytes(.object(o))).write(to: detail)
        try FileManager.default.removeItem(at: b.appendingPathComponent("products/300249"))
        let r = try TestSupport.runCLI(["diff", "--format", "markdown", a.path, b.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.output.contains("| output kind | added | changed | removed |"), r.output)
        XCTAssertTrue(r.output.contains("| product-details | 0 | 1 | 1 |"), r.output)
        XCTAssertTrue(r.output.contains("`300179`: 73.97 → 80.5"), r.output)
        XCTAssertTrue(r.output.contains("Products removed (1): `300249`"), r.output)
        // Data changes alone are not breaking.
        XCTAssertEqual(try TestSupport.runCLI(["diff", "--fail-on", "breaking", a.path, b.path]).status, 0)
    }

    func testFailOnBreaking() throws {
        let a = try build()
        let compatible = try copy(a)
        try editSchema(compatible, "summary") { o in
            var props = o["properties"]!.objectValue!; props.append("newField", ["type": "string"]); o["properties"] = .object(props)
        }
        let r1 = try TestSupport.runCLI(["diff", "--fail-on", "breaking", a.path, compatible.path])
        XCTAssertEqual(r1.status, 0, r1.output)
        XCTAssertTrue(r1.output.contains("optional property added [compatible]"), r1.output)

        let removedRequired = try copy(a)
        try editSchema(removedRequired, "summary") { o in
            var props = o["properties"]!.objectValue!; props["dataVersion"] = nil; o["properties"] = .object(props)
            o["required"] = .array(o["required"]!.arrayValue!.filter { $0 != "dataVersion" })
        }
        let r2 = try TestSupport.runCLI(["diff", "--fail-on", "breaking", a.path, removedRequired.path])
        XCTAssertEqual(r2.status, 1, r2.output)
        XCTAssertTrue(r2.output.contains("required property removed [breaking]"), r2.output)

        let changedType = try copy(a)
        try editSchema(changedType, "summary") { o in
            var props = o["properties"]!.objectValue!; props["dataVersion"] = ["type": "integer"]; o["properties"] = .object(props)
        }
        let r3 = try TestSupport.runCLI(["diff", "--fail-on", "breaking", "--format", "json", a.path, changedType.path])
        XCTAssertEqual(r3.status, 1, r3.output)
        let j = try JSONReader.parse(r3.output)
        XCTAssertEqual(j["breaking"]?.arrayValue?.count, 1)
    }
}
