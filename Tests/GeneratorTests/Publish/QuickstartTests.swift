import XCTest
import Foundation

/// README's quick start works on a fresh copy of the repository: every shell command of its code blocks is run,
/// in order, in a temporary copy of the repository's files (with ../shared beside it, as in CI), and must succeed
/// (`swift run generator` by the suite's own build of it; `swift test` is the suite this test belongs to).
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

        // The suite's own build of `generator` stands in for `swift run generator`, and `swift test` is the run this
        // test is part of: compiling the package again from nothing took about 2 of the suite's minutes, and CI's
        // `.ci/run` starts from a fresh clone, which proves that part on every change. What runs here is each
        // command's behaviour on a fresh copy: its arguments, its files, its exit status.
        let generator = "'" + TestSupport.generatorBinary.path + "'"
        var ran = 0
        for command in commands where command != "swift test" {
            let run = command.hasPrefix("swift run generator ") ? generator + command.dropFirst("swift run generator".count) : command
            let r = try TestSupport.run(["bash", "-euo", "pipefail", "-c", run], cwd: copy, env: ["QUICKSTART_NESTED": "1"])
            if r.status != 0 {
                // The failing command's own output (XCTest may cut a long multi-line message: printed first).
                print("quick start: `\(command)` failed with exit \(r.status); its output:\n\(r.output.suffix(6000))")
                XCTFail("`\(command)` failed with exit \(r.status):\n\(r.output.suffix(2000))")
                return
            }
            print("quick start: `\(command)` ok")
            ran += 1
        }
        XCTAssertGreaterThanOrEqual(ran, 4, "\(commands)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.appendingPathComponent("dist/update-manifest.json").path))
    }
}
