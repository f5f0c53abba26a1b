import XCTest
import Foundation
@testable import Generator

/// A killed build leaves its staging folder beside the output (up to a whole tree); every later build removes it,
/// including one that finds no change, and removes nothing it cannot prove a build made.
final class StagingLeftoverTests: XCTestCase {
    let epoch = ["SOURCE_DATE_EPOCH": "1700000000"]

    /// The pid of a process that has finished.
    func deadPid() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    func makeFolder(_ url: URL, marked: Bool, file: String = "tree/products/x/details.json") throws {
        let fm = FileManager.default
        try fm.createDirectory(at: url.appendingPathComponent(file).deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: url.appendingPathComponent(file))
        if marked {
            try Data("\(StagedTree.markerHeader)\npid 0\n".utf8).write(to: url.appendingPathComponent(StagedTree.markerName))
        }
    }

    func testDeadBuildsStagingFolderIsRemovedByANoChangeBuild() throws {
        let input = OutputGuardTests.smallInput()
        let parent = TestSupport.tempDir("leftover"), out = parent.appendingPathComponent("dist")
        let first = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: epoch)
        XCTAssertEqual(first.status, 0, first.output)
        let tree = TestSupport.snapshot(out)
        let dead = try deadPid(), dead2 = try deadPid()
        let fm = FileManager.default
        let abandoned = parent.appendingPathComponent(".dist.staging-\(dead)")
        // Marked too, but its pid is alive (pid 1): the lock proves no build of this output runs, so pids do not matter.
        let reusedPid = parent.appendingPathComponent(".dist.staging-1")
        try makeFolder(abandoned, marked: true)
        try makeFolder(reusedPid, marked: true)
        // Left alone: no marker; a name not of the pattern; another output's; an old-style name; a link to a marked folder.
        let keep = [".dist.staging-\(dead2)", ".dist.staging-\(dead)x", ".other.staging-\(dead)", ".dist.old-\(dead)", ".dist.staging-", "dist.staging-\(dead)"]
        try makeFolder(parent.appendingPathComponent(keep[0]), marked: false)
        for name in keep.dropFirst() { try makeFolder(parent.appendingPathComponent(name), marked: true) }
        let elsewhere = TestSupport.tempDir("elsewhere")
        try makeFolder(elsewhere, marked: true)
        try fm.createSymbolicLink(atPath: parent.appendingPathComponent(".dist.staging-\(dead2 + 1)").path, withDestinationPath: elsewhere.path)
        let before = TestSupport.snapshot(parent).filter { !$0.key.hasPrefix("dist/") && !$0.key.hasPrefix(".dist.staging-\(dead)/") && !$0.key.hasPrefix(".dist.staging-1/") }

