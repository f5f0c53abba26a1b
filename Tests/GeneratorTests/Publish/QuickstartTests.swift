import XCTest
import Foundation

/// README's first page works on a fresh copy of the repository: the shell blocks of "Quick start" and "Your own data
/// in five minutes" run in order, each as one script (a pasted block, heredocs and all), in a temporary copy of the
/// repository's files, and must succeed. `swift run generator …` runs the suite's own build of `generator`; the test
/// command (`scripts/test`) is this suite, run for real from a fresh clone by `scripts/check-clone` in CI.
final class QuickstartTests: XCTestCase {
    static let sections = ["Quick start", "Your own data in five minutes"]

    /// The fenced `sh` blocks under the given `## ` headings, in README order, each as one script.
    static func blocks(readme: String, sections: [String]) -> [String] {
        var out: [String] = [], block: [Substring]? = nil, inSection = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if block == nil, line.hasPrefix("## ") { inSection = sections.contains(String(line.dropFirst(3))); continue }
            let fence = line.trimmingCharacters(in: .whitespaces)
            if let lines = block {
                if fence == "```" { out.append(lines.joined(separator: "\n")); block = nil } else { block = lines + [line] }
            } else if inSection, ["```sh", "```bash", "```shell"].contains(fence) {
                block = []
            }
        }
        return out
    }

    /// The test command's lines (`scripts/test …`) taken out of a block: that is the suite this test is part of.
    static func withoutTestCommand(_ block: String) -> String {
        block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("scripts/test") }.joined(separator: "\n")
    }

    func testExtraction() {
        let readme = "x\n```sh\nnot me\n```\n## Quick start\n\n```sh\nswift run a   # comment\ncat > f <<'END'\n## not a heading\nEND\n```\ntext\n```json\n{}\n```\n## Next\n```sh\nno\n```\n## Own\n```bash\nyes\n```\n"
        XCTAssertEqual(Self.blocks(readme: readme, sections: ["Quick start", "Own"]),
                       ["swift run a   # comment\ncat > f <<'END'\n## not a heading\nEND", "yes"])
        XCTAssertEqual(Self.withoutTestCommand("a\n  scripts/test   # all\nb"), "a\nb")
    }

    func testFirstPageCommandsSucceedOnAFreshCopy() throws {
        let root = TestSupport.repoRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.blocks(readme: readme, sections: Self.sections)
        let quickStart = Self.blocks(readme: readme, sections: ["Quick start"]).first ?? ""
        XCTAssertTrue(quickStart.contains("swift run generator build"), quickStart)
        XCTAssertTrue(quickStart.contains("\nscripts/test"), "the test command is the Quick start's second: \(quickStart)")
        XCTAssertGreaterThanOrEqual(blocks.count, 3, "\(blocks)")

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
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.appendingPathComponent(".build").path))

        // `swift run generator` is the suite's build of the same product (compiling the package again from nothing
        // would take minutes; CI's fresh clone proves that part). Any other swift command fails the block.
        let prelude = """
        swift() {
          if [ "${1:-}" = run ] && [ "${2:-}" = generator ]; then shift 2; "$GENERATOR" "$@"
          else echo "the README runs an unexpected command: swift $*" >&2; return 97; fi
        }

        """
        for block in blocks {
            let r = try TestSupport.run(["bash", "-euo", "pipefail", "-c", prelude + Self.withoutTestCommand(block)], cwd: copy,
                                        env: ["GENERATOR": TestSupport.generatorBinary.path, "SOURCE_DATE_EPOCH": "1700000000"])
            if r.status != 0 {
                // The failing block's own output (XCTest may cut a long multi-line message: printed first).
                print("README block failed with exit \(r.status):\n\(block)\nits output:\n\(r.output.suffix(6000))")
                return XCTFail("a README block failed with exit \(r.status):\n\(block)\n\(r.output.suffix(2000))")
            }
        }
        // What the first page says was made.
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.appendingPathComponent("dist/update-manifest.json").path))
        let mine = TestSupport.snapshot(copy.appendingPathComponent("my-tree"))
        for path in ["products/1001/details.json", "categories/tools.json", "categories/index.json", "releases/1/files.json", "update-manifest.json"] {
            XCTAssertNotNil(mine[path], path)
        }
        let tools = try JSONSerialization.jsonObject(with: XCTUnwrap(mine["categories/tools.json"])) as? [String: Any]
        XCTAssertEqual((tools?["products"] as? [[String: Any]])?.compactMap { $0["product_id"] as? String }, ["1001", "1002"])

        // "Change a price and build again: release 2 appears with releases/2/delta-from-1.json."
        let products = copy.appendingPathComponent("my-data/catalog/products.jsonl")
        try String(contentsOf: products, encoding: .utf8).replacingOccurrences(of: "89.99", with: "79.99")
            .write(to: products, atomically: true, encoding: .utf8)
        let again = try TestSupport.runCLI(["build", "--input", "my-data", "--out", "my-tree"], cwd: copy, env: ["SOURCE_DATE_EPOCH": "1700000000"])
        XCTAssertEqual(again.status, 0, again.output)
        let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: copy.appendingPathComponent("my-tree/releases/2/delta-from-1.json"))) as? [String: Any]
        let changed = (delta?["changed"] as? [[String: Any]])?.compactMap { $0["path"] as? String } ?? []
        XCTAssertTrue(changed.contains("products/1001/details.json"), "\(changed)")
    }
}
