import Foundation
import XCTest
@testable import Generator
import TestTools

/// The tool's identity is read from the linker's build ID when the executable has one: the same ID `readelf` shows,
/// and nothing from a file that is not such an executable.
final class ToolIdentityTests: XCTestCase {
    func testTheBuildIDIsTheOneReadelfShows() throws {
        try Tool.require(.readelf)
        let binary = TestSupport.generatorBinary.path
        let shown = try TestSupport.run(["readelf", "-n", binary])
        XCTAssertEqual(shown.status, 0, shown.output)
        let line = try XCTUnwrap(shown.output.split(separator: "\n").first { $0.contains("Build ID:") }, "no build ID in \(binary)")
        let expected = try XCTUnwrap(line.split(separator: " ").last).lowercased()
        let fd = open(binary, O_RDONLY)
        defer { close(fd) }
        let id = try XCTUnwrap(ToolIdentity.buildID(fd))
        XCTAssertEqual(id.map { String(format: "%02x", $0) }.joined(), expected)
    }

    func testOtherFilesHaveNone() throws {
        let dir = TestSupport.tempDir("elf")
        let binary = try Data(contentsOf: TestSupport.generatorBinary)
        for (name, bytes) in [("products.jsonl", try Data(contentsOf: TestSupport.testData.appendingPathComponent("catalog/products.jsonl")).prefix(4096)),
                              ("cut.elf", binary.prefix(200)), ("empty", Data())] {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            let fd = open(url.path, O_RDONLY)
            XCTAssertNil(ToolIdentity.buildID(fd), name)
            close(fd)
        }
    }
}
