import XCTest
import Foundation
@testable import Generator
import Schemas
#if canImport(Glibc)
import Glibc
#endif

/// `validate`, `diff`, `search` and a previous release read only regular files inside their tree: a symlink (to a
/// file or a folder), a FIFO or a path from the tree's own files that climbs out is reported by name and never
/// followed or opened, and nothing of what lies outside the tree reaches the output.
final class TreeConfinementTests: XCTestCase {
    /// What every outside file holds; it must never be printed.
    static let marker = "OUTSIDE-MARKER-7f3a9c"

    /// One clean tree for every test (copied per case).
    static let clean: URL = {
        let out = TestSupport.tempDir("confine-clean").appendingPathComponent("dist")
        _ = try! Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }()

    /// A copy of the clean tree at `case/a/dist`, with outside files holding the marker at `case/outside.json` (what
    /// `../../outside.json` from the tree names) and in `case/outside-folder/`.
    func hostileCopy(_ name: String) throws -> (tree: URL, outside: URL, folder: URL) {
        let base = TestSupport.tempDir("confine-\(name)")
        let tree = base.appendingPathComponent("a/dist")
        try FileManager.default.createDirectory(at: tree.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.clean, to: tree)
        let outside = base.appendingPathComponent("outside.json")
        // Valid JSON shaped like a manifest, an index and a search meta, so a reader that followed it would go on
        // and quote it.
        let text = #"{"\#(Self.marker)":1,"currentVersion":"\#(Self.marker)","forceUpdate":false,"version":1,"fileIndex":{"path":"\#(Self.marker)"},"files":[{"path":"\#(Self.marker)","sha256":"x","size":1}],"termShards":[]}"#
        try Data(text.utf8).write(to: outside)
        let folder = base.appendingPathComponent("outside-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent("index.json"))
        try Data(text.utf8).write(to: folder.appendingPathComponent("\(Self.marker).json"))
        return (tree, outside, folder)
    }

    func symlink(_ at: URL, to target: URL) throws {
        try? FileManager.default.removeItem(at: at)
        try FileManager.default.createSymbolicLink(at: at, withDestinationURL: target)
    }

    func mkfifo(_ at: URL) throws {
        try? FileManager.default.removeItem(at: at)
        XCTAssertEqual(Glibc.mkfifo(at.path, 0o644), 0)
    }

    /// The CLI under a watchdog: a FIFO opened for reading would block forever.
    func cli(_ args: [String]) throws -> (status: Int32, output: String) {
        try TestSupport.run(["timeout", "60", TestSupport.generatorBinary.path] + args)
    }

    func assertNoMarker(_ output: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(output.contains(Self.marker), "outside content printed:\n\(output)", file: file, line: line)
    }

    /// validate: invalid (exit 1) naming `path` and `message`; diff either way round and search: exit 2 naming `path`.
    func assertRefused(_ tree: URL, path: String, message: String, search: Bool = false,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let v = try cli(["validate", tree.path])
        XCTAssertEqual(v.status, 1, v.output, file: file, line: line)
        XCTAssertTrue(v.output.contains("FAIL \(path): \(message)"), v.output, file: file, line: line)
        assertNoMarker(v.output, file: file, line: line)
        let j = try cli(["validate", tree.path, "--format", "json"])
        XCTAssertEqual(j.status, 1, j.output, file: file, line: line)
        assertNoMarker(j.output, file: file, line: line)
        for args in [["diff", Self.clean.path, tree.path], ["diff", tree.path, Self.clean.path], ["diff", "--format", "markdown", Self.clean.path, tree.path]] {
            let d = try cli(args)
            XCTAssertEqual(d.status, 2, d.output, file: file, line: line)
            XCTAssertTrue(d.output.contains(path), d.output, file: file, line: line)
            assertNoMarker(d.output, file: file, line: line)
        }
        if search {
            for index in ["ranked", "full", "compact"] {
                let s = try cli(["search", tree.path, "drill", "--index", index])
                XCTAssertEqual(s.status, 2, s.output, file: file, line: line)
                XCTAssertTrue(s.output.contains(path), s.output, file: file, line: line)
                assertNoMarker(s.output, file: file, line: line)
            }
        }
    }

    /// The build given this tree as --previous fails (exit 1) naming the problem, and writes nothing.
    func assertBuildRefusesPrevious(_ tree: URL, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let out = TestSupport.tempDir("confine-out").appendingPathComponent("dist")
        let r = try cli(["build", "--input", TestSupport.defaultInput.path, "--out", out.path, "--previous", tree.path])
        // (Exit 2 would be the output guard refusing the folder first: refused either way.)
        XCTAssertTrue(r.status == 1 || r.status == 2, r.output, file: file, line: line)
        if r.status == 1 {
            XCTAssertTrue(r.output.contains("the previous release cannot be read safely"), r.output, file: file, line: line)
            XCTAssertTrue(r.output.contains(text), r.output, file: file, line: line)
        }
        assertNoMarker(r.output, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), file: file, line: line)
    }

