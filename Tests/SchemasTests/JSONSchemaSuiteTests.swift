import XCTest
import Foundation
@testable import Schemas
import TestTools

/// The official JSON Schema Test Suite, draft 2020-12 (Tests/Data/json-schema-test-suite).
/// Every required file is its own test; a failing case is named with its group and description.
/// Remote references (`http://localhost:1234/...`) come from the suite's `remotes/` folder, never the network.
final class JSONSchemaSuiteTests: XCTestCase {
    static let suite = Repository.testData("json-schema-test-suite")
    static let tests = suite.appendingPathComponent("tests/draft2020-12")

    static let registry: SchemaRegistry = {
        let r = SchemaRegistry()
        try! r.addFolder(suite.appendingPathComponent("remotes"), baseURI: "http://localhost:1234/")
        return r
    }()

    struct Outcome { var passed = 0; var failures: [String] = [] }

    /// Runs every case of one file; format assertion as the file's location asks (optional/format asserts).
    static func run(_ url: URL, formatAssertion: Bool = false) -> Outcome {
        var out = Outcome()
        guard let data = try? Data(contentsOf: url), let groups = try? JSONReader.parse(data).arrayValue else {
            out.failures.append("\(url.lastPathComponent): cannot read"); return out
        }
        for g in groups {
            let groupName = g["description"]?.stringValue ?? "?"
            let validator: JSONSchemaValidator
            do {
                validator = try JSONSchemaValidator(schema: g["schema"]!, registry: registry, options: .init(formatAssertion: formatAssertion))
            } catch {
                for t in g["tests"]?.arrayValue ?? [] { out.failures.append("\(groupName) / \(t["description"]?.stringValue ?? "?"): schema error \(error)") }
                continue
            }
            for t in g["tests"]?.arrayValue ?? [] {
                let expected = t["valid"]?.boolValue ?? false
                let errors = validator.validate(t["data"]!)
                let fast = validator.isValid(t["data"]!)
                if (errors.isEmpty == expected) && (fast == expected) { out.passed += 1 }
                else { out.failures.append("\(groupName) / \(t["description"]?.stringValue ?? "?"): expected \(expected ? "valid" : "invalid"), got \(errors.isEmpty ? "valid" : "invalid: \(errors.first!)")\(fast != errors.isEmpty ? " (isValid disagrees)" : "")") }
            }
        }
        return out
    }

    func assertSuiteFile(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let r = Self.run(Self.tests.appendingPathComponent(name))
        XCTAssertGreaterThan(r.passed + r.failures.count, 0, "\(name) has no cases", file: file, line: line)
        for f in r.failures { XCTFail("\(name): \(f)", file: file, line: line) }
    }

    static let requiredFiles = ["additionalProperties.json", "allOf.json", "anchor.json", "anyOf.json", "boolean_schema.json", "const.json", "contains.json", "content.json", "default.json", "defs.json", "dependentRequired.json", "dependentSchemas.json", "dynamicRef.json", "enum.json", "exclusiveMaximum.json", "exclusiveMinimum.json", "format.json", "if-then-else.json", "infinite-loop-detection.json", "items.json", "maxContains.json", "maxItems.json", "maxLength.json", "maxProperties.json", "maximum.json", "minContains.json", "minItems.json", "minLength.json", "minProperties.json", "minimum.json", "multipleOf.json", "not.json", "oneOf.json", "pattern.json", "patternProperties.json", "prefixItems.json", "properties.json", "propertyNames.json", "ref.json", "refRemote.json", "required.json", "type.json", "unevaluatedItems.json", "unevaluatedProperties.json", "uniqueItems.json", "vocabulary.json"]

