import XCTest
@testable import Schemas

/// Strings read in place: where a literal ends (escaped quotes, runs of backslashes) and what it stands for.
final class JSONTextTests: XCTestCase {
    func end(_ text: String, from i: Int = 0) -> Int? { Array(text.utf8).withUnsafeBufferPointer { JSONText.stringEnd($0, from: i) } }
    func value(_ text: String) -> String? { Array(text.utf8).withUnsafeBufferPointer { JSONText.string($0) } }

    func testStringEnds() {
        XCTAssertEqual(end(#""ab",1"#), 4)
        XCTAssertEqual(end(#""a\"b",1"#), 6)          // an escaped quote does not end it
        XCTAssertEqual(end(#""a\\",1"#), 5)           // an escaped backslash does
        XCTAssertEqual(end(#""a\\\"b""#), 8)
        XCTAssertNil(end(#""a\""#))                   // left open
        XCTAssertNil(end("x\"a\"", from: 0))          // not at a quote
        XCTAssertEqual(end("x\"a\"", from: 1), 4)
    }

    /// Random strings of up to 40 pieces, with escaped quotes, runs of backslashes and `\u0022` anywhere: the end is
    /// the one a plain left-to-right reading gives.
    func testEndsOfLongerStringsWithEscapes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array(#"""#.utf8), Array(#"\"#.utf8), Array(#"""#.utf8)]
        for _ in 0..<3_000 {
            var text: [UInt8] = [0x22]
            for _ in 0..<Int(next() % 40) { text += pieces[Int(next() % UInt64(pieces.count))] }
            text += Array(#"",1,"x""#.utf8)
            // A plain reading: a backslash takes the next byte along; the first other quote ends the string.
            var j = 1, expected: Int?
            while j < text.count { if text[j] == 0x5C { j += 2 } else if text[j] == 0x22 { expected = j + 1; break } else { j += 1 } }
            XCTAssertEqual(text.withUnsafeBufferPointer { JSONText.stringEnd($0, from: 0) }, expected, String(decoding: text, as: UTF8.self))
        }
    }

    func testStringValues() {
        XCTAssertEqual(value(#""drill""#), "drill")
        XCTAssertEqual(value(#""""#), "")
        XCTAssertEqual(value(#""say \"hi\"""#), "say \"hi\"")
        XCTAssertEqual(value(#""\u00e9""#), "é")
        XCTAssertEqual(value("\"é\""), "é")
        XCTAssertNil(value("\"a\u{1}\""))             // a raw control character is not JSON
        XCTAssertNil(value("drill"))
    }
}
