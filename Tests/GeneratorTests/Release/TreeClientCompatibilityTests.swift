import XCTest
import Foundation
@testable import Generator
import Schemas
import TreeClient

/// The app-side library reads and writes JSON exactly as the generator does: every file of a real tree survives a
/// TreeJSON read and write byte for byte, and every patch of a real delta, applied by TreePatch, gives the new file.
final class TreeClientCompatibilityTests: XCTestCase {
    func testEveryFileRoundTrips() throws {
        var checked = 0
        for (path, data) in TestSupport.snapshot(ReleaseLoop.release2) where path.hasSuffix(".json") {
            let bytes = [UInt8](data)
            XCTAssertEqual(try TreeJSON.parse(bytes).bytes, bytes, path)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 600)
    }

    func testEveryPatchGivesTheNewBytes() throws {
        let old = TestSupport.snapshot(ReleaseLoop.release1), new = TestSupport.snapshot(ReleaseLoop.release2)
        let delta = try TreeJSON.parse([UInt8](XCTUnwrap(new["releases/2/delta-from-1.json"])))
        var patched = 0
        for c in try XCTUnwrap(delta["changed"]?.array) {
            guard let patch = c["patch"], let path = c["path"]?.string else { continue }
            let result = try TreePatch.apply(patch, to: TreeJSON.parse([UInt8](XCTUnwrap(old[path]))))
            XCTAssertEqual(Data(result.bytes), new[path], path)
            patched += 1
        }
        XCTAssertGreaterThan(patched, 3)
    }

    /// The generator's own path rule is the client's.
    func testOnePathRule() {
        for p in ["a/b.json", "../x", "/x", "a//b", "a/./b", "a\\b", "x\u{7}", "", "x\u{85}"] {
            XCTAssertEqual(TreeReader.pathRejection(p), TreePath.rejection(p), p)
        }
    }
}
