import XCTest
import Foundation
@testable import Generator

/// A build replaces its output folder, so every output that is not ours to replace is refused with exit 2 before
/// anything is touched; a new path, an empty folder and a tree built earlier are accepted.
final class OutputGuardTests: XCTestCase {
    static let cats = TestSupport.categoriesJSON

    static func smallInput(prices: [String] = ["19.99", "29.99", "39.99"]) -> URL {
        let lines = prices.enumerated().map { TestSupport.productLine("p\($0.offset + 1)", price: $0.element) }
        return TestSupport.makeInput(files: ["catalog/products.jsonl": lines.joined(separator: "\n"), "catalog/categories.json": cats])
    }

    /// Every entry under `root` (files with their bytes, folders, links with their target), without following links.
    static func listing(_ root: URL) -> [String: String] {
        var out: [String: String] = [:]
        func walk(_ dir: String, _ rel: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
            for name in names {
                let path = dir + "/" + name, r = rel.isEmpty ? name : rel + "/" + name
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: out[r] = "folder"; walk(path, r)
                case S_IFLNK: out[r] = "link → " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
                default: out[r] = (FileManager.default.contents(atPath: path)).map { "file \($0.count) \($0.hashValue)" } ?? "unreadable"
                }
            }
        }
        walk(root.path, "")
        return out
    }

    /// box/home (HOME), box/work (the current folder) with data/input, a file, a folder of someone's files, a link to
    /// the input folder.
    func sandbox() throws -> (box: URL, work: URL, home: URL, input: URL) {
        let box = TestSupport.tempDir("guard"), fm = FileManager.default
        let home = box.appendingPathComponent("home"), work = box.appendingPathComponent("work")
        let input = work.appendingPathComponent("data/input")
        try fm.createDirectory(at: home, withIntermediateDirectories: true)
        try Data("my notes\n".utf8).write(to: home.appendingPathComponent("notes.txt"))
        try fm.createDirectory(at: input.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fm.copyItem(at: Self.smallInput(), to: input)
        try Data("keep me\n".utf8).write(to: work.appendingPathComponent("afile"))
        try fm.createDirectory(at: work.appendingPathComponent("other"), withIntermediateDirectories: true)
        try Data("someone's\n".utf8).write(to: work.appendingPathComponent("other/x.txt"))
        try fm.createSymbolicLink(atPath: work.appendingPathComponent("link").path, withDestinationPath: "data/input")
        return (box, work, home, input)
    }

    func assertRefused(_ args: [String], cwd: URL, home: URL, box: URL, mentions expected: String,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let before = Self.listing(box), bytesBefore = TestSupport.snapshot(box)
        let r = try TestSupport.runCLI(["build"] + args, cwd: cwd, env: ["HOME": home.path, "SOURCE_DATE_EPOCH": "1700000000"])
        XCTAssertEqual(r.status, 2, "\(args): \(r.output)", file: file, line: line)
        XCTAssertTrue(r.output.contains("refusing to"), "\(args): \(r.output)", file: file, line: line)
        XCTAssertTrue(r.output.contains(expected), "\(args): expected '\(expected)' in \(r.output)", file: file, line: line)
        XCTAssertEqual(Self.listing(box), before, "\(args): something was touched", file: file, line: line)
        XCTAssertEqual(TestSupport.snapshot(box), bytesBefore, "\(args): bytes changed", file: file, line: line)
    }

    func testEveryDangerousOutputIsRefusedAndNothingIsTouched() throws {
        let (box, work, home, input) = try sandbox()
        let cases: [([String], String)] = [
            (["--out", ""], "the path is empty"),
            (["--out", "."], "it is the current folder"),
            (["--out", work.path], "it is the current folder"),
            // (These contain the home folder too; either reason will do.)
            (["--out", ".."], "it contains"),
            (["--out", "../.."], "it contains"),
            (["--out", "/"], "it is the root folder"),
            (["--out", home.path], "it is your home folder"),
            (["--out", "data/input"], "it is the input folder"),
            (["--out", "data"], "it contains the input folder"),
            (["--out", "data/input/dist"], "it is inside the input folder"),
            (["--out", "data/input/catalog"], "it is inside the input folder"),
            (["--out", "link"], "it is the input folder"),
            (["--out", "link/dist"], "it is inside the input folder"),
            (["--out", "afile"], "it exists and is not a folder"),
            (["--out", "afile/dist"], "a part of the path is a file"),
            (["--out", "other"], "not built by generator"),
            (["--out", "other/../data/input"], "it is the input folder"),
        ]
        for (args, expected) in cases {
            try assertRefused(["--input", "data/input"] + args, cwd: work, home: home, box: box, mentions: expected)
        }
        // Run inside the input folder: `.` is the input folder, and so is the default-free `--input .`.
        try assertRefused(["--input", ".", "--out", "."], cwd: input, home: home, box: box, mentions: "it is the current folder")
        try assertRefused(["--input", ".", "--out", "dist"], cwd: input, home: home, box: box, mentions: "it is inside the input folder")
        // The home folder through a link, and a link that leads nowhere.
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("myhome").path, withDestinationPath: home.path)
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("dangling").path, withDestinationPath: "nowhere/at/all")
        try assertRefused(["--input", "data/input", "--out", "myhome"], cwd: work, home: home, box: box, mentions: "it is your home folder")
        try assertRefused(["--input", "data/input", "--out", "dangling"], cwd: work, home: home, box: box, mentions: "leads nowhere")
        // A previous release must be a tree, and not the input folder.
        try assertRefused(["--input", "data/input", "--out", "dist", "--previous", "data/input"], cwd: work, home: home, box: box,
                          mentions: "refusing to read the previous release from data/input")
        try assertRefused(["--input", "data/input", "--out", "dist", "--previous", "other"], cwd: work, home: home, box: box,
                          mentions: "not a tree built by generator")
        try assertRefused(["--input", "data/input", "--out", "dist", "--previous", ""], cwd: work, home: home, box: box,
                          mentions: "the path is empty")
    }

    /// The message says why and what to do.
    func testMessageNamesTheReasonAndTheWayOut() throws {
        let (box, work, home, _) = try sandbox()
        _ = box
        let r = try TestSupport.runCLI(["build", "--input", "data/input", "--out", "data/input"], cwd: work, env: ["HOME": home.path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.output.contains("refusing to write to data/input ("), r.output)
        XCTAssertTrue(r.output.contains("it is the input folder; choose an output folder outside the input folder, e.g. --out dist"), r.output)
    }

    func testNewPathEmptyFolderAndOwnTreeAreAccepted() throws {
        let (_, work, home, input) = try sandbox()
        let env = ["HOME": home.path, "SOURCE_DATE_EPOCH": "1700000000"]
        // A new path (under folders that do not exist yet).
        let fresh = try TestSupport.runCLI(["build", "--input", "data/input", "--out", "site/v/dist"], cwd: work, env: env)
        XCTAssertEqual(fresh.status, 0, fresh.output)
        // An empty folder.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let empty = try TestSupport.runCLI(["build", "--input", "data/input", "--out", "empty"], cwd: work, env: env)
        XCTAssertEqual(empty.status, 0, empty.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work.appendingPathComponent("empty/update-manifest.json").path))
        // A tree built earlier: rebuilt on top (a changed price makes version 2), also through a link to it.
        try FileManager.default.removeItem(at: input)
        try FileManager.default.copyItem(at: Self.smallInput(prices: ["19.99", "31.50", "39.99"]), to: input)
        let again = try TestSupport.runCLI(["build", "--input", "data/input", "--out", "empty"], cwd: work, env: env)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.output.contains("version 2"), again.output)
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("current").path, withDestinationPath: "site/v/dist")
        let linked = try TestSupport.runCLI(["build", "--input", "data/input", "--out", "current"], cwd: work, env: env)
        XCTAssertEqual(linked.status, 0, linked.output)
        XCTAssertTrue(linked.output.contains("version 2"), linked.output)
        // The link still leads to the tree, now version 2 (the real folder was replaced, not the link).
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: work.appendingPathComponent("current").path), "site/v/dist")
        let manifest = try String(contentsOf: work.appendingPathComponent("site/v/dist/update-manifest.json"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(#""version":2"#), manifest)
        // A previous release given explicitly is read.
        let withPrevious = try TestSupport.runCLI(["build", "--input", "data/input", "--out", "third", "--previous", "empty"], cwd: work, env: env)
        XCTAssertEqual(withPrevious.status, 0, withPrevious.output)
        // Nothing left beside the outputs but their build caches: no lock file, no staging folder.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix(".") }.sorted(),
                       [".empty.cache", ".empty.cache.products", ".third.cache", ".third.cache.products"])
    }

    /// A tree whose manifest names no existing index (or names one outside it) is not ours to replace.
    func testTreeRecognition() throws {
        let dir = TestSupport.tempDir("recog")
        func write(_ path: String, _ text: String) throws {
            let u = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: u)
        }
        XCTAssertTrue(OutputGuard.isEmptyFolder(dir.path))
        try write("update-manifest.json", #"{"fileIndex":{"path":"releases/1/files.json"}}"#)
        XCTAssertFalse(OutputGuard.isBuiltTree(dir.path))
        try write("releases/1/files.json", #"{"files":[]}"#)
        XCTAssertTrue(OutputGuard.isBuiltTree(dir.path))
        for bad in ["../outside.json", "/etc/passwd", "releases/../releases/1/files.json", "releases\\1\\files.json", "", "releases//1/files.json"] {
            try write("update-manifest.json", #"{"fileIndex":{"path":"\#(bad.replacingOccurrences(of: "\\", with: "\\\\"))"}}"#)
            XCTAssertFalse(OutputGuard.isBuiltTree(dir.path), bad)
        }
        // A linked index is not followed.
        try write("update-manifest.json", #"{"fileIndex":"index.json"}"#)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("index.json").path,
                                                   withDestinationPath: dir.appendingPathComponent("releases/1/files.json").path)
        XCTAssertFalse(OutputGuard.isBuiltTree(dir.path))
        try write("update-manifest.json", "not json")
        XCTAssertFalse(OutputGuard.isBuiltTree(dir.path))
    }

    /// The library call refuses the same outputs with a typed reason (future commands reuse it).
    func testLibraryCheck() throws {
        let (_, work, home, _) = try sandbox()
        func problem(_ out: String, previous: String? = nil) -> OutputGuard.Refusal.Problem? {
            do { _ = try OutputGuard.check(output: out, input: "data/input", previous: previous, cwd: work.path, home: home.path); return nil }
            catch let r as OutputGuard.Refusal { return r.problem } catch { return nil }
        }
        XCTAssertEqual(problem(""), .empty)
        XCTAssertEqual(problem("."), .currentFolder)
        XCTAssertEqual(problem("/"), .root)
        XCTAssertEqual(problem("link"), .inputFolder)
        XCTAssertEqual(problem("data"), .containsInput)
        XCTAssertEqual(problem("other"), .notOurTree)
        XCTAssertEqual(problem("afile"), .notAFolder)
        // A name with control characters is shown escaped.
        do { _ = try OutputGuard.check(output: "data/input/\u{1B}[31mred", input: "data/input", cwd: work.path, home: home.path); XCTFail() }
        catch { XCTAssertTrue("\(error)".contains("data/input/\\u{1B}[31mred"), "\(error)"); XCTAssertFalse("\(error)".contains("\u{1B}")) }
        XCTAssertNil(problem("dist"))
        XCTAssertNil(problem("new/./a/../dist"))
        let ok = try OutputGuard.check(output: "link/../../dist", input: "data/input", cwd: work.path, home: home.path)
        // Links are resolved before `..` (as the kernel does): link/.. is data, link/../.. is the current folder.
        XCTAssertEqual(ok.output.path, work.resolvingSymlinksInPath().appendingPathComponent("dist").path)
    }
    /// `URL(fileURLWithPath: "~")` is the home folder from the password database (not $HOME): a quoted "~" once
    /// replaced the real home folder with a tree. Such paths are refused. The input here is broken on purpose, so a
    /// regression fails reading it (exit 1) before it could stage anything.
    func testAnUnexpandedTildeIsRefused() throws {
        let input = TestSupport.makeInput(files: [:])
        try Data("{ not json".utf8).write(to: input.appendingPathComponent("site.json"))
        let sandbox = TestSupport.tempDir("tilde"), home = TestSupport.tempDir("home")
        for args in [["--out", "~"], ["--out", "~/dist"], ["--out", "~root"], ["--out", "dist", "--previous", "~"]] {
            let r = try TestSupport.runCLI(["build", "--input", input.path] + args, cwd: sandbox, env: ["HOME": home.path])
            XCTAssertEqual(r.status, 2, "\(args): \(r.output)")
            XCTAssertTrue(r.output.contains("which the shell did not expand"), r.output)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.path), [])
        // Command-line paths become URLs without tilde expansion.
        XCTAssertEqual(OutputGuard.fileURL("~", cwd: "/tmp/x").path, "/tmp/x/~")
        XCTAssertEqual(OutputGuard.fileURL("a/~b", cwd: "/tmp/x").path, "/tmp/x/a/~b")
    }

    /// The account's home folder counts as home even when $HOME says otherwise.
    func testTheAccountsHomeIsRefusedWhateverHOMESays() throws {
        guard let home = OutputGuard.accountHome(), home != "/" else { throw XCTSkip("no home folder in the password database") }
        let input = OutputGuardTests.smallInput()
        XCTAssertThrowsError(try OutputGuard.check(output: home, input: input.path, cwd: "/tmp", home: "/nonexistent")) { e in
            XCTAssertEqual((e as? OutputGuard.Refusal)?.problem, .home)
        }
    }
}

/// What a failed build says it left: the previous tree unchanged, or nothing at all when there was none.
final class BuildFailureMessageTests: XCTestCase {
    func testFailedFirstBuildSaysNothingWasWritten() throws {
        let bad = TestSupport.makeInput(files: ["catalog/products.jsonl": #"{"id":"1","name": oops}"#,
                                                "catalog/categories.json": TestSupport.categoriesJSON])
        let out = TestSupport.tempDir("msg").appendingPathComponent("dist")
        let first = try TestSupport.runCLI(["build", "--input", bad.path, "--out", out.path])
        XCTAssertEqual(first.status, 1, first.output)
        XCTAssertTrue(first.output.contains("nothing was written to \(out.path)"), first.output)
        XCTAssertFalse(first.output.contains("left unchanged"), first.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        // With a tree in place, the tree is what stays.
        let good = try TestSupport.runCLI(["build", "--input", OutputGuardTests.smallInput().path, "--out", out.path])
        XCTAssertEqual(good.status, 0, good.output)
        let again = try TestSupport.runCLI(["build", "--input", bad.path, "--out", out.path])
        XCTAssertEqual(again.status, 1, again.output)
        XCTAssertTrue(again.output.contains("\(out.path) was left unchanged"), again.output)
    }

}