    // MARK: The cases

    func testCleanTreeStillPassesEverything() throws {
        let (tree, _, _) = try hostileCopy("clean")
        // Every command that reads a tree (two at a time: each is a process of its own), and as --previous, a second
        // release on top of it.
        let out = TestSupport.tempDir("confine-out").appendingPathComponent("dist")
        let commands = [["validate", tree.path], ["diff", Self.clean.path, tree.path]]
            + ["ranked", "full", "compact"].map { ["search", tree.path, "drill", "--index", $0] }
            + [["build", "--input", TestSupport.defaultInput.path, "--out", out.path, "--previous", tree.path]]
        let runs = TestSupport.concurrently(commands.count) { k in try self.cli(commands[k]) }
        for (k, c) in commands.enumerated().dropLast() {
            let r = try runs[k].get()
            XCTAssertEqual(r.status, 0, "\(c): \(r.output)")
        }
        let b = try runs.last!.get()
        XCTAssertEqual(b.status, 0, b.output)
        XCTAssertEqual(try cli(["validate", out.path]).status, 0)
    }

    /// (a) update-manifest.json is a symlink to an outside file.
    func testSymlinkedManifest() throws {
        let (tree, outside, _) = try hostileCopy("manifest")
        try symlink(tree.appendingPathComponent("update-manifest.json"), to: outside)
        try assertRefused(tree, path: "update-manifest.json", message: "symlink: not followed")
        try assertBuildRefusesPrevious(tree, mentioning: "update-manifest.json: symlink: not followed")
        // The output folder's own tree too: the build stops instead of starting a new release history over it.
        let r = try cli(["build", "--input", TestSupport.defaultInput.path, "--out", tree.path])
        XCTAssertTrue(r.status == 1 || r.status == 2, r.output)
        if r.status == 1 { XCTAssertTrue(r.output.contains("update-manifest.json: symlink: not followed"), r.output) }
        assertNoMarker(r.output)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: tree.appendingPathComponent("update-manifest.json").path), outside.path)
    }

    /// A dangling symlink is a symlink too, not "no release yet".
    func testDanglingSymlinkedManifestIsNotAnEmptyFolder() throws {
        let (tree, _, _) = try hostileCopy("dangling")
        try symlink(tree.appendingPathComponent("update-manifest.json"), to: URL(fileURLWithPath: "/nonexistent/\(Self.marker)"))
        try assertRefused(tree, path: "update-manifest.json", message: "symlink: not followed")
        XCTAssertThrowsError(try PreviousRelease.load(from: tree))
    }

    /// (b) A product page replaced by a symlink to an outside file.
    func testSymlinkedPage() throws {
        let (tree, outside, _) = try hostileCopy("page")
        try symlink(tree.appendingPathComponent("products/300179/details.json"), to: outside)
        try assertRefused(tree, path: "products/300179/details.json", message: "symlink: not followed")
    }

    /// (b) The file index, and an older file index a new build would carry over, as symlinks.
    func testSymlinkedIndexes() throws {
        let (tree, outside, _) = try hostileCopy("index")
        try symlink(tree.appendingPathComponent("releases/1/files.json"), to: outside)
        try assertRefused(tree, path: "releases/1/files.json", message: "symlink: not followed")
        try assertBuildRefusesPrevious(tree, mentioning: "releases/1/files.json: symlink: not followed")
    }

    /// (c) fileIndex paths that climb out or are absolute; an index entry that climbs out.
    func testClimbingAndAbsoluteIndexPaths() throws {
        for (name, path, why) in [("climb", "../../outside.json", "path climbs out of the tree"),
                                  ("absolute", "ABS", "absolute path: not inside the tree"),
                                  ("dot", "./update-manifest.json", "'.' segment in path"),
                                  ("backslash", #"releases\1\files.json"#, "backslash in path"),
                                  ("control", "releases/1/files.json\u{1B}[2J", "control character in path"),
                                  ("empty", "", "empty path")] {
            let (tree, outside, _) = try hostileCopy(name)
            let p = path == "ABS" ? outside.path : path
            let manifestURL = tree.appendingPathComponent("update-manifest.json")
            guard case .object(var m) = try JSONReader.parse(Data(contentsOf: manifestURL)), case .object(var ref)? = m["fileIndex"] else { return XCTFail() }
            ref["path"] = .string(p)
            m["fileIndex"] = .object(ref)
            try Data(JSONWriter().bytes(.object(m))).write(to: manifestURL)
            let v = try cli(["validate", tree.path])
            XCTAssertEqual(v.status, 1, v.output)
            XCTAssertTrue(v.output.contains(why), "\(name): \(v.output)")
            XCTAssertFalse(v.output.contains("\u{1B}"), "a control character reached the terminal: \(v.output)")
            assertNoMarker(v.output)
            let d = try cli(["diff", Self.clean.path, tree.path])
            XCTAssertEqual(d.status, 2, d.output)
            XCTAssertTrue(d.output.contains(why), "\(name): \(d.output)")
            XCTAssertFalse(d.output.contains("\u{1B}"), d.output)
            assertNoMarker(d.output)
            try assertBuildRefusesPrevious(tree, mentioning: why)
        }
    }

    func testIndexEntryThatClimbsOut() throws {
        let (tree, _, _) = try hostileCopy("entry")
        // The index entry of SUMMARY.json renamed, the manifest's hash of the index updated to match.
        let manifestURL = tree.appendingPathComponent("update-manifest.json"), indexURL = tree.appendingPathComponent("releases/1/files.json")
        let index = try String(contentsOf: indexURL, encoding: .utf8)
            .replacingOccurrences(of: #""path":"SUMMARY.json""#, with: #""path":"../../outside.json""#)
        try Data(index.utf8).write(to: indexURL)
        guard case .object(var m) = try JSONReader.parse(Data(contentsOf: manifestURL)), case .object(var ref)? = m["fileIndex"] else { return XCTFail() }
        ref["sha256"] = .string(Build.sha256Hex(Array(index.utf8))); ref["size"] = .int(index.utf8.count)
        m["fileIndex"] = .object(ref)
        try Data(JSONWriter().bytes(.object(m))).write(to: manifestURL)
        let v = try cli(["validate", tree.path])
        XCTAssertEqual(v.status, 1, v.output)
        XCTAssertTrue(v.output.contains("FAIL ../../outside.json: path in the file index: path climbs out of the tree"), v.output)
        assertNoMarker(v.output)
        try assertBuildRefusesPrevious(tree, mentioning: "../../outside.json: path climbs out of the tree")
    }

    /// (d) A folder of the tree replaced by a symlink to an outside folder (whose files carry the marker in their
    /// names and content).
    func testSymlinkedFolder() throws {
        let (tree, _, folder) = try hostileCopy("folder")
        try FileManager.default.removeItem(at: tree.appendingPathComponent("categories"))
        try symlink(tree.appendingPathComponent("categories"), to: folder)
        try assertRefused(tree, path: "categories", message: "symlink: not followed")
        // Reported once, not once per listed file below it.
        let v = try cli(["validate", tree.path])
        XCTAssertFalse(v.output.contains("categories/index.json"), v.output)
    }

    /// (d) The search folder as a symlink; search meta naming shards outside.
    func testSearchStaysInTheTree() throws {
        let (tree, outside, folder) = try hostileCopy("search")
        let search = tree.appendingPathComponent("search")
        try FileManager.default.moveItem(at: search, to: folder.appendingPathComponent("search"))
        try symlink(search, to: folder.appendingPathComponent("search"))
        let s = try cli(["search", tree.path, "drill"])
        XCTAssertEqual(s.status, 2, s.output)
        XCTAssertTrue(s.output.contains("search: symlink: not followed"), s.output)
        assertNoMarker(s.output)

        let (tree2, _, _) = try hostileCopy("search-meta")
        let meta = tree2.appendingPathComponent("search/meta.json")
        for (target, why) in [("../../../outside", "path climbs out of the tree")] {
            // Every entry of the term tree's top level (in the meta file) names a directory outside.
            var o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: meta)) as? [String: Any])
            var terms = try XCTUnwrap(o["termShards"] as? [String: Any])
            let entries = try XCTUnwrap(terms["entries"] as? [[Any]])
            XCTAssertFalse(entries.isEmpty)
            terms["entries"] = entries.map { [$0[0], target] }
            o["termShards"] = terms
            try JSONSerialization.data(withJSONObject: o).write(to: meta)
            let r = try cli(["search", tree2.path, "drill"])
            XCTAssertEqual(r.status, 2, r.output)
            XCTAssertTrue(r.output.contains(why), r.output)
            assertNoMarker(r.output)
            try FileManager.default.removeItem(at: meta)
            try FileManager.default.copyItem(at: Self.clean.appendingPathComponent("search/meta.json"), to: meta)
        }
        for file in ["search/meta.json", "search-index.json", "search-index-compact.json"] {
            let (t, outside, _) = try hostileCopy("search-file")
            try symlink(t.appendingPathComponent(file), to: outside)
            let index = file == "search/meta.json" ? "ranked" : file == "search-index.json" ? "full" : "compact"
            let r = try cli(["search", t.path, "drill", "--index", index])
            XCTAssertEqual(r.status, 2, r.output)
            XCTAssertTrue(r.output.contains("\(file): symlink: not followed"), r.output)
            assertNoMarker(r.output)
        }
    }

    /// (e) FIFOs in the tree, where a page and where the search index should be: never opened, so nothing hangs.
    func testFIFOsDoNotHang() throws {
        let (tree, _, _) = try hostileCopy("fifo")
        try mkfifo(tree.appendingPathComponent("products/300179/details.json"))
        try mkfifo(tree.appendingPathComponent("search-index.json"))
        let started = Date()
        try assertRefused(tree, path: "products/300179/details.json", message: "FIFO: not opened")
        let s = try cli(["search", tree.path, "drill", "--index", "full"])
        XCTAssertEqual(s.status, 2, s.output)
        XCTAssertTrue(s.output.contains("search-index.json: FIFO: not opened"), s.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 50)

        let (tree2, _, _) = try hostileCopy("fifo-manifest")
        try mkfifo(tree2.appendingPathComponent("update-manifest.json"))
        try assertRefused(tree2, path: "update-manifest.json", message: "FIFO: not opened")
        try assertBuildRefusesPrevious(tree2, mentioning: "update-manifest.json: FIFO: not opened")
    }

    /// A socket, and file names no built tree has (an escape sequence, a backslash): reported, escaped.
    func testSocketAndStrangeNames() throws {
        let (tree, _, _) = try hostileCopy("socket")
        let sock = tree.appendingPathComponent("products/sock")
        let py = try TestSupport.run(["python3", "-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", sock.path])
        XCTAssertEqual(py.status, 0, py.output)
        try Data("{}".utf8).write(to: tree.appendingPathComponent("x\u{1B}[31mred.json"))
        try Data("{}".utf8).write(to: tree.appendingPathComponent(#"a\b.json"#))
        let v = try cli(["validate", tree.path])
        XCTAssertEqual(v.status, 1, v.output)
        XCTAssertTrue(v.output.contains("FAIL products/sock: socket: not opened"), v.output)
        XCTAssertTrue(v.output.contains(#"x\u{1B}[31mred.json: control character in path"#), v.output)
        XCTAssertTrue(v.output.contains(#"a\b.json: backslash in path"#), v.output)
        XCTAssertFalse(v.output.contains("\u{1B}"), v.output)
        let d = try cli(["diff", Self.clean.path, tree.path])
        XCTAssertEqual(d.status, 2, d.output)
        XCTAssertFalse(d.output.contains("\u{1B}"), d.output)
    }

    /// A folder without update-manifest.json (or no folder) is still "no release yet".
    func testFolderWithoutManifestIsStillNoRelease() throws {
        let empty = TestSupport.tempDir("confine-empty")
        XCTAssertNil(try PreviousRelease.load(from: empty))
        XCTAssertNil(try PreviousRelease.load(from: empty.appendingPathComponent("none")))
        let (tree, _, _) = try hostileCopy("load")
        let release = try XCTUnwrap(try PreviousRelease.load(from: tree))
        XCTAssertEqual(release.version, 1)
    }

    // MARK: The reader itself, with openat2 and with the folder-by-folder walk

    func testReaderBothWays() throws {
        let (tree, outside, folder) = try hostileCopy("reader")
        try symlink(tree.appendingPathComponent("SUMMARY.json"), to: outside)
        try FileManager.default.removeItem(at: tree.appendingPathComponent("categories"))
        try symlink(tree.appendingPathComponent("categories"), to: folder)
        try mkfifo(tree.appendingPathComponent("fifo.json"))
        for openat2 in [true, false] where !openat2 || TreeReader.hasOpenat2 {
            let r = try TreeReader(root: tree, useOpenat2: openat2)
            XCTAssertEqual(try r.read("deeplink-map.json"), Array(try Data(contentsOf: tree.appendingPathComponent("deeplink-map.json"))))
            XCTAssertEqual(try r.read("products/300179/details.json").count,
                           try Data(contentsOf: tree.appendingPathComponent("products/300179/details.json")).count)
            func problem(_ path: String) -> TreeProblem? {
                do { _ = try r.read(path); return nil } catch { return error as? TreeProblem }
            }
            XCTAssertEqual(problem("SUMMARY.json"), TreeProblem(.symlink, "SUMMARY.json", "symlink: not followed"))
            XCTAssertEqual(problem("categories/index.json"), TreeProblem(.symlink, "categories", "symlink: not followed"))
            XCTAssertEqual(problem("fifo.json"), TreeProblem(.special, "fifo.json", "FIFO: not opened"))
            XCTAssertEqual(problem("products"), TreeProblem(.notAFile, "products", "a folder, not a file"))
            XCTAssertEqual(problem("nope.json")?.kind, .missing)
            XCTAssertEqual(problem("deeplink-map.json/x")?.kind, .missing)
            XCTAssertEqual(problem("../a/dist/SUMMARY.json")?.kind, .unsafePath)
            XCTAssertEqual(problem(outside.path)?.kind, .unsafePath)
        }
        let walk = try TreeReader(root: tree).walk()
        XCTAssertEqual(Set(walk.problems.map(\.path)), ["SUMMARY.json", "categories", "fifo.json"])
        XCTAssertFalse(walk.files.contains { $0.hasPrefix("categories/") || $0 == "SUMMARY.json" })
        XCTAssertTrue(walk.files.contains("products/300179/details.json"))
    }

    func testPathRules() {
        for ok in ["a.json", "products/1/details.json", ".nojekyll", "a..b.json", "x/.hidden"] {
            XCTAssertNil(TreeReader.pathRejection(ok), ok)
        }
        for bad in ["", "/etc/passwd", "..", "../x", "a/../../x", "a/./b", ".", "a//b", "a/", #"a\b"#, "a\u{0}b", "a\nb", "a\u{7F}", "a\u{9B}b"] {
            XCTAssertNotNil(TreeReader.pathRejection(bad), bad.debugDescription)
        }
        XCTAssertEqual(TreeReader.shown("a\u{1B}[2Jb\n"), #"a\u{1B}[2Jb\u{0A}"#)
    }
}
