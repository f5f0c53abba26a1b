import XCTest
@testable import Schemas
import TestTools

final class JSONReaderTests: XCTestCase {
    func testParsesAndKeepsOrderAndPrecision() throws {
        let v = try JSONReader.parse(#"{"b": 1, "a": [true, null, 0.1, 12345678901234567890123, -2.5e3], "c": "x\u00e9\n"}"#)
        XCTAssertEqual(v.objectValue?.keys, ["b", "a", "c"])
        XCTAssertEqual(try JSONWriter().string(v), #"{"b":1,"a":[true,null,0.1,12345678901234567890123,-2.5e3],"c":"xé\n"}"#)
    }

    func testAcceptsBOM() throws {
        XCTAssertEqual(try JSONReader.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))), [1])
    }

    func testRejections() {
        let bad: [(String, String)] = [
            (#"{"a":1,"a":2}"#, "duplicate key"),
            ("[NaN]", "NaN"),
            ("[Infinity]", "Infinity"),
            ("[-Infinity]", "Infinity"),
            ("[1] x", "after the JSON value"),
            ("[1,]", "trailing comma"),
            (#"{"a":1,}"#, "trailing comma"),
            ("[01]", "leading zeros"),
            ("\"abc", "unterminated"),
            ("[\"\u{01}\"]", "control character"),
            (#"["\ud800"]"#, "surrogate"),
        ]
        for (text, expected) in bad {
            XCTAssertThrowsError(try JSONReader.parse(text), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
    }

    func testDuplicateKeyInLargeObject() {
        let keys = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertThrowsError(try JSONReader.parse("{\(keys),\"k15\":1}"))
    }

    func testRejectsInvalidUTF8() {
        XCTAssertThrowsError(try JSONReader.parse(Data([0x22, 0xC3, 0x28, 0x22]))) { e in
            XCTAssertTrue("\(e)".contains("UTF-8"), "\(e)")
        }
        XCTAssertThrowsError(try JSONReader.parse(Data([0x22, 0xED, 0xA0, 0x80, 0x22])))  // encoded surrogate
    }

    func testErrorLineAndColumn() {
        XCTAssertThrowsError(try JSONReader.parse("{\n  \"a\": 1,\n  \"b\": tru\n}")) { e in
            let err = e as! JSONSyntaxError
            XCTAssertEqual(err.line, 3)
            XCTAssertEqual(err.column, 8)
        }
    }
}

final class JSONWriterTests: XCTestCase {
    func testNumbers() throws {
        let w = JSONWriter()
        XCTAssertEqual(try w.string(.double(349.0)), "349")
        XCTAssertEqual(try w.string(.double(0.1)), "0.1")
        XCTAssertEqual(try w.string(.double(4.2183)), "4.2183")
        XCTAssertEqual(try w.string(.double(1e-7)), "1e-07")
        XCTAssertEqual(try w.string(.double(-0.5)), "-0.5")
        XCTAssertEqual(try w.string(.double(1e300)), "1e+300")
        XCTAssertEqual(try w.string(.int(-42)), "-42")
        XCTAssertEqual(try w.string(.number(JSONNumber(Decimal(string: "499000.10")!))), "499000.1")
        // Shortest round trip: the text parses back to the same double.
        for d in [0.30000000000000004, 1.0 / 3.0, 123456.789, Double.leastNonzeroMagnitude, 1.7976931348623157e308] {
            XCTAssertEqual(Double(try w.string(.double(d))), d)
        }
        // Across magnitudes: every text parses back, and none ends in ".0" or has ".0" before its exponent.
        for (start, factor) in [(1.0, 7.3), (1.0, 0.13), (-2.5, 10.0), (3.0, 0.1)] {
            var x = start
            for _ in 0..<300 {
                let t = try w.string(.double(x))
                XCTAssertEqual(Double(t), x, t)
                XCTAssertFalse(t.hasSuffix(".0") || t.contains(".0e"), t)
                // The writer's own path (printed text kept when it needs no edit) gives the text `format` edits.
                XCTAssertEqual(t, x == x.rounded() && abs(x) < 9.007199254740992e15 ? String(Int(x)) : JSONNumber.format(x))
                x *= factor
                if !x.isFinite || x == 0 { break }
            }
        }
    }

    /// Numbers order by their exact value, also where doubles tie or overflow.
    func testNumberOrderIsExact() {
        func n(_ t: String) -> JSONNumber { JSONNumber(literal: t) }
        XCTAssertTrue(n("0.1") < n("0.10000000000000001"))            // the same double
        XCTAssertFalse(n("0.10000000000000001") < n("0.1"))
        XCTAssertTrue(JSONNumber(9_007_199_254_740_992) < n("9007199254740993"))
        XCTAssertTrue(n("1e400") < n("1e401"))                          // beyond Double
        XCTAssertTrue(n("-0.5") < JSONNumber(0))
        XCTAssertTrue(JSONNumber(0) < n("4.4744"))
        XCTAssertFalse(n("2.50") < n("2.5")); XCTAssertEqual(n("2.50"), n("2.5"))
        XCTAssertEqual(n("1e400"), n("10e399")); XCTAssertNotEqual(n("1e400"), n("1e401"))
        XCTAssertTrue(n("-1e400") < n("-1e399")); XCTAssertTrue(n("-1e400") < n("0")); XCTAssertEqual(n("-0.0"), JSONNumber(0))
        XCTAssertTrue(n("1.5E-400") < n("2e-400")); XCTAssertTrue(n("0.00012") < n("1.2e-3"))
        XCTAssertTrue(n("1e400").decimal.isNaN)                           // out of Decimal's range, and no trap
        XCTAssertTrue(n("1e400").isInteger)
    }

    func testRejectsNonFiniteWithPath() {
        let v: JSON = ["items": [["price": .double(.nan)]]]
        XCTAssertThrowsError(try JSONWriter().string(v)) { e in
            XCTAssertEqual((e as? JSONWriteError)?.path, "/items/0/price")
        }
    }

    func testEscaping() throws {
        XCTAssertEqual(try JSONWriter().string("a/b\"c\\d\u{01}\u{1F}\t"), #""a/b\"c\\d\u0001\u001f\t""#)
        XCTAssertEqual(try JSONWriter().string("ü→😀"), "\"ü→😀\"")
    }

    /// Long strings are scanned eight bytes at a time: a character to escape is found at any offset, and text is
    /// copied unchanged around it (checked against a character-by-character reference, and by reading back).
    func testEscapingAtEveryOffsetOfLongStrings() throws {
        func reference(_ s: String) -> String {
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
                default: out.unicodeScalars.append(u)
                }
            }
            return out + "\""
        }
        for special in ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "😀", "/"] {
            for at in 0..<24 {
                var chars = Array(repeating: "a", count: 24)
                chars.insert(special, at: at)
                let s = chars.joined() + special
                let text = try JSONWriter().string(.string(s))
                XCTAssertEqual(text, reference(s), "\(special.debugDescription) at \(at)")
                XCTAssertEqual(try JSONReader.parse(text), .string(s))
            }
        }
    }

    func testDeclaredOrderAndPretty() throws {
        let v = JSON.obj(["z": 1, "a": ["x": [], "y": [:]]])
        XCTAssertEqual(try JSONWriter().string(v), #"{"z":1,"a":{"x":[],"y":{}}}"#)
        XCTAssertEqual(try JSONWriter(pretty: true).string(v), "{\n  \"z\": 1,\n  \"a\": {\n    \"x\": [],\n    \"y\": {}\n  }\n}\n")
    }

    func testRoundTripRealCatalogLine() throws {
        let url = Repository.testData("catalog/products.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        var n = 0
        for line in text.split(separator: "\n").prefix(500) {
            let v = try JSONReader.parse(String(line))
            let again = try JSONReader.parse(try JSONWriter().string(v))
            XCTAssertEqual(v, again)
            n += 1
        }
        XCTAssertEqual(n, 500)
    }
}
