import XCTest
import Foundation
@testable import TreeClient
import TestTools

/// TreePatch against the community RFC 6902 suite (Tests/Data/json-patch-tests), and TreeJSON's reader and writer.
final class TreePatchTests: XCTestCase {
    static let suite = Repository.testData("json-patch-tests")

    func testCommunitySuite() throws {
        var ran = 0
        for file in ["tests.json", "spec_tests.json"] {
            let url = Self.suite.appendingPathComponent(file)
            // (A disabled record repeats a key on purpose.)
            let records = try XCTUnwrap(TreeJSON.parse([UInt8](Data(contentsOf: url)), duplicateKeys: true).array)
            for r in records {
                guard let doc = r["doc"], let patch = r["patch"], r["disabled"]?.bool != true else { continue }
                let name = r["comment"]?.string ?? String(decoding: patch.bytes, as: UTF8.self)
                if let expected = r["expected"] {
                    do {
                        let result = try TreePatch.apply(patch, to: doc)
                        XCTAssertTrue(result.isEqual(to: expected), "\(file): \(name): got \(String(decoding: result.bytes, as: UTF8.self))")
                    } catch { XCTFail("\(file): \(name): \(error)") }
                    ran += 1
                } else if r["error"] != nil {
                    XCTAssertThrowsError(try TreePatch.apply(patch, to: doc), "\(file): \(name)")
                    ran += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(ran, 100)
    }

    func testWriterKeepsOrderNumbersAndEscapes() throws {
        let text = #"{"z":1,"a":[1.50,-0.0,1e400,12345678901234567890],"s":"é/\"\\\u0001\n\t\b\f\r\u001f","t":true,"n":null}"#
        let doc = try TreeJSON.parse(Array(text.utf8))
        XCTAssertEqual(String(decoding: doc.bytes, as: UTF8.self),
                       #"{"z":1,"a":[1.50,-0.0,1e400,12345678901234567890],"s":"é/\"\\\u0001\n\t\b\f\r\u001f","t":true,"n":null}"#)
        // A new member goes last; an existing one keeps its place.
        let patched = try TreePatch.apply(try TreeJSON.parse(Array(#"[{"op":"add","path":"/b","value":2},{"op":"add","path":"/z","value":3}]"#.utf8)), to: doc)
        XCTAssertEqual(String(decoding: patched.bytes, as: UTF8.self).prefix(8), #"{"z":3,""#)
        XCTAssertTrue(String(decoding: patched.bytes, as: UTF8.self).hasSuffix(#","b":2}"#))
    }

    func testReaderIsStrict() {
        for bad in [#"{"a":1,"a":2}"#, "[1,]", "01", "1.", "\"\u{01}\"", "[1] x", "{'a':1}", "NaN", #""\ud800""#,
                    String(repeating: "[", count: 600) + String(repeating: "]", count: 600)] {
            XCTAssertThrowsError(try TreeJSON.parse(Array(bad.utf8)), bad)
        }
    }

    /// Strings with and without escapes, and the byte each error names.
    func testReaderStringsAndErrorOffsets() throws {
        XCTAssertEqual(try TreeJSON.parse([0x22, 0xC3, 0xA9, 0x22]).string, "é")
        XCTAssertEqual(try TreeJSON.parse(Array(#"["v\u00e9\n", "", "\ud83d\ude00"]"#.utf8)).array?.compactMap(\.string), ["vé\n", "", "😀"])
        let cases: [([UInt8], String)] = [
            (Array("\"abc".utf8), "invalid JSON at byte 4: unterminated string"),
            (Array("\"ab\\".utf8), "invalid JSON at byte 4: unterminated escape"),
            ([0x22, 0x61, 0x01, 0x22], "invalid JSON at byte 2: unescaped control character in a string"),
            ([0x22, 0xFF, 0x22], "invalid JSON at byte 3: a string that is not UTF-8"),
            ([0x22, 0x61, 0x5C, 0x6E, 0xC3, 0x22], "invalid JSON at byte 6: a string that is not UTF-8"),
            (Array(#"["a\q"]"#.utf8), "invalid JSON at byte 4: invalid escape"),
            (Array(#""\ud800x""#.utf8), "invalid JSON at byte 7: unpaired surrogate"),
            (Array(#""\u12""#.utf8), "invalid JSON at byte 3: truncated \\u escape"),
            (Array(#"{"a":"x","a":"y"}"#.utf8), #"invalid JSON at byte 12: duplicate key "a""#),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try TreeJSON.parse(text)) { XCTAssertEqual("\($0)", message) }
        }
    }
}
