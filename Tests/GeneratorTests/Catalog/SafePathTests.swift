import XCTest
@testable import Generator
import Schemas

final class SafePathTests: XCTestCase {
    func testRejectsEscapes() {
        for bad in ["..", "../x", "a/b", "a\\b", "x\u{0}y", "", "a..b"] {
            XCTAssertThrowsError(try SafePath.segment(bad), bad)
        }
    }
    func testMapsUnsafeCharacters() throws {
        XCTAssertEqual(try SafePath.segment("100000548"), "100000548")
        XCTAssertEqual(try SafePath.segment("A B?c"), "A-B-c")
        XCTAssertEqual(try SafePath.segment(".hidden"), "-hidden")
        XCTAssertEqual(try SafePath.segment("_draft"), "-draft")
        XCTAssertEqual(try SafePath.nested("tools/drills/other"), "tools/drills/other")
        XCTAssertThrowsError(try SafePath.nested("tools/../etc"))
    }
    /// Ids that are their own segment skip the character-by-character rules: the rules agree on every real id and on
    /// the edge cases of the shortcut.
    func testSafeIdsAreTheirOwnSegment() throws {
        let lines = try String(contentsOf: TestSupport.testData.appendingPathComponent("catalog/products.jsonl"), encoding: .utf8).split(separator: "\n")
        var ids = try lines.compactMap { try JSONReader.parse(String($0))["itemId"].map { $0.stringValue ?? $0.compactText } }
        XCTAssertGreaterThan(ids.count, 4000)
        ids += ["a", "A-1", "x.y", "x..y", ".x", "_x", "x_", "x.", "..", ".", "-", "é", "a b", "a/b", "", "1.2.3", "a_.b"]
        var fast = 0
        for id in ids {
            if SafePath.isSafeAsIs(id) { fast += 1; XCTAssertEqual(try SafePath.mapped(id), id, id) }
            XCTAssertEqual(try? SafePath.segment(id), try? SafePath.mapped(id), id)
        }
        XCTAssertGreaterThan(fast, 4000)
        for id in ["x..y", ".x", "_x", "..", ".", "", "a/b", "é"] { XCTAssertFalse(SafePath.isSafeAsIs(id), id) }
    }

    func testCaseInsensitiveCollision() {
        var d = CollisionDetector()
        XCTAssertNil(d.claim(path: "AB-1", id: "AB-1"))
        XCTAssertEqual(d.claim(path: "ab-1", id: "ab-1"), "AB-1")
    }
}
