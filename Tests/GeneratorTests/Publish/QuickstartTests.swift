import XCTest
import Foundation

/// README's quick start works on a fresh copy of the repository: every shell command of its code blocks is run,
/// in order, in a temporary copy of the repository's files (with ../shared beside it, as in CI), and must succeed
/// (`swift test` is built there, and run by the suite this test belongs to).
final class QuickstartTests: XCTestCase {
    /// The commands of the fenced `sh` blocks under README's "## Quick start" heading (comments stripped).
    static func commands(readme: String) -> [String] {
        guard let start = readme.range(of: "\n## Quick start") else { return [] }
        let section = readme[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        var out: [String] = [], inBlock = false
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("```") { inBlock = !inBlock && (t == "```sh" || t == "```bash" || t == "```shell"); continue }
            guard inBlock else { continue }
            let cmd = (t.range(of: " #").map { String(t[..<$0.lowerBound]) } ?? t).trimmingCharacters(in: .whitespaces)
            if !cmd.isEmpty && !cmd.hasPrefix("#") { out.append(cmd) }
        }
        return out
    }

    func testExtraction() {
        let readme = "x\n```sh\nnot me\n```\n## Quick start\n\n```sh\nswift run a   # comment\n# only a comment\n\nswift test\n```\ntext\n```json\n{}\n```\n## Next\n```sh\nno\n```\n"
        XCTAssertEqual(Self.commands(readme: readme), ["swift run a", "swift test"])
    }

    func testQuickstartCommandsSucceedOnAFreshCopy() throws {
        // The quick start includes `swift test`, which runs this test again: the nested run skips it.
        if ProcessInfo.processInfo.environment["QUICKSTART_NESTED"] != nil {
            throw XCTSkip("inside the quick start's own `swift test`")
        }
        let root = TestSupport.repoRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = Self.commands(readme: readme)
        XCTAssertTrue(commands.contains { $0.hasPrefix("swift run generator build") }, "\(commands)")
        XCTAssertTrue(commands.contains("swift test"), "\(commands)")

        // A fresh copy: the repository's files (tracked, and new ones not ignored), no .build, no dist.
        let work = TestSupport.tempDir("quickstart")
        defer { try? FileManager.default.removeItem(at: work) }
        let copy = work.appendingPathComponent("repo")
        let files = try TestSupport.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd: root)
        XCTAssertEqual(files.status, 0, files.output)
        for rel in files.output.split(separator: "\0").map(String.init) {
            let src = root.appendingPathComponent(rel), dst = copy.appendingPathComponent(rel)
            guard FileManager.default.fileExists(atPath: src.path) else { continue }   // deleted, not yet committed
            try FileManager.default.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: src, to: dst)
        }
        try FileManager.default.createSymbolicLink(at: work.appendingPathComponent("shared"),
                                                   withDestinationURL: root.deletingLastPathComponent().appendingPathComponent("shared"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.appendingPathComponent(".build").path))

        for command in commands {
            // `swift test` is the run this test is part of: on the copy it is compiled, not run again (running the
            // whole suite inside itself took about 5 of the suite's 8 minutes).
            let run = command == "swift test" ? "swift build --build-tests" : command
            let r = try TestSupport.run(["bash", "-euo", "pipefail", "-c", run], cwd: copy, env: ["QUICKSTART_NESTED": "1"])
            if r.status != 0 {
                // XCTest may not show a long multi-line message; print the tail of the output first.
                print("quick start: `\(command)` failed with exit \(r.status); last output:\n\(r.output.suffix(6000))")
                XCTFail("`\(command)` failed with exit \(r.status) (its output is printed above)")
                return
            }
            print("quick start: `\(command)` ok")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.appendingPathComponent("dist/update-manifest.json").path))
    }
}
