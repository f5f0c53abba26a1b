import Foundation
import XCTest
@testable import Generator

/// A `BuildMemory` (what `generator serve --watch` keeps between builds) changes nothing in the output: a build that
/// reuses remembered results writes the bytes a fresh build writes, also after the inputs those results depend on
/// changed (a game's closing line, the model's settings).
final class BuildMemoryTests: XCTestCase {
    func build(_ input: URL, memory: BuildMemory?) throws -> [String: Data] {
        let out = TestSupport.tempDir("memory").appendingPathComponent("dist")
        var options = BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000)
        options.memory = memory
        _ = try Build.run(options)
        return TestSupport.snapshot(out)
    }

    func testRememberedResultsGiveTheBytesOfAFreshBuild() throws {
        let input = TestSupport.tempDir("memory-input").appendingPathComponent("input")
        try FileManager.default.copyItem(at: TestSupport.defaultInput, to: input)
        let memory = BuildMemory()
        let first = try build(input, memory: memory)
        XCTAssertEqual(first, try build(input, memory: memory), "all remembered")

        // A closing line moved, then the model's correlation changed: those games must be simulated again.
        var previous = first
        let lines = input.appendingPathComponent("nba/lines.csv"), site = input.appendingPathComponent("site.json")
        for (file, from, to) in [(lines, "0022200001,sbr,2022-10-18T00:00:00Z,216,", "0022200001,sbr,2022-10-18T00:00:00Z,231,"),
                                 (site, #""rho": 0.2"#, #""rho": 0.3"#)] {
            let text = try String(contentsOf: file, encoding: .utf8)
            XCTAssertTrue(text.contains(from))
            try text.replacingOccurrences(of: from, with: to).write(to: file, atomically: true, encoding: .utf8)
            let remembered = try build(input, memory: memory)
            let fresh = try build(input, memory: nil)
            XCTAssertEqual(remembered.keys.sorted(), fresh.keys.sorted())
            for (path, bytes) in fresh where remembered[path] != bytes { XCTFail("\(file.lastPathComponent): \(path) differs from a fresh build") }
            XCTAssertTrue(fresh.contains { $0.key.hasPrefix("nba/totals/") && previous[$0.key] != $0.value },
                          "\(file.lastPathComponent): the edit changes the NBA totals (else this proves nothing)")
            previous = fresh
        }
    }
}
