import Foundation
import XCTest
@testable import Generator
import Schemas

/// Long stages say what they do and how far they are, at least every 2 seconds, on stderr only.
final class ProgressTickerTests: XCTestCase {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ l: String) { lock.lock(); lines.append(l); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    func testAStageIsSaidAtOnceThenRepeatedWithItsCountUntilItEnds() {
        let lines = Lines()
        let ticker = ProgressTicker(interval: 0.05, report: lines.add)
        defer { ticker.stop() }
        ticker.begin("writing", total: 10)
        XCTAssertEqual(lines.all, ["writing: 0 of 10 files (0 s)"])
        ticker.advance(); ticker.advance(); ticker.advance()
        ticker.grow(2)
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertTrue(lines.all.contains("writing: 3 of 12 files (0 s)"), "\(lines.all)")
        XCTAssertGreaterThanOrEqual(lines.all.count, 4, "repeated while the stage lasts: \(lines.all)")
        ticker.end()
        Thread.sleep(forTimeInterval: 0.1)
        let after = lines.all.count
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(lines.all.count, after, "nothing is said between stages")
        ticker.begin("reading")
        XCTAssertEqual(lines.all.last, "reading (0 s)")
    }

    /// Runs the CLI with stdout and stderr apart (neither is a terminal here).
    func run(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = TestSupport.generatorBinary
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Both pipes drained at once (a full stderr pipe must not stall the build).
        let stderrData = Lines()
        let reader = Thread { stderrData.add(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)) }
        reader.start()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        return (p.terminationStatus, String(decoding: stdoutData, as: UTF8.self), stderrData.all.joined())
    }

    func testProgressFlagForcesProgressOnStderrAndJSONStaysPure() throws {
        let out = TestSupport.tempDir("progress").appendingPathComponent("dist")
        let input = TestSupport.defaultInput.path
        let r = try run(["build", "--input", input, "--out", out.path, "--progress", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNoThrow(try JSONReader.parse(Data(r.stdout.utf8)), "stdout is the JSON summary alone")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        let files = try NSRegularExpression(pattern: #"^  … checking and writing files: (\d+) of (\d+) files \(\d+ s\)$"#)
        let counted = lines.compactMap { l -> (Int, Int)? in
            guard let m = files.firstMatch(in: l, range: NSRange(l.startIndex..., in: l)) else { return nil }
            return (Int(l[Range(m.range(at: 1), in: l)!])!, Int(l[Range(m.range(at: 2), in: l)!])!)
        }
        XCTAssertFalse(counted.isEmpty, r.stderr)
        XCTAssertTrue(counted.allSatisfy { $0.0 <= $0.1 && $0.1 > 500 }, r.stderr)
        for stage in ["  … catalog: reading and compiling", "  … nba: reading and compiling", "  … release 1: file index and deltas", "  … moving "] {
            XCTAssertTrue(lines.contains { $0.hasPrefix(stage) }, "\(stage) in \(r.stderr)")
        }

        // Not a terminal and no flag: no progress at all.
        let quiet = try run(["build", "--input", input, "--out", TestSupport.tempDir("quiet").appendingPathComponent("dist").path])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("…"), quiet.stderr)
    }
}
