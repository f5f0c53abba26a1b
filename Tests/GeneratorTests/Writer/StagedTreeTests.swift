import XCTest
import Foundation
@testable import Generator

/// The writer reuses unchanged files of the current tree by hard link; a link must never carry a symlink (or a file
/// reached through a symlinked folder) from the current tree into the new one, and no path may leave the tree.
final class StagedTreeTests: XCTestCase {
    let bytes = Array(#"{"a":1}"#.utf8)
    let sha = "0000000000000000000000000000000000000000000000000000000000000000"   // what the index claims

    /// A current tree whose index says `path` has `sha`, with the given layout made by `setUp`.
    func stageOver(_ prepare: (URL, URL) throws -> Void, path: String) throws -> (out: URL, outside: URL) {
        let parent = TestSupport.tempDir("staged"), out = parent.appendingPathComponent("dist"), outside = parent.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try prepare(out, outside)
        let staged = try StagedTree(output: out, previous: [path: sha])
        try staged.put(path, bytes: bytes, sha256: sha)
        let stats = try staged.commit()
        XCTAssertEqual(stats.linked, 0, "nothing may be reused through a symlink")
        return (out, outside)
    }

    func testASymlinkedFileIsRewrittenNotLinked() throws {
        let (out, _) = try stageOver({ out, outside in
            // Same size as the new bytes, so only the file type can give it away.
            try Data("SECRET!".utf8).write(to: outside.appendingPathComponent("secret"))
            try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("a.json"), withDestinationURL: outside.appendingPathComponent("secret"))
        }, path: "a.json")
        let attrs = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("a.json").path)
        XCTAssertEqual(attrs[.type] as? FileAttributeType, .typeRegular)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("a.json")), Data(bytes))
    }

    /// A symlink whose own size (the length of the path it holds) is the new file's: only its type gives it away.
    func testASymlinkOfTheFilesSizeIsRewrittenNotKept() throws {
        let (out, _) = try stageOver({ out, _ in
            let target = "../o/ab"   // 7 bytes, as many as the new file
            XCTAssertEqual(target.utf8.count, bytes.count)
            try FileManager.default.createDirectory(at: out.deletingLastPathComponent().appendingPathComponent("o"), withIntermediateDirectories: true)
            try Data("SECRET!".utf8).write(to: out.deletingLastPathComponent().appendingPathComponent("o/ab"))
            try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("a.json").path, withDestinationPath: target)
        }, path: "a.json")
        let attrs = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("a.json").path)
        XCTAssertEqual(attrs[.type] as? FileAttributeType, .typeRegular)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("a.json")), Data(bytes))
    }

    func testAFileBehindASymlinkedFolderIsRewrittenNotLinked() throws {
        let (out, outside) = try stageOver({ out, outside in
            try FileManager.default.createDirectory(at: outside.appendingPathComponent("p"), withIntermediateDirectories: true)
            try Data("SECRET!".utf8).write(to: outside.appendingPathComponent("p/details.json"))
            try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("products"), withDestinationURL: outside)
        }, path: "products/p/details.json")
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("products/p/details.json")), Data(bytes))
        // The outside file is not linked into the tree (a hard link would share its inode and count).
        let attrs = try FileManager.default.attributesOfItem(atPath: outside.appendingPathComponent("p/details.json").path)
        XCTAssertEqual((attrs[.referenceCount] as? NSNumber)?.intValue, 1)
    }

    /// The link one level down, in a real folder (a product's own folder): only the parent's listing tells it apart.
    func testAFileBehindASymlinkedFolderInARealFolderIsRewrittenNotLinked() throws {
        let (out, outside) = try stageOver({ out, outside in
            try FileManager.default.createDirectory(at: outside.appendingPathComponent("p"), withIntermediateDirectories: true)
            try Data("SECRET!".utf8).write(to: outside.appendingPathComponent("p/details.json"))
            try FileManager.default.createDirectory(at: out.appendingPathComponent("products/q"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("products/p"), withDestinationURL: outside.appendingPathComponent("p"))
        }, path: "products/p/details.json")
        let folder = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("products/p").path)
        XCTAssertEqual(folder[.type] as? FileAttributeType, .typeDirectory)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("products/p/details.json")), Data(bytes))
        let attrs = try FileManager.default.attributesOfItem(atPath: outside.appendingPathComponent("p/details.json").path)
        XCTAssertEqual((attrs[.referenceCount] as? NSNumber)?.intValue, 1)
        XCTAssertEqual(try Data(contentsOf: outside.appendingPathComponent("p/details.json")), Data("SECRET!".utf8))
    }

    func testARegularFileOfAnotherSizeIsRewritten() throws {
        let (out, _) = try stageOver({ out, _ in
            try Data("edited by hand".utf8).write(to: out.appendingPathComponent("a.json"))
        }, path: "a.json")
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("a.json")), Data(bytes))
    }

    func testAnUnchangedRegularFileIsLinked() throws {
        let parent = TestSupport.tempDir("staged"), out = parent.appendingPathComponent("dist")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("p"), withIntermediateDirectories: true)
        try Data(bytes).write(to: out.appendingPathComponent("p/a.json"))
        let staged = try StagedTree(output: out, previous: ["p/a.json": sha])
        try staged.put("p/a.json", bytes: bytes, sha256: sha)
        XCTAssertEqual(try staged.commit().linked, 1)
    }

    /// One worker's keeper remembers the last parent folder's listing: a page in a real folder is kept, then one of
    /// the same name under a symlinked sibling folder is not (the listing remembered is not the sibling's), nor one
    /// in a symlinked folder of the remembered parent. What a keeper kept is in the tree once adopted, not before.
    func testAKeeperKeepsOnlyThroughRealFoldersAndHandsItsFilesOver() throws {
        let parent = TestSupport.tempDir("keeper"), out = parent.appendingPathComponent("dist"), outside = parent.appendingPathComponent("outside")
        let fm = FileManager.default
        for dir in ["products/a", "products/b", "outside/c"] {
            try fm.createDirectory(at: parent.appendingPathComponent(dir == "outside/c" ? dir : "dist/" + dir), withIntermediateDirectories: true)
        }
        for path in ["dist/products/a/details.json", "dist/products/b/details.json", "outside/c/details.json"] {
            try Data(bytes).write(to: parent.appendingPathComponent(path))
        }
        try fm.createSymbolicLink(at: out.appendingPathComponent("mirror"), withDestinationURL: out.appendingPathComponent("products"))
        try fm.createSymbolicLink(at: out.appendingPathComponent("products/c"), withDestinationURL: outside.appendingPathComponent("c"))
        let paths = ["products/a/details.json", "mirror/a/details.json", "products/b/details.json", "products/c/details.json"]
        let staged = try StagedTree(output: out, previous: Dictionary(uniqueKeysWithValues: paths.map { ($0, sha) }))
        let keeper = StagedTree.Keeper()
        XCTAssertEqual(paths.map { staged.keep($0, sha256: sha, size: bytes.count, in: keeper) }, [true, false, true, false])
        XCTAssertEqual(keeper.count, 2)
        XCTAssertFalse(staged.has("products/a/details.json"), "not the tree's until adopted")
        staged.adopt([keeper])
        XCTAssertTrue(staged.has("products/a/details.json"))
        XCTAssertTrue(staged.has("products/b/details.json"))
        XCTAssertFalse(staged.has("mirror/a/details.json"))
        // Another hash, or another size: not kept.
        let other = StagedTree.Keeper()
        XCTAssertFalse(staged.keep("products/a/details.json", sha256: String(repeating: "1", count: 64), size: bytes.count, in: other))
        XCTAssertFalse(staged.keep("products/b/details.json", sha256: sha, size: bytes.count + 1, in: other))
        XCTAssertEqual(other.count, 0)
        XCTAssertEqual(try staged.commit().linked, 2)
    }

    func testPathsThatCouldLeaveTheTreeAreRefused() throws {
        for bad in ["", "/etc/x", "../x", "a/../../x", "a/./b", "./a", "a//b", "a/", "a\\b", "a/..", "a/.", "x\u{0}y", "x\u{1B}y", ".", ".."] {
            XCTAssertFalse(StagedTree.isPlainRelativePath(bad), bad)
        }
        for good in ["a.json", "products/p-1/details.json", ".nojekyll", "a/...b/c", "a..b", "x/.well-known"] {
            XCTAssertTrue(StagedTree.isPlainRelativePath(good), good)
        }
        let out = TestSupport.tempDir("staged").appendingPathComponent("dist")
        let staged = try StagedTree(output: out, previous: [:])
        XCTAssertThrowsError(try staged.put("../escaped.json", bytes: bytes, sha256: sha))
        staged.discard()
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.deletingLastPathComponent().appendingPathComponent("escaped.json").path))
    }
}
