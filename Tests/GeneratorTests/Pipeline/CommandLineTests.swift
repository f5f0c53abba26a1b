import Foundation
import XCTest

/// The command line as a new user meets it: usage errors exit 2 (as the Commands article says), help exits 0 and names every input folder.
final class CommandLineTests: XCTestCase {
    func testNoCommandIsAUsageErrorWithTheUsageOnStderr() throws {
        let p = Process()
        p.executableURL = TestSupport.generatorBinary
        p.arguments = []
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 2)
        XCTAssertTrue(stderr.contains("USAGE: generator <subcommand>"), stderr)
        for command in ["build", "validate", "diff", "search", "sync", "serve", "publish"] { XCTAssertTrue(stderr.contains("  \(command)"), command) }
        XCTAssertTrue(stdout.isEmpty)
    }

    func testHelpExitsZeroAndBuildHelpNamesEveryInputFolder() throws {
        XCTAssertEqual(try TestSupport.runCLI(["--help"]).status, 0)
        let help = try TestSupport.runCLI(["build", "--help"])
        XCTAssertEqual(help.status, 0)
        let flat = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for folder in ["site.json", "catalog/", "auctions/", "nba/", "collections/"] { XCTAssertTrue(flat.contains(folder), folder) }
    }
}
