import XCTest
@testable import Schemas

/// Cases the official suite cannot reach: values only code can build, and the pattern memo.
final class FastPathTests: XCTestCase {
    func validator(_ schema: JSON) throws -> JSONSchemaValidator {
        let v = try JSONSchemaValidator(schema: schema)
        XCTAssertTrue(v.hasFastPath)
        return v
    }

    /// A memoised "matches" for an ASCII string must not answer for a canonically equivalent non-ASCII one
    /// (Swift's String == says "K" == KELVIN SIGN; the regex does not).
    func testPatternMemoIsNotFooledByCanonicalEquivalence() throws {
        let v = try validator(["type": "string", "pattern": "^K$"])
        XCTAssertTrue(v.isValid(.string("K")))
        XCTAssertTrue(v.isValid(.string("K")))   // from the memo
        XCTAssertFalse(v.isValid(.string("\u{212A}")))
        XCTAssertFalse(v.validate(.string("\u{212A}")).isEmpty)
    }

    /// An object built in code may repeat a member: a repeated required key must not stand in for a missing one.
    func testRepeatedMemberDoesNotSatisfyAnotherRequiredKey() throws {
        let v = try validator(["type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "integer"]],
                               "required": ["a", "b"]])
        XCTAssertTrue(v.isValid(.object(JSONObject([("a", 1), ("b", 2)]))))
        XCTAssertFalse(v.isValid(.object(JSONObject([("a", 1), ("a", 2)]))))
        XCTAssertFalse(v.isValid(.object(JSONObject([("b", 2)]))))
    }

    /// Required names without a schema of their own: present or not, and their values go to additionalProperties.
    func testRequiredWithoutPropertySchema() throws {
        let v = try validator(["type": "object", "additionalProperties": ["type": "string"], "required": ["get"]])
        XCTAssertTrue(v.isValid(["get": "x"]))
        XCTAssertFalse(v.isValid(["put": "x"]))
        XCTAssertFalse(v.isValid(["get": 1]))
    }

    /// Keywords outside the subset leave the schema to the general evaluator.
    func testOtherKeywordsHaveNoFastPath() throws {
        XCTAssertFalse(try JSONSchemaValidator(schema: ["oneOf": [["type": "string"], ["type": "integer"]]]).hasFastPath)
        XCTAssertFalse(try JSONSchemaValidator(schema: ["type": "array", "uniqueItems": true]).hasFastPath)
    }
}
