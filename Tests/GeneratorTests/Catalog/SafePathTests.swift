import XCTest
@testable import Generator

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
    func testCaseInsensitiveCollision() {
        var d = CollisionDetector()
        XCTAssertNil(d.claim(path: "AB-1", id: "AB-1"))
        XCTAssertEqual(d.claim(path: "ab-1", id: "ab-1"), "AB-1")
    }
}
