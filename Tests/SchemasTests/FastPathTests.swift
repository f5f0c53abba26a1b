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

    // MARK: Text

    func textVerdict(_ v: JSONSchemaValidator, _ text: [UInt8]) -> Bool { text.withUnsafeBytes { v.fast!.check(text: $0) } }

    /// Only one well-formed JSON value passes: the text walk is the only parse a streamed file gets before publishing.
    func testTextWalkRejectsMalformedText() throws {
        let v = try validator(["type": "object", "additionalProperties": true])
        let good = [#" {"a": [1, 2.5e3, -0, 0.5E-2, true, false, null, "é\n\u00e9\/"], "b": {}} "#, "{}", #"{"":[]}"#]
        for t in good { XCTAssertTrue(textVerdict(v, Array(t.utf8)), t) }
        let bad = [#"{"a":1,}"#, #"{"a":[1,]}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":.5}"#, #"{"a":1e}"#,
                   "{\"a\":\"\u{01}\"}", #"{"a":"\q"}"#, #"{"a":"\u12G4"}"#, #"{"a" 1}"#, #"{"a":[1 2]}"#, #"{"a":nul}"#,
                   #"{"a":1} 2"#, #"{"a":"abc}"#, "", #"{"a":1"#, #"{a:1}"#, #"{"a":tru}"#, "[]"]
        for t in bad { XCTAssertFalse(textVerdict(v, Array(t.utf8)), t) }
        // Not UTF-8: an overlong "/", a surrogate, a lone continuation byte, a truncated sequence.
        for seq: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x80], [0xE2, 0x82]] {
            XCTAssertFalse(textVerdict(v, Array(#"{"a":""#.utf8) + seq + Array(#""}"#.utf8)), "\(seq)")
        }
        XCTAssertTrue(textVerdict(v, Array(#"{"a":""#.utf8) + [0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80] + Array(#""}"#.utf8)))
    }

    /// Long strings are scanned eight bytes at a time: whatever the position of a special byte, it is seen.
    func testTextWalkSeesEverySpecialByteInLongStrings() throws {
        let v = try validator(["type": "array", "items": ["type": "string"]])
        func text(_ inner: [UInt8]) -> [UInt8] { Array(#"[""#.utf8) + inner + Array(#""]"#.utf8) }
        for at in 0..<20 {
            func with(_ insert: [UInt8]) -> [UInt8] { var a = [UInt8](repeating: 0x61, count: 20); a.insert(contentsOf: insert, at: at); return a }
            XCTAssertTrue(textVerdict(v, text(with(Array(#"\""#.utf8)))), "escaped quote at \(at)")
            XCTAssertTrue(textVerdict(v, text(with(Array("é".utf8)))), "é at \(at)")
            XCTAssertFalse(textVerdict(v, text(with([0x01]))), "control character at \(at)")
            XCTAssertFalse(textVerdict(v, text(with([0xFF]))), "0xFF at \(at)")
            XCTAssertFalse(textVerdict(v, text(with([0x5C, 0x71]))), "bad escape at \(at)")
            XCTAssertFalse(textVerdict(v, text(with([0x22]))), "bare quote at \(at)")   // ends the string early
        }
    }

    /// Bounds read from the text agree with the exact order of the literal: small integers, decimals whose nearest
    /// doubles differ or tie, and numbers beyond Int or Double.
    func testTextWalkNumberBounds() throws {
        let v = try validator(["type": "array", "items": ["type": "number", "minimum": 0, "exclusiveMaximum": 0.3]])
        func ok(_ t: String) -> Bool { textVerdict(v, Array(t.utf8)) }
        XCTAssertTrue(ok("[0,-0,0.0,0.1,0.29999999999999999999999,2.9e-1]"))
        XCTAssertFalse(ok("[0.3]")); XCTAssertFalse(ok("[0.30000000000000000001]")); XCTAssertFalse(ok("[3e-1]"))
        XCTAssertFalse(ok("[-1]")); XCTAssertFalse(ok("[-0.000000000000000000001]")); XCTAssertFalse(ok("[1e400]"))
        let i = try validator(["type": "array", "items": ["type": "integer", "maximum": .number(JSONNumber(literal: "9000000000000000000"))]])
        XCTAssertTrue(textVerdict(i, Array("[1,-12,123456789012345678,1.0,1e2]".utf8)))
        XCTAssertFalse(textVerdict(i, Array("[1.5]".utf8)))
        XCTAssertFalse(textVerdict(i, Array("[9000000000000000001]".utf8)))
        XCTAssertTrue(textVerdict(i, Array("[9000000000000000000]".utf8)))
    }

    /// Arrays whose items every non-negative integer passes (a ranked index's postings) read plain digits over without
    /// a check of each: the verdict is the value walk's for every item schema and text, the malformed refused.
    func testArraysOfCountsAgreeWithTheValueWalk() throws {
        let items: [(JSON, Bool)] = [
            (["type": "integer", "minimum": 0], true), (["type": "integer"], true), (["type": "number", "minimum": -1], true),
            (["exclusiveMinimum": -0.5], true), (["type": ["string", "integer"]], true), (true, true),
            (["type": "integer", "minimum": 1], false), (["type": "integer", "maximum": 5], false),
            (["type": "integer", "exclusiveMinimum": 0], false), (["type": "integer", "exclusiveMaximum": 100], false),
            (["type": "string"], false), (["enum": [1, 2]], false), (["const": 0], false), (false, false),
        ]
        let texts = ["[0]", "[0,1,12,5]", "[ 3 , 4 ]", "[10,2,100,99]", "[1.0]", "[1e2,2E0]", "[-0]", "[-1]", "[5,6]",
                     "[12345678901234567890123]", "[1,\"a\"]", "[1,null]", "[[1]]", "[0,0.5]",
                     "[01]", "[007]", "[1,]", "[3 4]", "[0x1]", "[1a]", "[1", "[1.]", "[1e]", "[-]", "[00]"]
        for (schema, counts) in items {
            let v = try validator(["type": "array", "items": schema])
            XCTAssertEqual(v.fast!.items?.passesCounts, counts, "\(schema)")
            for t in texts {
                let expected = (try? JSONReader.parse(Array(t.utf8))).map { v.isValid($0) } ?? false
                XCTAssertEqual(textVerdict(v, Array(t.utf8)), expected, "\(t) against items \(schema)")
            }
        }
    }

    /// Plain decimals against integer bounds (read from the digits) agree with the exact order of the literal, on
    /// every side of each bound: equal, just above, just below, negative zero, long whole parts, trailing zeros.
    func testTextWalkDecimalsAgainstIntegerBounds() throws {
        let literals = ["0", "-0", "0.0", "-0.0", "0.000", "0.001", "-0.001", "4.999", "5", "5.000", "5.0001", "-1", "-1.0",
                        "-1.5", "-0.5", "-2.00", "-2.01", "-1.99", "1.5", "123456789012345678.5", "-123456789012345678.5",
                        "1234567890123456789.5", "4.5e0", "10.25", "0.99999999999999999999"]
        for bound in [-2, -1, 0, 1, 5] {
            for keyword in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                let v = try validator(["type": "number", keyword: .int(bound)])
                for t in literals {
                    let x = JSONNumber(literal: t), b = JSONNumber(bound)
                    let expected: Bool
                    switch keyword {
                    case "minimum": expected = !(x < b)
                    case "maximum": expected = !(b < x)
                    case "exclusiveMinimum": expected = b < x
                    default: expected = x < b
                    }
                    // true from the text walk must be right; and it must settle these plain literals itself.
                    XCTAssertEqual(textVerdict(v, Array(t.utf8)), expected, "\(t) \(keyword) \(bound)")
                }
            }
        }
    }

    /// Member names are compared as code points from the text (escaped or not); a repeated required member does not
    /// stand in for a missing one; nullable scalars are settled without making values.
    func testTextWalkOnObjects() throws {
        let v = try validator(["type": "object", "properties": ["a": ["type": "integer", "minimum": 0], "b": ["anyOf": [["type": "string", "pattern": "^K$"], ["type": "null"]]]],
                               "required": ["a", "b"], "additionalProperties": false])
        XCTAssertTrue(textVerdict(v, Array(#"{"a":1,"b":"K"}"#.utf8)))
        XCTAssertTrue(textVerdict(v, Array(#"{"b":null,"\u0061":2.0}"#.utf8)))
        XCTAssertFalse(textVerdict(v, Array(#"{"a":1,"a":2}"#.utf8)))
        // A repeated optional member goes to the evaluator too (whose reader refuses repeated names).
        let o = try validator(["type": "object", "properties": ["a": ["type": "integer"], "c": ["type": "integer"]], "required": ["a"]])
        XCTAssertTrue(textVerdict(o, Array(#"{"a":1,"c":2}"#.utf8)))
        XCTAssertFalse(textVerdict(o, Array(#"{"a":1,"c":2,"c":3}"#.utf8)))
        XCTAssertThrowsError(try Array(#"{"a":1,"c":2,"c":3}"#.utf8).withUnsafeBytes { try o.validate(text: $0) })
        XCTAssertFalse(textVerdict(v, Array(#"{"a":-1,"b":null}"#.utf8)))
        XCTAssertFalse(textVerdict(v, Array(#"{"a":1.5,"b":null}"#.utf8)))
        XCTAssertFalse(textVerdict(v, Array(#"{"a":1,"b":"\u212A"}"#.utf8)))   // KELVIN SIGN is not "K"
        XCTAssertFalse(textVerdict(v, Array(#"{"a":1,"b":null,"c":0}"#.utf8)))
        XCTAssertFalse(textVerdict(v, Array(#"{"a":1,"b":1}"#.utf8)))
        XCTAssertEqual(Array(#"{"a":1,"b":1}"#.utf8).withUnsafeBytes { v.isValid(text: $0) }, false)
        XCTAssertThrowsError(try Array(#"{"a":1,"b"#.utf8).withUnsafeBytes { try v.validate(text: $0) })
    }
}
