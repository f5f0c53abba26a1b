import Foundation
import XCTest
@testable import Generator

/// The command starts itself again once with huge pages for its heap, only where that helps, and never twice.
final class HugePagesTests: XCTestCase {
    let madvise = "always [madvise] never\n"

    func testRestartsOnlyWhereTheKernelGivesHugePagesToMemoryThatAsks() {
        XCTAssertEqual(HugePages.restartEnvironment(["PATH": "/bin"], mode: madvise),
                       ["PATH": "/bin", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1", HugePages.restartedMarker: ""])
        XCTAssertNil(HugePages.restartEnvironment([:], mode: "[always] madvise never\n"), "every process has them already")
        XCTAssertNil(HugePages.restartEnvironment([:], mode: "always madvise [never]\n"))
        XCTAssertNil(HugePages.restartEnvironment([:], mode: nil), "no such file: not Linux, or no huge pages")
    }

    func testTheUsersTunablesAreKeptAndTheirOwnChoiceWins() {
        let e = HugePages.restartEnvironment(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"], mode: madvise)
        XCTAssertEqual(e?["GLIBC_TUNABLES"], "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")
        XCTAssertEqual(e?[HugePages.restartedMarker], "glibc.malloc.arena_max=2")
        XCTAssertNil(HugePages.restartEnvironment(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0"], mode: madvise))
        XCTAssertNil(HugePages.restartEnvironment(["GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"], mode: madvise))
    }

    func testARestartedProcessPutsTheVariableBackAndNeverRestartsAgain() {
        let first = HugePages.restartEnvironment(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"], mode: madvise)!
        XCTAssertNil(HugePages.restartEnvironment(first.merging(["GLIBC_TUNABLES": ""]) { $1 }, mode: madvise))
        XCTAssertTrue(HugePages.restored(first) == ("glibc.malloc.arena_max=2", true))
        let unset = HugePages.restartEnvironment([:], mode: madvise)!
        XCTAssertTrue(HugePages.restored(unset) == (nil, true), "it was not set: it is removed")
        XCTAssertTrue(HugePages.restored(["GLIBC_TUNABLES": "x"]) == (nil, false), "not restarted: nothing to put back")
    }

    /// The real command on the default input: its heap is in huge pages (as the kernel counts them), and not when
    /// the user turns it off.
    func testTheCommandsHeapIsInHugePagesUnlessTurnedOff() throws {
        let mode = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8)
        guard let mode, mode.contains("[madvise]") else {
            throw XCTSkip("this kernel gives no huge pages on request (transparent_hugepage/enabled: \(mode ?? "absent"))")
        }
        func hugePagesAtTheEnd(_ tunables: String?) throws -> Int {
            let out = TestSupport.tempDir()
            defer { try? FileManager.default.removeItem(at: out) }
            var command = ["-u", "GLIBC_TUNABLES", "-u", HugePages.restartedMarker, "GENERATOR_TRACE=1"]
            if let tunables { command.append("GLIBC_TUNABLES=\(tunables)") }
            command += [TestSupport.generatorBinary.path, "build", "--input", TestSupport.repoRoot.appendingPathComponent("input").path,
                        "--out", out.appendingPathComponent("dist").path]
            let run = try TestSupport.run(command)
            XCTAssertEqual(run.status, 0, run.output)
            let line = try XCTUnwrap(run.output.split(separator: "\n").last { $0.contains("[trace] after cache") }, run.output)
            let figure = try XCTUnwrap(line.components(separatedBy: "(").last?.split(separator: " ").first, String(line))
            XCTAssertTrue(line.hasSuffix(" MB in huge pages)"), String(line))
            return try XCTUnwrap(Int(figure), String(line))
        }
        XCTAssertGreaterThan(try hugePagesAtTheEnd(nil), 0)
        XCTAssertEqual(try hugePagesAtTheEnd("glibc.malloc.hugetlb=0"), 0)
    }
}
