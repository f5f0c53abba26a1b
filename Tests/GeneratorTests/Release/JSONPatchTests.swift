import XCTest
import Schemas
@testable import Generator

final class JSONPatchTests: XCTestCase {
    func roundTrip(_ a: JSON, _ b: JSON, file: StaticString = #filePath, line: UInt = #line) throws {
        let patched = try JSONPatch.apply(JSONPatch.diff(a, b), to: a)
        XCTAssertEqual(try JSONWriter().string(patched), try JSONWriter().string(b), file: file, line: line)
    }

    /// A removed member is gone from the result, not set to null (nested and at the top).
    func testRemovedMembersDisappear() throws {
        try roundTrip(["keywords": ["drill": ["1"], "saw": ["2"]], "n": 2], ["keywords": ["drill": ["1"]], "n": 2])
        try roundTrip(["a": 1, "b": 2], ["a": 1])
        XCTAssertEqual(try JSONWriter().string(try JSONPatch.apply([["op": "remove", "path": "/a/b"]], to: ["a": ["b": 1, "c": 2]])), #"{"a":{"c":2}}"#)
    }

    func testArraysAndValues() throws {
        try roundTrip(["xs": [1, 2, 3, 4]], ["xs": [1, 3, 4, 5]])
        try roundTrip(["p": 1.5, "q": "x"], ["p": 2, "q": nil])
        XCTAssertThrowsError(try JSONPatch.apply([["op": "remove", "path": "/missing"]], to: ["a": 1]))
    }
}