        let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: epoch)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("No content changes"), r.output)
        XCTAssertFalse(fm.fileExists(atPath: abandoned.path))
        XCTAssertFalse(fm.fileExists(atPath: reusedPid.path))
        for name in keep { XCTAssertTrue(fm.fileExists(atPath: parent.appendingPathComponent(name).path), name) }
        XCTAssertTrue(fm.fileExists(atPath: elsewhere.appendingPathComponent(StagedTree.markerName).path))
        XCTAssertEqual(TestSupport.snapshot(parent).filter { !$0.key.hasPrefix("dist/") }, before)
        XCTAssertEqual(TestSupport.snapshot(out), tree)
    }

    /// A build killed between the two renames of a swap (on a kernel without RENAME_EXCHANGE) leaves no output and the
    /// previous tree in its staging folder: the next build puts it back, then finds nothing changed.
    func testPreviousTreeOfAKilledSwapIsPutBack() throws {
        let input = OutputGuardTests.smallInput()
        let parent = TestSupport.tempDir("swap"), out = parent.appendingPathComponent("dist")
        XCTAssertEqual(try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: epoch).status, 0)
        let tree = TestSupport.snapshot(out)
        let folder = parent.appendingPathComponent(".dist.staging-\(try deadPid())")
        try makeFolder(folder, marked: true)
        try FileManager.default.moveItem(at: out, to: folder.appendingPathComponent("old"))
        let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: epoch)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("No content changes"), r.output)
        XCTAssertEqual(TestSupport.snapshot(out), tree)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted(), [".dist.cache", ".dist.cache.products", "dist"])
    }

    /// A failed build removes its own staging folder; a folder someone else made under this build's staging name
    /// stops the build instead of being removed.
    func testOwnStagingNameTakenBySomeoneElse() throws {
        let parent = TestSupport.tempDir("taken"), out = parent.appendingPathComponent("dist")
        let lock = try BuildLock(output: out, wait: 0)
        defer { lock.release() }
        let mine = parent.appendingPathComponent(StagedTree.folderName(for: out, pid: getpid()))
        try makeFolder(mine, marked: false)
        XCTAssertThrowsError(try StagedTree(output: out, previous: [:])) { e in
            XCTAssertTrue("\(e)".contains("exists and was not made by a build"), "\(e)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: mine.appendingPathComponent("tree/products/x/details.json").path))
        try FileManager.default.removeItem(at: mine)
        let staged = try StagedTree(output: out, previous: [:])
        try staged.put("a.json", bytes: Array("{}".utf8), sha256: "x")
        staged.discard()
        XCTAssertFalse(FileManager.default.fileExists(atPath: mine.path))
    }

    /// A build killed while it wrote its cache or its products snapshot leaves a temporary file beside it (50 MB for
    /// 100,000 products): the next build removes it, beside the output and in a --cache folder alike, and nothing it
    /// cannot tell is such a file of a process that is gone.
    func testAKilledBuildsCacheTemporariesAreRemoved() throws {
        let input = OutputGuardTests.smallInput()
        let fm = FileManager.default
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["60"]
        try sleeper.run()
        defer { sleeper.terminate() }
        let live = sleeper.processIdentifier
        let dead = try (0..<6).map { _ in try deadPid() }
        let elsewhere = TestSupport.tempDir("elsewhere").appendingPathComponent("snapshot")
        try Data(ProductSnapshot.magic + [1, 2, 3]).write(to: elsewhere)
        for cacheFolder in [nil, TestSupport.tempDir("cache-folder")] {
            let parent = TestSupport.tempDir("cache-leftover"), out = parent.appendingPathComponent("dist")
            let args = ["build", "--input", input.path, "--out", out.path] + (cacheFolder.map { ["--cache", $0.path] } ?? [])
            XCTAssertEqual(try TestSupport.runCLI(args, env: epoch).status, 0)
            let cache = BuildCache.location(for: out, folder: cacheFolder)
            let folder = cache.deletingLastPathComponent()
            let cacheTmp = ".\(cache.lastPathComponent).tmp-", snapshotTmp = ".\(cache.lastPathComponent).products.tmp-"
            func plant(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
            // Removed: a cache and a snapshot begun by builds that are gone, and one killed before it wrote a byte.
            let removed = [cacheTmp + "\(dead[0])", snapshotTmp + "\(dead[0])", snapshotTmp + "\(dead[1])"]
            try plant(removed[0], BuildCache.magic + Array(repeating: 7, count: 1000))
            try plant(removed[1], ProductSnapshot.magic + Array(repeating: 7, count: 1000))
            try plant(removed[2], [])
            // Left alone: a running process's; someone's file under the name; a name not of the pattern; the other
            // file's magic; another output's; a link to a snapshot elsewhere; a folder.
            let kept = [cacheTmp + "\(live)", cacheTmp + "\(dead[2])", cacheTmp + "\(dead[0])x", snapshotTmp + "\(dead[3])",
                        ".other.cache.tmp-\(dead[0])", snapshotTmp + "\(dead[4])", cacheTmp + "\(dead[5])"]
            try plant(kept[0], BuildCache.magic)
            try plant(kept[1], Array("my notes".utf8))
            try plant(kept[2], BuildCache.magic)
            try plant(kept[3], BuildCache.magic)
            try plant(kept[4], BuildCache.magic)
            try fm.createSymbolicLink(atPath: folder.appendingPathComponent(kept[5]).path, withDestinationPath: elsewhere.path)
            try fm.createDirectory(at: folder.appendingPathComponent(kept[6]), withIntermediateDirectories: false)
            let before = TestSupport.snapshot(folder).filter { k, _ in kept.contains { k.hasPrefix($0) } }
            let tree = TestSupport.snapshot(out)

            let r = try TestSupport.runCLI(args, env: epoch)
            XCTAssertEqual(r.status, 0, r.output)
            XCTAssertTrue(r.output.contains("No content changes"), r.output)
            for name in removed { XCTAssertFalse(fm.fileExists(atPath: folder.appendingPathComponent(name).path), name) }
            for name in kept { XCTAssertNotNil(try? fm.attributesOfItem(atPath: folder.appendingPathComponent(name).path), name) }
            XCTAssertEqual(TestSupport.snapshot(folder).filter { k, _ in kept.contains { k.hasPrefix($0) } }, before)
            XCTAssertEqual(try Data(contentsOf: elsewhere), Data(ProductSnapshot.magic + [1, 2, 3]))
            XCTAssertEqual(TestSupport.snapshot(out), tree)
        }
    }
}
