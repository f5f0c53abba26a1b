import XCTest
import Foundation
import TestTools

/// scripts/check-patches.py (python jsonpatch, the cross-check of our patches in ReleaseTests) never skips silently.
final class CheckPatchesScriptTests: XCTestCase {
    static let script = TestSupport.repoRoot.appendingPathComponent("scripts/check-patches.py").path

    /// Without the module (python3 -S: no site-packages) the script fails and says how to install it.
    func testWithoutTheModuleTheScriptFailsWithTheInstallCommand() throws {
        try Tool.require(.python3)
        let r = try TestSupport.run(["python3", "-S", Self.script, "/nonexistent-old", "/nonexistent-new"])
        XCTAssertEqual(r.status, 3, r.output)
        XCTAssertTrue(r.output.contains("pip install jsonpatch"), r.output)
    }

    /// A patch that does not give the new file is reported as a failure (exit 1), not passed.
    func testAWrongPatchFails() throws {
        try Tool.require(.python3, .jsonpatch)
        let dir = TestSupport.tempDir("check-patches"), old = dir.appendingPathComponent("old"), new = dir.appendingPathComponent("new")
        for d in [old, new.appendingPathComponent("releases/2")] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
        try Data(#"{"a":1}"#.utf8).write(to: old.appendingPathComponent("x.json"))
        try Data(#"{"a":2}"#.utf8).write(to: new.appendingPathComponent("x.json"))
        try Data(#"{"delta":{"path":"releases/2/delta.json"}}"#.utf8).write(to: new.appendingPathComponent("update-manifest.json"))
        func delta(_ value: Int) throws {
            let text = #"{"changed":[{"path":"x.json","sha256":"0","patch":[{"op":"replace","path":"/a","value":\#(value)}]}]}"#
            try Data(text.utf8).write(to: new.appendingPathComponent("releases/2/delta.json"))
        }
        try delta(3)
        let wrong = try TestSupport.run(["python3", Self.script, old.path, new.path])
        XCTAssertEqual(wrong.status, 1, wrong.output)
        XCTAssertTrue(wrong.output.contains("0 passed, 1 failed"), wrong.output)
        try delta(2)
        let right = try TestSupport.run(["python3", Self.script, old.path, new.path])
        XCTAssertEqual(right.status, 0, right.output)
        XCTAssertTrue(right.output.contains("1 passed, 0 failed"), right.output)
    }

    /// A patch that gives the new members in another order is a failure too, numbers spelled alike or not: the
    /// generator's patches rely on the order (a new member last; a kept one moved behind it).
    func testMembersInAnotherOrderFail() throws {
        try Tool.require(.python3, .jsonpatch)
        let dir = TestSupport.tempDir("check-patches-order"), old = dir.appendingPathComponent("old"), new = dir.appendingPathComponent("new")
        for d in [old, new.appendingPathComponent("releases/2")] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
        try Data(#"{"k":{"a":1.0,"c":3}}"#.utf8).write(to: old.appendingPathComponent("x.json"))
        try Data(#"{"k":{"a":1.0,"b":2,"c":3}}"#.utf8).write(to: new.appendingPathComponent("x.json"))
        try Data(#"{"delta":{"path":"releases/2/delta.json"}}"#.utf8).write(to: new.appendingPathComponent("update-manifest.json"))
        func delta(_ ops: String) throws -> (status: Int32, output: String) {
            try Data(#"{"changed":[{"path":"x.json","sha256":"0","patch":[\#(ops)]}]}"#.utf8).write(to: new.appendingPathComponent("releases/2/delta.json"))
            return try TestSupport.run(["python3", Self.script, old.path, new.path])
        }
        let last = try delta(#"{"op":"add","path":"/k/b","value":2}"#)
        XCTAssertEqual(last.status, 1, last.output)
        XCTAssertTrue(last.output.contains("0 passed, 1 failed"), last.output)
        let moved = try delta(#"{"op":"add","path":"/k/b","value":2},{"op":"move","from":"/k/c","path":"/k/~0"},{"op":"move","from":"/k/~0","path":"/k/c"}"#)
        XCTAssertEqual(moved.status, 0, moved.output)
        XCTAssertTrue(moved.output.contains("1 passed, 0 failed"), moved.output)
    }
}
