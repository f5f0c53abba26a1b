import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

/// One writer per output: a second build waits for the first (or, with --wait 0, fails at once), so two builds started
/// together leave a tree that one of the two orders would have built, with deltas that hold.
final class BuildLockTests: XCTestCase {
    let epoch = ["SOURCE_DATE_EPOCH": "1700000000"]

    /// Starts the CLI without waiting for it; `finish` returns its status and output.
    final class Running {
        let process = Process()
        private let pipe = Pipe()
        init(_ args: [String], env: [String: String] = [:]) throws {
            process.executableURL = TestSupport.generatorBinary
            process.arguments = args
            process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
        }
        func finish() -> (status: Int32, output: String) {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    func testWaitZeroFailsAtOnceWhileAnotherBuildHoldsTheOutput() throws {
        let input = OutputGuardTests.smallInput()
        let out = TestSupport.tempDir("lock").appendingPathComponent("dist")
        let lock = try BuildLock(output: out, wait: 0)
        let started = Date()
        let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--wait", "0"], env: epoch)
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(r.output.contains("another build (pid \(getpid())) is writing \(out.path)"), r.output)
        XCTAssertTrue(r.output.contains("nothing was written to \(out.path)"), r.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 50)   // without --wait 0 it would wait the default 60 s
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        lock.release()
        let after = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--wait", "0"], env: epoch)
        XCTAssertEqual(after.status, 0, after.output)
        // The lock file goes with its holder (the build cache stays beside the tree).
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path).sorted(), [".dist.cache", ".dist.cache.products", "dist"])
    }

