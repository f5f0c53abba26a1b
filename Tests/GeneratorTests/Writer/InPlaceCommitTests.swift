import XCTest
import Foundation
@testable import Generator

/// A small change to a large tree is applied to the output in place (work in proportion to the change), with a
/// journal: a build killed after any step of it has its steps undone by the next build, which finds the previous tree
/// byte for byte; a step that would go through a symlinked folder sends the change to a whole-tree swap instead.
final class InPlaceCommitTests: XCTestCase {
    /// A current tree of 40 files in 20 folders (plus a manifest), and its index (path → sha256).
    func currentTree() throws -> (out: URL, index: [String: String]) {
        let out = TestSupport.tempDir("inplace").appendingPathComponent("dist")
        var index: [String: String] = [:]
        for k in 0..<20 {
            for name in ["a", "b"] {
                let path = "p/\(k)/\(name).json", text = Array("{\"k\":\(k),\"n\":\"\(name)\"}".utf8)
                try FileManager.default.createDirectory(at: out.appendingPathComponent("p/\(k)"), withIntermediateDirectories: true)
                try Data(text).write(to: out.appendingPathComponent(path))
                index[path] = Build.sha256Hex(text)
            }
        }
        let manifest = Array(#"{"version":1}"#.utf8)
        try Data(manifest).write(to: out.appendingPathComponent("update-manifest.json"))
        index["update-manifest.json"] = Build.sha256Hex(manifest)
        return (out, index)
    }

    /// Stages the next tree: p/0/a.json changed, p/1/ removed (both files), p/new/c.json added, a new manifest; the
    /// other 37 files unchanged.
    func stageNext(_ out: URL, _ index: [String: String], killAfter: Int? = nil) throws -> (StagedTree, [String: Data]) {
        let staged = try StagedTree(output: out, previous: index)
        staged.killedAfterSteps = killAfter
        var expected: [String: Data] = [:]
        for (path, sha) in index.sorted(by: { $0.key < $1.key }) where !path.hasPrefix("p/1/") && path != "p/0/a.json" && path != "update-manifest.json" {
            let bytes = try Data(contentsOf: out.appendingPathComponent(path))
            try staged.put(path, bytes: [UInt8](bytes), sha256: sha)
            expected[path] = bytes
        }
        for (path, text) in [("p/0/a.json", #"{"k":0,"n":"changed"}"#), ("p/new/c.json", #"{"new":true}"#), ("update-manifest.json", #"{"version":2}"#)] {
            let bytes = Array(text.utf8)
            try staged.put(path, bytes: bytes, sha256: Build.sha256Hex(bytes))
            expected[path] = Data(bytes)
        }
        return (staged, expected)
    }

    func testASmallChangeIsAppliedInPlace() throws {
        let (out, index) = try currentTree()
        var inodes: [String: UInt64] = [:]
        for path in index.keys { var st = stat(); lstat(out.appendingPathComponent(path).path, &st); inodes[path] = UInt64(st.st_ino) }
        let (staged, expected) = try stageNext(out, index)
        let stats = try staged.commit()
        XCTAssertTrue(stats.inPlace)
        XCTAssertEqual(stats.written, 3)
        XCTAssertEqual(stats.linked, 37)
        XCTAssertEqual(stats.removed, 2)
        XCTAssertEqual(TestSupport.snapshot(out), expected)
        // Unchanged files are the same files; the emptied folder is gone; nothing is left beside the output.
        for path in expected.keys where inodes[path] != nil && path != "p/0/a.json" && path != "update-manifest.json" {
            var st = stat(); lstat(out.appendingPathComponent(path).path, &st)
            XCTAssertEqual(UInt64(st.st_ino), inodes[path], path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("p/1").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path), ["dist"])
    }

    /// Killed after each step in turn (before the first, between any two, after the last but before it is marked
    /// done): the next build's clean-up, under the build lock, restores the previous tree byte for byte.
    func testAKillAfterAnyStepIsUndoneByTheNextBuild() throws {
        let (out0, index) = try currentTree()
        let before = TestSupport.snapshot(out0)
        // 1 change, 1 add with its folder, 2 removals and the manifest: 6 steps.
        var steps = 0
        for k in 0...20 {
            let parent = TestSupport.tempDir("kill-\(k)"), out = parent.appendingPathComponent("dist")
            try FileManager.default.copyItem(at: out0, to: out)
            let (staged, expected) = try stageNext(out, index, killAfter: k)
            do {
                let stats = try staged.commit()
                // More steps than k: the whole change went through.
                XCTAssertTrue(stats.inPlace)
                XCTAssertEqual(TestSupport.snapshot(out), expected)
                steps = k
                break
            } catch is StagedTree.SimulatedKill {}
            // Apps read the manifest to learn what exists: it is the new one only once every other file is in place.
            let killed = TestSupport.snapshot(out)
            if killed["update-manifest.json"] == expected["update-manifest.json"] {
                XCTAssertEqual(killed, expected, "killed after step \(k): the new manifest was in place before the rest of the change")
            }
            let journal = parent.appendingPathComponent(".dist.staging-\(getpid())/\(StagedTree.journalName)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: journal.path), "the journal is written before the first step")
            let lock = try BuildLock(output: out, wait: 0)
            let removed = StagedTree.removeAbandoned(beside: out, holding: lock)
            lock.release()
            XCTAssertEqual(removed.count, 1)
            XCTAssertEqual(TestSupport.snapshot(out), before, "killed after step \(k): previous tree not restored")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted(), ["dist"], "after step \(k)")
            // The empty folder the add made is gone again (no folder the previous tree lacked).
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("p/new").path), "after step \(k)")
        }
        XCTAssertEqual(steps, 7, "every kill point was tried: 6 steps, then the commit mark")
    }

