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
