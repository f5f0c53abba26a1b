import XCTest
import Foundation
@testable import Generator
import Schemas
import FaultServerSupport
import TreeClient
import TestTools

/// `generator build --previous URL` and `generator sync` over real HTTP (scripts/fault-server.py on 127.0.0.1): the
/// live site is the release history.
final class RemotePreviousTests: XCTestCase {
    var server: FaultServer!

    override func setUpWithError() throws {
        server = try FaultServer(root: ReleaseLoop.release1)
    }

    override func tearDown() {
        server?.stop()
    }

    var url: String { server.base.absoluteString }

    func build(_ input: URL, out: URL, _ extra: [String] = [], env: [String: String] = ReleaseLoop.env2) throws -> (status: Int32, output: String) {
        try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--threads", "2"] + extra, env: env)
    }

    func sync(_ dir: URL, _ extra: [String] = []) throws -> (status: Int32, output: String) {
        try TestSupport.runCLI(["sync", url, dir.path] + extra)
    }

    /// The numbers after "downloaded" and "a fresh copy is" in sync's output.
    func figures(_ output: String) -> (downloaded: Int, fresh: Int)? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("a fresh copy is") }) else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    /// The whole loop: sync release 1 into an empty folder, build release 2 from the live site with no local tree,
    /// sync it with the delta, and refuse a rollback.
    func testReleaseLoopEndToEnd() throws {
        try Tool.require(.python3, .jsonschema)
        let release1 = TestSupport.snapshot(ReleaseLoop.release1)
        let local = TestSupport.tempDir("loop-local").appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)

        let first = try sync(local)
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(local), release1), [], "the copy is byte-identical to release 1")
        XCTAssertTrue(first.output.contains("no copy → version 1"), first.output)

        // Release 2 from the site alone: no earlier tree on this machine.
        let out = TestSupport.tempDir("loop-out").appendingPathComponent("dist")
        let built = try build(ReleaseLoop.input2, out: out, ["--previous", url])
        XCTAssertEqual(built.status, 0, built.output)
        XCTAssertTrue(built.output.contains("previous release: version 1 (2023.11.14.1) at \(url)"), built.output)
        let manifest = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("update-manifest.json")))
        XCTAssertEqual(manifest["version"]?.intValue, 2)
        XCTAssertEqual(manifest["previousVersion"]?.intValue, 1)
        XCTAssertEqual(manifest["delta"]?["fromVersion"]?.intValue, 1)
        XCTAssertEqual(manifest["delta"]?["path"]?.stringValue, "releases/2/delta-from-1.json")
        let delta = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("releases/2/delta-from-1.json")))
        func paths(_ k: String) -> Set<String> { Set(delta[k]!.arrayValue!.map { $0["path"]!.stringValue! }) }
        XCTAssertTrue(paths("changed").contains("products/\(ReleaseLoop.changedPrice)/details.json"))
        XCTAssertTrue(paths("removed").contains("products/\(ReleaseLoop.removedProduct)/details.json"))
        XCTAssertTrue(paths("added").contains("products/\(ReleaseLoop.addedProduct)/details.json"))
        XCTAssertTrue(paths("changed").contains("collections/schools/items/\(ReleaseLoop.editedSchool).json"), "\(paths("changed").sorted())")
        XCTAssertGreaterThan(delta["changed"]!.arrayValue!.filter { $0["patch"] != nil }.count, 3)
        // Exactly the tree a build on release 1's own folder makes.
        XCTAssertEqual(ReleaseLoop.differences(out, ReleaseLoop.release2), [])
        XCTAssertTrue(try ReleaseLoop.checkTree(out).hasSuffix(" passed, 0 failed"))

        // Published: the copy follows with the delta, downloading less than a fresh copy.
        try server.serve(out)
        let second = try sync(local)
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertEqual(ReleaseLoop.differences(local, out), [], "the copy is byte-identical to release 2")
        XCTAssertTrue(second.output.contains("version 1 → version 2"), second.output)
        XCTAssertTrue(second.output.contains("using the delta from version 1"), second.output)
        let f = try XCTUnwrap(figures(second.output), second.output)
        XCTAssertLessThan(f.downloaded, f.fresh)
        print("release 1 → 2 over HTTP: downloaded \(f.downloaded) bytes; a fresh copy is \(f.fresh) bytes")

        // Current: one conditional request, no body.
        let current = try sync(local)
        XCTAssertEqual(current.status, 0, current.output)
        XCTAssertTrue(current.output.contains("is current: version 2"), current.output)
        XCTAssertTrue(current.output.contains("downloaded 0 bytes"), current.output)

        // The site rolled back: refused, the copy unchanged.
        try server.serve(ReleaseLoop.release1)
        let before = TestSupport.snapshot(local)
        let rollback = try sync(local)
        XCTAssertEqual(rollback.status, 1, rollback.output)
        XCTAssertTrue(rollback.output.contains("offers version 1, older than the local copy's version 2: refusing to roll back"), rollback.output)
        XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(local), before), [])
        XCTAssertEqual(ReleaseLoop.leftovers(beside: local), [])
    }

    /// Each fault during a sync: exit 1, the copy byte-identical to before; the next clean sync succeeds.
    func testSyncFaultsLeaveTheCopyIntact() throws {
        let local = ReleaseLoop.copy(ReleaseLoop.release1, "fault-local")
        let before = TestSupport.snapshot(local)
        try server.serve(ReleaseLoop.release2)
        // Faults on files the sync downloads whole (an added page, a changed file without a patch), and on the
        // release files it reads first.
        let added = "products/\(ReleaseLoop.addedProduct)/details.json"
        XCTAssertTrue(ReleaseLoop.wholeDownloads.contains(added))
        let unpatched = try XCTUnwrap(ReleaseLoop.wholeDownloads.first { $0 != added && !$0.hasPrefix("releases/") })
        for (path, mode) in [(added, "truncate"), (unpatched, "corrupt"), (added, "500"), (unpatched, "reset"), (added, "slow4"),
                             ("update-manifest.json", "slow4"), ("releases/2/files.json", "truncate"), ("releases/2/delta-from-1.json", "corrupt")] {
            try server.fault([path: mode])
            let started = Date()
            let r = try sync(local, ["--timeout", "2", "--retries", mode == "slow4" ? "0" : "1"])   // (a slow file: no second wait; 2 s, not 1: a busy machine serves a small file late)
            XCTAssertEqual(r.status, 1, "\(path) \(mode): \(r.output)")
            XCTAssertTrue(r.output.contains(url + path), "\(path) \(mode): names the URL: \(r.output)")
            XCTAssertTrue(r.output.contains("sync failed; \(local.path) is unchanged"), r.output)
            XCTAssertLessThan(Date().timeIntervalSince(started), 60, "\(path) \(mode)")   // (a hang, not a slow machine)
            XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(local), before), [], "\(path) \(mode)")
            XCTAssertEqual(ReleaseLoop.leftovers(beside: local), [], "\(path) \(mode)")
        }
        try server.clearFaults()
        let clean = try sync(local)
        XCTAssertEqual(clean.status, 0, clean.output)
        XCTAssertEqual(ReleaseLoop.differences(local, ReleaseLoop.release2), [])
    }

    /// A sync killed mid-download leaves the copy as it was; the next sync removes its staging folder.
    func testKilledSyncLeavesTheCopyIntact() throws {
        let local = ReleaseLoop.copy(ReleaseLoop.release1, "killed-local")
        let before = TestSupport.snapshot(local)
        try server.serve(ReleaseLoop.release2)
        try server.fault(["products/\(ReleaseLoop.addedProduct)/details.json": "slow20"])
        let p = Process()
        p.executableURL = TestSupport.generatorBinary
        p.arguments = ["sync", url, local.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Killed once its staging folder holds files.
        let staging = local.deletingLastPathComponent().appendingPathComponent(".tree.sync-\(p.processIdentifier)/tree")
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, (try? FileManager.default.contentsOfDirectory(atPath: staging.path))?.isEmpty ?? true { usleep(50_000) }
        usleep(300_000)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(local), before), [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: staging.path), "the killed sync's staging folder is left")
        try server.clearFaults()
        let next = try sync(local)
        XCTAssertEqual(next.status, 0, next.output)
        XCTAssertEqual(ReleaseLoop.differences(local, ReleaseLoop.release2), [])
        XCTAssertEqual(ReleaseLoop.leftovers(beside: local), [])
    }

    /// During `build --previous URL`, a 500 or a timeout anywhere in the previous release fails the build with the
    /// output untouched; so does a file whose bytes differ from the site's index.
    func testBuildFailuresLeaveTheOutputUntouched() throws {
        let existing = ReleaseLoop.copy(ReleaseLoop.release1, "build-fault-out")
        let before = TestSupport.snapshot(existing)
        let fresh = TestSupport.tempDir("build-fault-new").appendingPathComponent("dist")
        for (path, mode, why) in [("update-manifest.json", "500", "HTTP 500"), ("update-manifest.json", "slow4", "timed out"),
                                  ("releases/1/files.json", "500", "HTTP 500"), ("releases/1/files.json", "corrupt", "sha256"),
                                  ("SUMMARY.json", "slow4", "timed out"), ("SUMMARY.json", "corrupt", "sha256"),
                                  ("SUMMARY.json", "truncate", "SUMMARY.json"), ("update-manifest.json", "reset", "update-manifest.json")] {
            try server.fault([path: mode])
            // Both outputs at once (most of the time is spent waiting for the faulty server, not computing).
            let outs = [existing, fresh]
            let runs = TestSupport.concurrently(outs.count) { i in
                // (A slow file times out once: retrying it would only wait again.)
                try build(ReleaseLoop.input2, out: outs[i], ["--previous", url, "--timeout", "1", "--retries", mode == "slow4" ? "0" : "1"])
            }
            for i in outs.indices {
                let r = try runs[i].get()
                XCTAssertEqual(r.status, 1, "\(path) \(mode): \(r.output)")
                XCTAssertTrue(r.output.contains("the previous release cannot be read from the live site"), "\(path) \(mode): \(r.output)")
                XCTAssertTrue(r.output.contains(url + path), "\(path) \(mode): names the URL and file: \(r.output)")
                XCTAssertTrue(r.output.contains(why), "\(path) \(mode): \(r.output)")
                XCTAssertTrue(r.output.contains("--first-release"), r.output)
                XCTAssertFalse(r.output.contains("Built "), r.output)
            }
            XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(existing), before), [], "\(path) \(mode)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "\(path) \(mode)")
            XCTAssertEqual(ReleaseLoop.leftovers(beside: existing), [])
        }
        // Nobody listening.
        try server.clearFaults()
        server.stop()
        let refused = try build(ReleaseLoop.input2, out: existing, ["--previous", url, "--retries", "0"])
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.output.contains("connection refused"), refused.output)
        // A name that never resolves (.invalid is reserved for that).
        let unknown = try build(ReleaseLoop.input2, out: existing, ["--previous", "https://no-such-site.invalid/repo/", "--retries", "0", "--timeout", "5"])
        XCTAssertEqual(unknown.status, 1, unknown.output)
        XCTAssertTrue(unknown.output.contains("https://no-such-site.invalid/repo/update-manifest.json"), unknown.output)
        XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(existing), before), [])
    }

    /// A 404 for update-manifest.json: nothing published yet, so this is release 1 (and the summary says so).
    func testNothingPublishedGivesRelease1() throws {
        try Tool.require(.python3, .jsonschema)
        let empty = TestSupport.tempDir("empty-site")
        try server.serve(empty)
        let out = TestSupport.tempDir("first-out").appendingPathComponent("dist")
        let r = try build(ReleaseLoop.input1, out: out, ["--previous", url], env: ReleaseLoop.env1)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("no release published at \(url) yet (update-manifest.json: HTTP 404): this is release 1"), r.output)
        // The same tree as a first build with no previous release at all.
        XCTAssertEqual(ReleaseLoop.differences(out, ReleaseLoop.release1), [])
        XCTAssertTrue(try ReleaseLoop.checkTree(out).hasSuffix(" passed, 0 failed"))
    }

    /// A store caught between a publish's switch and its rewrites (`generator publish`): the manifest is release 2's
    /// but a changed page still holds release 1's bytes, release 2's being in its content-addressed copy. The build
    /// reads the copy for the patch and makes the tree it makes from the finished release.
    func testAPublishNotYetFinishedIsReadThroughItsContentAddressedCopies() throws {
        let site = ReleaseLoop.copy(ReleaseLoop.release2, "half-published")
        let page = "products/\(ReleaseLoop.changedPrice)/details.json"
        let finished = try Data(contentsOf: site.appendingPathComponent(page))
        let copy = try XCTUnwrap(TreePath.contentAddressed(sha256: Build.sha256Hex([UInt8](finished)), path: page))
        try FileManager.default.createDirectory(at: site.appendingPathComponent(copy).deletingLastPathComponent(), withIntermediateDirectories: true)
        try finished.write(to: site.appendingPathComponent(copy))
        try Data(contentsOf: ReleaseLoop.release1.appendingPathComponent(page)).write(to: site.appendingPathComponent(page))
        try server.serve(site)
        // Release 3 goes back to release 1's input: the changed page gets a patch from release 2's bytes.
        let env3 = ["SOURCE_DATE_EPOCH": String(ReleaseLoop.epoch2 + 86_400)]
        let fromSite = TestSupport.tempDir("half-out").appendingPathComponent("dist")
        let r = try build(ReleaseLoop.input1, out: fromSite, ["--previous", url], env: env3)
        XCTAssertEqual(r.status, 0, r.output)
        let local = TestSupport.tempDir("half-local").appendingPathComponent("dist")
        let l = try build(ReleaseLoop.input1, out: local, ["--previous", ReleaseLoop.release2.path], env: env3)
        XCTAssertEqual(l.status, 0, l.output)
        XCTAssertEqual(ReleaseLoop.differences(fromSite, local), [])
        let delta = try JSONReader.parse(Data(contentsOf: fromSite.appendingPathComponent("releases/3/delta-from-2.json")))
        XCTAssertTrue((delta["changed"]?.arrayValue ?? []).contains { $0["path"]?.stringValue == page && $0["patch"] != nil }, "no patch for \(page)")
    }

    /// Same inputs as the published release: nothing to publish, nothing written.
    func testNoChangeSinceTheSite() throws {
        let out = TestSupport.tempDir("same-out").appendingPathComponent("dist")
        let r = try build(ReleaseLoop.input1, out: out, ["--previous", url], env: ReleaseLoop.env2)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("No content changes since the release at \(url): it stays at version 1"), r.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        let json = try build(ReleaseLoop.input1, out: out, ["--previous", url, "--json"], env: ReleaseLoop.env2)
        let summary = try JSONReader.parse(json.output)
        XCTAssertEqual(summary["changed"]?.boolValue, false)
        XCTAssertEqual(summary["previousSite"]?.stringValue, url)
    }

    /// Starting over is deliberate: --first-release reads no previous release, even from a site that cannot be reached.
    func testFirstReleaseStartsOverDeliberately() throws {
        server.stop()
        let out = ReleaseLoop.copy(ReleaseLoop.release2, "restart-out")
        let r = try build(ReleaseLoop.input1, out: out, ["--previous", url, "--first-release"], env: ReleaseLoop.env1)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("--first-release: a new release history starts at version 1 (\(url) was not read)"), r.output)
        let manifest = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("update-manifest.json")))
        XCTAssertEqual(manifest["version"]?.intValue, 1)
        XCTAssertEqual(ReleaseLoop.differences(out, ReleaseLoop.release1), [])
    }

    func testUsageErrors() throws {
        let out = TestSupport.tempDir("usage").appendingPathComponent("dist")
        for previous in ["ftp://example.com/", "https://", "file:///tmp/x"] {
            let r = try build(ReleaseLoop.input1, out: out, ["--previous", previous])
            XCTAssertEqual(r.status, 2, "\(previous): \(r.output)")
            XCTAssertTrue(r.output.contains("a site is an http:// or https:// URL"), r.output)
        }
        let bad = try TestSupport.runCLI(["sync", "ftp://example.com/", out.path])
        XCTAssertEqual(bad.status, 2, bad.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    /// `sync DIR` is guarded like a build's output: never /, home, the current folder or a folder of other files.
    func testSyncRefusesFoldersThatAreNotItsOwn() throws {
        let home = TestSupport.tempDir("sync-home")
        try Data("mine".utf8).write(to: home.appendingPathComponent("notes.txt"))
        let others = TestSupport.tempDir("sync-others")
        try Data("mine".utf8).write(to: others.appendingPathComponent("thesis.txt"))
        for (dir, cwd, why) in [("/", nil, "it is the root folder"), (home.path, nil, "it is your home folder"),
                                (".", others, "it is the current folder"), (others.path, nil, "not built by generator"),
                                ("~/copy", nil, "'~'")] as [(String, URL?, String)] {
            let r = try TestSupport.runCLI(["sync", url, dir], cwd: cwd, env: ["HOME": home.path])
            XCTAssertEqual(r.status, 2, "\(dir): \(r.output)")
            XCTAssertTrue(r.output.contains("refusing to sync into"), r.output)
            XCTAssertTrue(r.output.contains(why), "\(dir): \(r.output)")
        }
        XCTAssertEqual(TestSupport.snapshot(others), ["thesis.txt": Data("mine".utf8)])
        XCTAssertEqual(TestSupport.snapshot(home), ["notes.txt": Data("mine".utf8)])
    }

    /// A previous release in a folder is checked the same way as one on a site: a file whose bytes differ from the
    /// index stops the build rather than feed a wrong base into a patch.
    func testLocalPreviousIsCheckedTheSameWay() throws {
        let previous = ReleaseLoop.copy(ReleaseLoop.release1, "tampered-previous")
        let summary = previous.appendingPathComponent("SUMMARY.json")
        var bytes = try Data(contentsOf: summary)
        bytes[bytes.count / 2] ^= 0x20
        try bytes.write(to: summary)
        let out = TestSupport.tempDir("tampered-out").appendingPathComponent("dist")
        let r = try build(ReleaseLoop.input2, out: out, ["--previous", previous.path])
        XCTAssertEqual(r.status, 1, r.output)
        XCTAssertTrue(r.output.contains("SUMMARY.json: sha256 differs from the one the release lists"), r.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }
}