    /// A folder of the current tree replaced by a symlink to a folder outside: nothing is moved through it; the change
    /// goes to a whole-tree swap, which replaces the symlink with a real folder, and the outside is untouched.
    func testASymlinkedFolderSendsTheChangeToAWholeSwap() throws {
        let (out, index) = try currentTree()
        let outside = out.deletingLastPathComponent().appendingPathComponent("outside")
        try FileManager.default.moveItem(at: out.appendingPathComponent("p/0"), to: outside)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("p/0"), withDestinationURL: outside)
        let outsideBefore = TestSupport.snapshot(outside)
        let (staged, expected) = try stageNext(out, index)
        let stats = try staged.commit()
        XCTAssertFalse(stats.inPlace)
        XCTAssertEqual(TestSupport.snapshot(out), expected)
        XCTAssertEqual(TestSupport.snapshot(outside), outsideBefore)
        var st = stat()
        XCTAssertEqual(lstat(out.appendingPathComponent("p/0").path, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFDIR)
    }

    /// Most files changed: the whole tree is swapped at once (atomic), not changed file by file.
    func testALargeChangeSwapsTheWholeTree() throws {
        let (out, index) = try currentTree()
        let staged = try StagedTree(output: out, previous: index)
        for path in index.keys.sorted() {
            let bytes = Array("{\"new\":\"\(path)\"}".utf8)
            try staged.put(path, bytes: bytes, sha256: Build.sha256Hex(bytes))
        }
        let stats = try staged.commit()
        XCTAssertFalse(stats.inPlace)
        XCTAssertEqual(stats.written, index.count)
        XCTAssertEqual(String(decoding: TestSupport.snapshot(out)["p/3/b.json"] ?? Data(), as: UTF8.self), #"{"new":"p/3/b.json"}"#)
    }

    /// Where the two ways meet: a change touching two fifths of the files (1 % of prices at 100,000 products touches
    /// 41 %: every slice of each changed product's result-store group is renamed) is applied in place; three fifths swap.
    func testTwoFifthsChangedGoInPlaceAndThreeFifthsSwap() throws {
        for (share, inPlace) in [(2, true), (3, false)] {
            let (out, index) = try currentTree()   // 41 files
            let staged = try StagedTree(output: out, previous: index)
            let changed = Set(index.keys.sorted().prefix(41 * share / 5))
            var expected: [String: Data] = [:]
            for (path, sha) in index.sorted(by: { $0.key < $1.key }) {
                let bytes = changed.contains(path) ? Array("{\"new\":\"\(path)\"}".utf8) : [UInt8](try Data(contentsOf: out.appendingPathComponent(path)))
                try staged.put(path, bytes: bytes, sha256: changed.contains(path) ? Build.sha256Hex(bytes) : sha)
                expected[path] = Data(bytes)
            }
            let stats = try staged.commit()
            XCTAssertEqual(stats.inPlace, inPlace, "\(changed.count) of 41 changed")
            XCTAssertEqual(stats.written, changed.count)
            XCTAssertEqual(TestSupport.snapshot(out), expected)
        }
    }
}
