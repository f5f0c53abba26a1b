import XCTest
import Foundation

/// The documentation's commands work on a fresh copy of the repository: the shell blocks of README's "Quick start" and
/// "Your own data in five minutes", and every ```sh block of the DocC articles (each article on a copy of its own), run
/// in order, each block as one script (a pasted block, heredocs and all), and must succeed. `swift run generator …`
/// runs the suite's own build of `generator`; the test command (`scripts/test`) is this suite, run for real from a
/// fresh clone by `scripts/check-clone` in CI. Examples that need a server, a store or the network are ```console
/// blocks, not run.
final class QuickstartTests: XCTestCase {
    static let sections = ["Quick start", "Your own data in five minutes"]

    /// The fenced `sh` blocks under the given `## ` headings (every heading when nil), in order, each as one script.
    static func blocks(readme: String, sections: [String]?) -> [String] {
        var out: [String] = [], block: [Substring]? = nil, inSection = sections == nil
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if block == nil, line.hasPrefix("## ") { inSection = sections?.contains(String(line.dropFirst(3))) ?? true; continue }
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

        let copy = try Self.freshCopy()
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        for block in blocks { try Self.run(block, in: copy, from: "README") }
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

    /// Every article's ```sh blocks, in order, on a copy of the repository of its own (two articles at a time).
    func testArticleCommandsSucceedOnAFreshCopy() throws {
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: TestSupport.repoRoot.appendingPathComponent("Sources").path)
            .map { TestSupport.repoRoot.appendingPathComponent("Sources/\($0)/\($0).docc") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        XCTAssertEqual(catalogs.count, 4, "\(catalogs)")
        var articles: [(name: String, blocks: [String])] = []
        for folder in catalogs {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".md") {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                let blocks = Self.blocks(readme: text, sections: nil)
                if !blocks.isEmpty { articles.append(("\(folder.lastPathComponent)/\(name)", blocks)) }
            }
        }
        XCTAssertGreaterThanOrEqual(articles.count, 10, "articles with commands: \(articles.map(\.name))")
        let runs = TestSupport.concurrently(articles.count) { k -> Void in
            let copy = try Self.freshCopy()
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            for block in articles[k].blocks { try Self.run(block, in: copy, from: articles[k].name) }
        }
        for (k, r) in runs.enumerated() {
            if case .failure(let e) = r { XCTFail("\(articles[k].name): \(e)") }
        }
    }

    struct BlockFailed: Error, CustomStringConvertible { let description: String }

    /// A fresh copy of the repository's files (tracked, and new ones not ignored): no .build, no dist.
    static func freshCopy() throws -> URL {
        let root = TestSupport.repoRoot
        let copy = TestSupport.tempDir("quickstart").appendingPathComponent("repo")
        let files = try TestSupport.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd: root)
        guard files.status == 0 else { throw BlockFailed(description: "git ls-files: \(files.output)") }
        for rel in files.output.split(separator: "\0").map(String.init) {
            let src = root.appendingPathComponent(rel), dst = copy.appendingPathComponent(rel)
            guard FileManager.default.fileExists(atPath: src.path) else { continue }   // deleted, not yet committed
            try FileManager.default.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: src, to: dst)
        }
        return copy
    }

    /// Runs one block in `copy` (the test command's lines taken out). `swift run generator` is the suite's build of the
    /// same product (compiling the package again from nothing would take minutes; CI's fresh clone proves that part);
    /// any other swift command fails the block.
    static func run(_ block: String, in copy: URL, from source: String) throws {
        let prelude = """
        swift() {
          if [ "${1:-}" = run ] && [ "${2:-}" = generator ]; then shift 2; "$GENERATOR" "$@"
          else echo "the documentation runs an unexpected command: swift $*" >&2; return 97; fi
        }

        """
        let r = try TestSupport.run(["bash", "-euo", "pipefail", "-c", prelude + withoutTestCommand(block)], cwd: copy,
                                    env: ["GENERATOR": TestSupport.generatorBinary.path, "SOURCE_DATE_EPOCH": "1700000000"])
        guard r.status == 0 else {
            // The failing block's own output (XCTest may cut a long multi-line message: printed first).
            print("\(source): a block failed with exit \(r.status):\n\(block)\nits output:\n\(r.output.suffix(6000))")
            throw BlockFailed(description: "a block failed with exit \(r.status):\n\(block)\n\(r.output.suffix(2000))")
        }
    }
}
