import XCTest
import Foundation
import TestTools

/// The code keeps the shape CONTRIBUTING.md asks for (functions a screen long, unsafe Swift only in low-level files),
/// measured by `scripts/code-shape.py --check`; and the script does fail on code that breaks a limit.
final class CodeShapeTests: XCTestCase {
    /// `python3 scripts/code-shape.py ARGS` run in `folder`: its exit status and output.
    func codeShape(_ args: [String], in folder: URL = Repository.root) throws -> (status: Int32, output: String) {
        try Command.run(["python3", Repository.script("code-shape.py").path] + args, in: folder)
    }

    func testSourcesKeepTheLimits() throws {
        let (status, output) = try codeShape(["--check"])
        XCTAssertEqual(status, 0, output)
    }

    func testALongFunctionOrUnsafeCodeFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("code-shape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let long = "func long() {\n" + String(repeating: "    print(1)\n", count: 85) + "}\n"
        try long.write(to: folder.appendingPathComponent("Long.swift"), atomically: true, encoding: .utf8)
        var (status, output) = try codeShape(["--check", folder.path])
        XCTAssertNotEqual(status, 0, output)
        XCTAssertTrue(output.contains("1 functions over 80 lines"), output)

        try FileManager.default.removeItem(at: folder.appendingPathComponent("Long.swift"))
        let unsafe = "func f(_ p: UnsafeRawPointer) {}\n" + String(repeating: "// filler\n", count: 100)
        try unsafe.write(to: folder.appendingPathComponent("Raw.swift"), atomically: true, encoding: .utf8)
        (status, output) = try codeShape(["--check", folder.path])
        XCTAssertNotEqual(status, 0, output)
        XCTAssertTrue(output.contains("unsafe lines per 1,000 (at most 6)"), output)
    }
}
