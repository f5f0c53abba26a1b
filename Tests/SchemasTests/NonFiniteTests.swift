import XCTest
import Foundation
@testable import Schemas

/// Neither writer ever emits NaN, ±Infinity or a literal readers would take as infinity: each is refused with the
/// JSON Pointer of the field, and nothing is returned for the document.
final class NonFiniteTests: XCTestCase {
    func writeError(_ v: JSON, file: StaticString = #filePath, line: UInt = #line) -> JSONWriteError? {
        do {
            let text = try JSONWriter().string(v)
            XCTFail("written: \(text)", file: file, line: line)
            return nil
        } catch let e as JSONWriteError { return e } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testWriterRefusesEveryNonFiniteNumberWithItsPath() {
        let nanDecimal = JSONNumber(Decimal.nan)   // its text is "NaN": the shape SUMMARY.json's average once had
        let bad: [(JSONNumber, String)] = [(JSONNumber(Double.nan), "nan"), (JSONNumber(Double.infinity), "inf"),
                                            (JSONNumber(-Double.infinity), "-inf"), (nanDecimal, "NaN"),
                                            (JSONNumber(literal: "1e400"), "1e400"), (JSONNumber(literal: "-2e308"), "-2e308")]
        for (n, shown) in bad {
            let doc: JSON = ["priceRange": ["min": 1, "average": .number(n)], "list": [1, ["a/b~c": .number(n)]]]
            let e = writeError(doc)
            XCTAssertEqual(e?.path, "/priceRange/average", shown)
            XCTAssertTrue(e?.message.contains(shown) == true, "\(String(describing: e))")
            // Also when it sits in an array, under a member name that needs escaping in a pointer.
            XCTAssertEqual(writeError(["list": [1, ["a/b~c": .number(n)]]])?.path, "/list/1/a~1b~0c", shown)
            XCTAssertEqual(writeError(.array([.number(n)]))?.path, "/0", shown)
        }
    }

    func testLimitsOfWhatIsWritten() throws {
        // The largest doubles and literals just inside Double's range are fine, as are long exact decimals.
        for text in ["1e308", "1.7976931348623157e308", "-1.7976931348623157E+308", "1e-400", "0.000001e310",
                     "123456789012345678901234567890.123456789", "-0.5", "0e999999"] {
            XCTAssertEqual(try JSONWriter().string(.number(JSONNumber(literal: text))), text)
        }
        XCTAssertEqual(try JSONWriter().string(.double(.greatestFiniteMagnitude)), "1.7976931348623157e+308")
        // Text that is not a literal at all (never produced by the reader; a Decimal's NaN is the known case).
        XCTAssertNotNil(writeError(.number(JSONNumber(literal: "12,99"))))
        XCTAssertNotNil(writeError(.number(JSONNumber(literal: "1.8e308"))))
    }

    func testStreamNamesTheField() throws {
        let s = JSONStream()
        s.beginObject()
        s.key("id"); s.string("a\"b")
        s.key("tags"); s.beginArray(); s.string("x,y"); s.string("{[\"]}"); s.endArray()
        s.key("pricing"); s.beginObject(); s.key("currency"); s.string("USD"); s.key("currentPrice")
        XCTAssertThrowsError(try s.double(.nan)) { e in
            XCTAssertEqual((e as? JSONWriteError)?.path, "/pricing/currentPrice")
            XCTAssertTrue("\(e)".contains("not a finite number"), "\(e)")
        }
        // In an array, after other elements and nested values.
        let t = JSONStream()
        t.beginArray(); t.int(1); t.beginObject(); t.key("q"); t.int(2); t.endObject(); t.beginArray(); t.endArray()
        XCTAssertThrowsError(try t.number(JSONNumber(literal: "1e999"))) { e in XCTAssertEqual((e as? JSONWriteError)?.path, "/3") }
        let u = JSONStream()
        u.beginObject(); u.key("a/b"); u.beginArray()
        XCTAssertThrowsError(try u.double(-.infinity)) { e in XCTAssertEqual((e as? JSONWriteError)?.path, "/a~1b/0") }
        XCTAssertThrowsError(try JSONStream().number(JSONNumber(Decimal.nan))) { e in XCTAssertEqual((e as? JSONWriteError)?.path, "/") }
    }

    /// `value(_:)` inside a stream goes through JSONWriter: refused too (its own pointer is relative to that value).
    func testStreamedValueRefused() {
        let s = JSONStream()
        s.beginObject(); s.key("stats")
        XCTAssertThrowsError(try s.value(["mean": .double(.nan)])) { e in XCTAssertEqual((e as? JSONWriteError)?.path, "/mean") }
    }
}