    /// Within one process too (flock locks belong to an open file, not a process), and a wait that runs out says so.
    func testLibraryLockIsExclusiveAndTimesOut() throws {
        let out = TestSupport.tempDir("lock-lib").appendingPathComponent("dist")
        let first = try BuildLock(output: out, wait: 0)
        var told: [Int32?] = []
        let started = Date()
        XCTAssertThrowsError(try BuildLock(output: out, wait: 0.3, waiting: { told.append($0) })) { e in
            guard let busy = e as? BuildLock.Busy else { return XCTFail("\(e)") }
            XCTAssertEqual(busy.pid, getpid())
            XCTAssertTrue("\(busy)".contains("gave up after 0.3 s"), "\(busy)")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
        XCTAssertEqual(told, [getpid()])
        first.release()
        let second = try BuildLock(output: out, wait: 0)
        second.release()
        XCTAssertFalse(FileManager.default.fileExists(atPath: BuildLock.lockPath(for: out)))
    }

    func testWaitingBuildGoesOnWhenTheHolderFinishes() throws {
        let input = OutputGuardTests.smallInput()
        let out = TestSupport.tempDir("lock-wait").appendingPathComponent("dist")
        let lock = try BuildLock(output: out, wait: 0)
        let build = try Running(["build", "--input", input.path, "--out", out.path, "--wait", "30"], env: epoch)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertTrue(build.process.isRunning)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        lock.release()
        let r = build.finish()
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("another build (pid \(getpid())) is writing \(out.path); waiting up to 30 s"), r.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("update-manifest.json").path))
    }

    /// The output is checked again once the lock is held: files put into it while the build waited are not lost.
    func testOutputIsCheckedAgainAfterTheWait() throws {
        let input = OutputGuardTests.smallInput()
        let out = TestSupport.tempDir("lock-recheck").appendingPathComponent("dist")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)   // empty: accepted
        let lock = try BuildLock(output: out, wait: 0)
        let build = try Running(["build", "--input", input.path, "--out", out.path, "--wait", "30"], env: epoch)
        Thread.sleep(forTimeInterval: 1.0)
        try Data("mine\n".utf8).write(to: out.appendingPathComponent("notes.txt"))
        lock.release()
        let r = build.finish()
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(r.output.contains("not built by generator"), r.output)
        XCTAssertEqual(TestSupport.snapshot(out), ["notes.txt": Data("mine\n".utf8)])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path), ["dist"])
    }

    /// A holder killed with -9 releases the lock with its death; its lock file (left behind) is taken over.
    func testDeadHolderNeverBlocks() throws {
        let input = OutputGuardTests.smallInput()
        let out = TestSupport.tempDir("lock-dead").appendingPathComponent("dist")
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let script = "import fcntl, os, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(120)\n"
        try Tool.require(.python3)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", script, BuildLock.lockPath(for: out)]
        let pipe = Pipe()
        holder.standardOutput = pipe
        try holder.run()
        // Wait for "locked".
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("locked") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        let busy = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--wait", "0"], env: epoch)
        XCTAssertEqual(busy.status, 2, busy.output)
        XCTAssertTrue(busy.output.contains("another build is writing"), busy.output)   // it wrote no pid
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: BuildLock.lockPath(for: out)))
        let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--wait", "0"], env: epoch)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: BuildLock.lockPath(for: out)))
    }

    /// A file that happens to have the lock's name is neither truncated nor removed.
    func testSomeonesFileAtTheLockNameIsLeftAlone() throws {
        let input = OutputGuardTests.smallInput()
        let out = TestSupport.tempDir("lock-name").appendingPathComponent("dist")
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lockFile = URL(fileURLWithPath: BuildLock.lockPath(for: out))
        try Data("my lock notes\n".utf8).write(to: lockFile)
        let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: epoch)
        XCTAssertEqual(r.status, 1, r.output)
        XCTAssertTrue(r.output.contains("is not a build lock"), r.output)
        XCTAssertEqual(try Data(contentsOf: lockFile), Data("my lock notes\n".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        // A link planted at the name is not followed.
        try FileManager.default.removeItem(at: lockFile)
        let target = out.deletingLastPathComponent().appendingPathComponent("target.txt")
        try Data("keep\n".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: lockFile, withDestinationURL: target)
        let linked = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: epoch)
        XCTAssertEqual(linked.status, 1, linked.output)
        XCTAssertTrue(linked.output.contains("is a symlink, not a build lock"), linked.output)
        XCTAssertEqual(try Data(contentsOf: target), Data("keep\n".utf8))
    }

    func testNegativeWaitIsAUsageError() throws {
        let r = try TestSupport.runCLI(["build", "--input", OutputGuardTests.smallInput().path,
                                        "--out", TestSupport.tempDir("w").appendingPathComponent("dist").path, "--wait=-1"])
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(r.output.contains("--wait"), r.output)
    }

    /// Two builds of different inputs (a price changed in each) started together into one output: the tree left is
    /// the one that building them one after the other gives (in one order or the other), it passes `generator validate`
    /// and check-tree.py, and every delta's patches turn that release's files into the new ones.
    func testTwoBuildsStartedTogetherLeaveAConsistentTree() throws {
        try Tool.require(.python3, .jsonschema)
        let a = OutputGuardTests.smallInput(prices: ["19.99", "29.99", "39.99"])
        let b = OutputGuardTests.smallInput(prices: ["21.00", "29.99", "39.99"])
        let c = OutputGuardTests.smallInput(prices: ["19.99", "29.99", "44.00"])
        func build(_ input: URL, _ out: URL) throws {
            let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path], env: epoch)
            XCTAssertEqual(r.status, 0, r.output)
        }
        func copy(_ tree: URL) throws -> URL {
            let dest = TestSupport.tempDir("race").appendingPathComponent("dist")
            try FileManager.default.copyItem(at: tree, to: dest)
            return dest
        }
        // Release 1, then the two orders one after the other (the same SOURCE_DATE_EPOCH: the same bytes).
        let v1 = TestSupport.tempDir("v1").appendingPathComponent("dist")
        try build(a, v1)
        let s1 = TestSupport.snapshot(v1)
        let bc = try copy(v1), cb = try copy(v1)
        try build(b, bc); let sB = TestSupport.snapshot(bc); try build(c, bc); let sBC = TestSupport.snapshot(bc)
        try build(c, cb); let sC = TestSupport.snapshot(cb); try build(b, cb); let sCB = TestSupport.snapshot(cb)
        XCTAssertNotEqual(sBC, sCB)

        for round in 1...3 {
            let out = try copy(v1)
            let first = try Running(["build", "--input", b.path, "--out", out.path], env: epoch)
            let second = try Running(["build", "--input", c.path, "--out", out.path], env: epoch)
            let r1 = first.finish(), r2 = second.finish()
            for r in [r1, r2] {
                XCTAssertTrue(r.status == 0 || (r.status == 2 && r.output.contains("another build")), "round \(round): \(r.output)")
            }
            let final = TestSupport.snapshot(out)
            // Which builds ran, in which order: the releases they left must be one of the sequential outcomes.
            let history: [[String: Data]]
            switch final {
            case sBC: history = [s1, sB, sBC]
            case sCB: history = [s1, sC, sCB]
            case sB where r2.status != 0: history = [s1, sB]
            case sC where r1.status != 0: history = [s1, sC]
            default:
                XCTFail("round \(round): the tree matches neither build order\n\(r1.output)\n\(r2.output)"); continue
            }
            XCTAssertEqual(r1.status == 0 && r2.status == 0, history.count == 3, "round \(round)")

            let validated = try TestSupport.runCLI(["validate", out.path])
            XCTAssertEqual(validated.status, 0, "round \(round): \(validated.output.suffix(1500))")
            let judged = try TestSupport.checkTree(out)
            XCTAssertEqual(judged.status, 0, "round \(round): \(judged.output.suffix(1500))")
            XCTAssertTrue(judged.output.contains(" 0 failed"), judged.output)
            try assertDeltasHold(final, history: history, round: round)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path).sorted(), [".dist.cache", ".dist.cache.products", "dist"])
        }
    }

    /// Every delta of the newest release (`releases/V/delta-from-K.json`) turns release K's files into the newest ones:
    /// patches applied give the new bytes, added files are new, removed files are gone.
    func assertDeltasHold(_ tree: [String: Data], history: [[String: Data]], round: Int) throws {
        func content(_ s: [String: Data]) -> [String: Data] {
            s.filter { !$0.key.hasPrefix("releases/") && $0.key != "update-manifest.json" }
        }
        let manifest = try JSONReader.parse(tree["update-manifest.json"]!)
        let version = manifest["version"]!.intValue!
        XCTAssertEqual(version, history.count, "round \(round)")
        let new = content(tree)
        var deltas = 0
        for (path, bytes) in tree where path.hasPrefix("releases/\(version)/delta-from-") {
            let from = Int(path.dropFirst("releases/\(version)/delta-from-".count).dropLast(".json".count))!
            let old = content(history[from - 1])
            let delta = try JSONReader.parse(bytes)
            func paths(_ k: String) -> Set<String> { Set(delta[k]!.arrayValue!.map { $0["path"]!.stringValue! }) }
            XCTAssertEqual(paths("added"), Set(new.keys).subtracting(old.keys), "round \(round): \(path)")
            XCTAssertEqual(paths("removed"), Set(old.keys).subtracting(new.keys), "round \(round): \(path)")
            XCTAssertEqual(paths("changed"), Set(old.keys.filter { new[$0] != nil && new[$0] != old[$0] }), "round \(round): \(path)")
            var patched = 0
            for c in delta["changed"]!.arrayValue! {
                let p = c["path"]!.stringValue!
                // The hashes name the two files (a client checks them), and a patch (deltas from the release just before
                // carry them) turns one into the other.
                XCTAssertEqual(c["oldSha256"]?.stringValue, Build.sha256Hex([UInt8](old[p]!)), "round \(round): \(path): \(p)")
                XCTAssertEqual(c["sha256"]?.stringValue, Build.sha256Hex([UInt8](new[p]!)), "round \(round): \(path): \(p)")
                guard let patch = c["patch"] else { continue }
                let result = try JSONPatch.apply(patch, to: try JSONReader.parse(old[p]!))
                XCTAssertEqual(Data(try JSONWriter().bytes(result)), new[p], "round \(round): \(path): \(p)")
                patched += 1
            }
            if from == version - 1 { XCTAssertGreaterThan(patched, 0, "round \(round): \(path)") }
            deltas += 1
        }
        XCTAssertEqual(deltas, version - 1, "round \(round)")
    }
}