    /// The list above is the whole required suite: a new file cannot be skipped silently.
    func testEveryRequiredFileIsListed() throws {
        let present = try FileManager.default.contentsOfDirectory(atPath: Self.tests.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(present, Self.requiredFiles.sorted())
    }

    func testRequiredSuiteTotal() {
        var passed = 0, failed = 0
        for f in Self.requiredFiles { let r = Self.run(Self.tests.appendingPathComponent(f)); passed += r.passed; failed += r.failures.count }
        print("JSON Schema Test Suite draft2020-12 (required): \(passed) of \(passed + failed) passed")
        XCTAssertEqual(passed, 1299)
        XCTAssertEqual(failed, 0)
    }

    /// The fast path (`FastNode`) on every required case whose schema it takes: a "valid" from it is never wrong,
    /// and it settles nearly every valid instance itself (else it would only add work).
    func testFastPathNeverAcceptsAnInvalidInstance() throws {
        var groups = 0, validSettled = 0, validTotal = 0
        for f in Self.requiredFiles {
            let groupsJSON = try JSONReader.parse(Data(contentsOf: Self.tests.appendingPathComponent(f))).arrayValue ?? []
            for g in groupsJSON {
                guard let v = try? JSONSchemaValidator(schema: g["schema"]!, registry: Self.registry), let fast = v.fast else { continue }
                groups += 1
                for t in g["tests"]?.arrayValue ?? [] {
                    let expected = t["valid"]?.boolValue ?? false
                    let verdict = fast.check(t["data"]!)
                    if verdict && !expected { XCTFail("\(f) / \(g["description"]?.stringValue ?? "?") / \(t["description"]?.stringValue ?? "?"): fast path accepted an invalid instance") }
                    if expected { validTotal += 1; if verdict { validSettled += 1 } }
                }
            }
        }
        print("fast path: \(groups) suite schemas, \(validSettled) of \(validTotal) valid instances settled")
        XCTAssertGreaterThan(groups, 150)
        XCTAssertGreaterThan(Double(validSettled), 0.95 * Double(validTotal))
    }

    /// The fast path over text (`FastNode.check(text:)`) on the same cases, each written compact and pretty: a
    /// "valid" is never wrong, and it settles every valid instance the value walk settles.
    func testTextFastPathNeverAcceptsAnInvalidInstance() throws {
        var checked = 0
        for f in Self.requiredFiles {
            let groupsJSON = try JSONReader.parse(Data(contentsOf: Self.tests.appendingPathComponent(f))).arrayValue ?? []
            for g in groupsJSON {
                guard let v = try? JSONSchemaValidator(schema: g["schema"]!, registry: Self.registry), let fast = v.fast else { continue }
                for t in g["tests"]?.arrayValue ?? [] {
                    let expected = t["valid"]?.boolValue ?? false
                    let name = "\(f) / \(g["description"]?.stringValue ?? "?") / \(t["description"]?.stringValue ?? "?")"
                    for pretty in [false, true] {
                        let text = try JSONWriter(pretty: pretty).bytes(t["data"]!)
                        let verdict = text.withUnsafeBytes { fast.check(text: $0) }
                        if verdict && !expected { XCTFail("\(name): text fast path accepted an invalid instance") }
                        if fast.check(t["data"]!) && !verdict { XCTFail("\(name): settled from the value but not from its text") }
                        XCTAssertEqual(text.withUnsafeBytes { v.isValid(text: $0) }, expected, name)
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 800)
    }

    /// Optional tests and format assertions: counts printed (and recorded in the Validation article), not required.
    func testOptionalSuiteCounts() throws {
        let optional = Self.tests.appendingPathComponent("optional")
        var passed = 0, total = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: optional.path).filter({ $0.hasSuffix(".json") }).sorted() {
            let r = Self.run(optional.appendingPathComponent(f), formatAssertion: f == "format-assertion.json")
            passed += r.passed; total += r.passed + r.failures.count
            for x in r.failures { print("optional \(f): \(x)") }
        }
        print("JSON Schema Test Suite draft2020-12 optional: \(passed) of \(total) passed")
        var fpassed = 0, ftotal = 0
        let formats = optional.appendingPathComponent("format")
        for f in try FileManager.default.contentsOfDirectory(atPath: formats.path).filter({ $0.hasSuffix(".json") }).sorted() {
            let r = Self.run(formats.appendingPathComponent(f), formatAssertion: true)
            fpassed += r.passed; ftotal += r.passed + r.failures.count
            if !r.failures.isEmpty { print("optional/format \(f): \(r.failures.count) failed") }
        }
        print("JSON Schema Test Suite draft2020-12 optional/format (assertion on): \(fpassed) of \(ftotal) passed")
        XCTAssertGreaterThan(total, 0)
        XCTAssertGreaterThan(ftotal, 0)
    }

    func testAdditionalProperties() { assertSuiteFile("additionalProperties.json") }
    func testAllOf() { assertSuiteFile("allOf.json") }
    func testAnchor() { assertSuiteFile("anchor.json") }
    func testAnyOf() { assertSuiteFile("anyOf.json") }
    func testBooleanSchema() { assertSuiteFile("boolean_schema.json") }
    func testConst() { assertSuiteFile("const.json") }
    func testContains() { assertSuiteFile("contains.json") }
    func testContent() { assertSuiteFile("content.json") }
    func testDefault() { assertSuiteFile("default.json") }
    func testDefs() { assertSuiteFile("defs.json") }
    func testDependentRequired() { assertSuiteFile("dependentRequired.json") }
    func testDependentSchemas() { assertSuiteFile("dependentSchemas.json") }
    func testDynamicRef() { assertSuiteFile("dynamicRef.json") }
    func testEnum() { assertSuiteFile("enum.json") }
    func testExclusiveMaximum() { assertSuiteFile("exclusiveMaximum.json") }
    func testExclusiveMinimum() { assertSuiteFile("exclusiveMinimum.json") }
    func testFormat() { assertSuiteFile("format.json") }
    func testIfThenElse() { assertSuiteFile("if-then-else.json") }
    func testInfiniteLoopDetection() { assertSuiteFile("infinite-loop-detection.json") }
    func testItems() { assertSuiteFile("items.json") }
    func testMaxContains() { assertSuiteFile("maxContains.json") }
    func testMaxItems() { assertSuiteFile("maxItems.json") }
    func testMaxLength() { assertSuiteFile("maxLength.json") }
    func testMaxProperties() { assertSuiteFile("maxProperties.json") }
    func testMaximum() { assertSuiteFile("maximum.json") }
    func testMinContains() { assertSuiteFile("minContains.json") }
    func testMinItems() { assertSuiteFile("minItems.json") }
    func testMinLength() { assertSuiteFile("minLength.json") }
    func testMinProperties() { assertSuiteFile("minProperties.json") }
    func testMinimum() { assertSuiteFile("minimum.json") }
    func testMultipleOf() { assertSuiteFile("multipleOf.json") }
    func testNot() { assertSuiteFile("not.json") }
    func testOneOf() { assertSuiteFile("oneOf.json") }
    func testPattern() { assertSuiteFile("pattern.json") }
    func testPatternProperties() { assertSuiteFile("patternProperties.json") }
    func testPrefixItems() { assertSuiteFile("prefixItems.json") }
    func testProperties() { assertSuiteFile("properties.json") }
    func testPropertyNames() { assertSuiteFile("propertyNames.json") }
    func testRef() { assertSuiteFile("ref.json") }
    func testRefRemote() { assertSuiteFile("refRemote.json") }
    func testRequired() { assertSuiteFile("required.json") }
    func testType() { assertSuiteFile("type.json") }
    func testUnevaluatedItems() { assertSuiteFile("unevaluatedItems.json") }
    func testUnevaluatedProperties() { assertSuiteFile("unevaluatedProperties.json") }
    func testUniqueItems() { assertSuiteFile("uniqueItems.json") }
    func testVocabulary() { assertSuiteFile("vocabulary.json") }
}
