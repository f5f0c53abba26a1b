import XCTest
import Foundation
import FaultServerSupport
import TestTools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `generator sync` and `generator build --previous URL` against a server that attacks its client (the hostile modes
/// of scripts/fault-server.py, on 127.0.0.1): floods, gzip bombs, a trickle and redirects each fail fast with a
/// clear error, the local copy or output untouched, and the child's peak memory (from wait4) close to an honest run's.
final class HostileServerTests: XCTestCase {
    var server: FaultServer!

    override func setUpWithError() throws { server = try FaultServer(root: ReleaseLoop.release2) }
    override func tearDown() { server?.stop() }

    var url: String { server.base.absoluteString }
    let added = "products/\(ReleaseLoop.addedProduct)/details.json"

    /// The peak memory a flood may add to an honest run's.
    static let headroomKB = 100 * 1024

    /// Every flood on the manifest, the file index and a listed file: exit 1 within seconds, the copy unchanged,
    /// peak memory within 100 MB of an honest sync of the same release.
    func testFloodsStopAtTheirLimitDuringASync() throws {
        let honest = try Child.run(["sync", url, TestSupport.tempDir("honest-sync").appendingPathComponent("copy").path])
        XCTAssertEqual(honest.status, 0, honest.output)
        let local = ReleaseLoop.copy(ReleaseLoop.release1, "flood-local")
        let before = TestSupport.snapshot(local)
        for (path, limit) in [("update-manifest.json", "1048576 bytes, the most a release's metadata file may have"),
                              ("releases/2/files.json", "bytes listed for it"), (added, "bytes listed for it")] {
            for mode in ["endless", "hugelength", "gzipbomb"] {
                try server.fault([path: mode])
                // (No retries: each attempt meets the same flood and the same cap; three more only cost time.)
                let r = try Child.run(["sync", url, local.path, "--retries", "0"])
                XCTAssertEqual(r.status, 1, "\(path) \(mode): \(r.output)")
                XCTAssertTrue(r.output.contains(url + path + ": ") && r.output.contains("more than ") && r.output.contains(limit),
                              "\(path) \(mode): \(r.output)")
                XCTAssertLessThan(r.seconds, 30, "\(path) \(mode)")
                XCTAssertLessThan(r.maxRSSKB, honest.maxRSSKB + Self.headroomKB, "\(path) \(mode): peak memory")
                XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(local), before), [], "\(path) \(mode)")
                XCTAssertEqual(ReleaseLoop.leftovers(beside: local), [], "\(path) \(mode)")
            }
        }
    }

    /// The floods while a build reads the previous release from the site: exit 1, the output untouched.
    func testFloodsStopAtTheirLimitDuringBuildPrevious() throws {
        try server.serve(ReleaseLoop.release1)
        let honest = try Child.run(build(TestSupport.tempDir("honest-build").appendingPathComponent("dist")), env: ReleaseLoop.env2)
        XCTAssertEqual(honest.status, 0, honest.output)
        let existing = ReleaseLoop.copy(ReleaseLoop.release1, "flood-out")
        let before = TestSupport.snapshot(existing)
        // (Each flood once and each file once: the sync above meets every flood on every file, through the same
        // fetcher; a build takes seconds to reach the old files, so nine builds would cost a minute.)
        for (path, mode) in [("update-manifest.json", "endless"), ("releases/1/files.json", "gzipbomb"), ("SUMMARY.json", "hugelength")] {
            do {
                try server.fault([path: mode])
                let r = try Child.run(build(existing, ["--retries", "0"]), env: ReleaseLoop.env2)
                XCTAssertEqual(r.status, 1, "\(path) \(mode): \(r.output)")
                XCTAssertTrue(r.output.contains(url + path + ": ") && r.output.contains("more than "), "\(path) \(mode): \(r.output)")
                XCTAssertFalse(r.output.contains("Built "), r.output)
                XCTAssertLessThan(r.seconds, 60, "\(path) \(mode)")
                XCTAssertLessThan(r.maxRSSKB, honest.maxRSSKB + Self.headroomKB, "\(path) \(mode): peak memory")
                XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(existing), before), [], "\(path) \(mode)")
            }
        }
    }

    func build(_ out: URL, _ extra: [String] = []) -> [String] {
        ["build", "--input", ReleaseLoop.input2.path, "--out", out.path, "--threads", "2", "--previous", url] + extra
    }

    /// One byte a second: the sync and the build stop at their deadline, and wait without spinning a core.
    func testATrickleStopsAtTheDeadline() throws {
        let local = ReleaseLoop.copy(ReleaseLoop.release1, "trickle-local")
        let before = TestSupport.snapshot(local)
        try server.fault(["update-manifest.json": "trickle"])
        let sync = try Child.run(["sync", url, local.path, "--deadline", "4"])
        XCTAssertEqual(sync.status, 1, sync.output)
        XCTAssertTrue(sync.output.contains(url + "update-manifest.json: the sync took longer than its 4 s deadline"), sync.output)
        XCTAssertLessThan(sync.seconds, 30)
        // Waiting costs next to no CPU (URLSession on Linux spun a core for as long as the server made it wait).
        XCTAssertLessThan(sync.cpuSeconds, 2, "CPU while waiting")
        XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(local), before), [])

        try server.serve(ReleaseLoop.release1)
        try server.fault(["releases/1/files.json": "trickle"])
        let out = TestSupport.tempDir("trickle-out").appendingPathComponent("dist")
        let built = try Child.run(build(out, ["--deadline", "4"]), env: ReleaseLoop.env2)
        XCTAssertEqual(built.status, 1, built.output)
        XCTAssertTrue(built.output.contains("reading the previous release took longer than its 4 s deadline"), built.output)
        XCTAssertLessThan(built.seconds, 30)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    /// A manifest that answers 301 (to a 404, or to a file:// URL) is an error, never "nothing published yet".
    func testRedirectsAreRefused() throws {
        try server.serve(ReleaseLoop.release1)
        let existing = ReleaseLoop.copy(ReleaseLoop.release1, "redirect-out")
        let before = TestSupport.snapshot(existing)
        let fresh = TestSupport.tempDir("redirect-new").appendingPathComponent("dist")
        for (mode, target) in [("301to404", url + "gone/update-manifest.json"), ("301tofile", "file:///etc/passwd")] {
            try server.fault(["update-manifest.json": mode])
            for out in [existing, fresh] {
                let r = try TestSupport.runCLI(build(out), env: ReleaseLoop.env2)
                XCTAssertEqual(r.status, 1, "\(mode): \(r.output)")
                XCTAssertTrue(r.output.contains("update-manifest.json: redirected (301) to \(target): redirects are not followed"), r.output)
                XCTAssertFalse(r.output.contains("Built "), r.output)
            }
            XCTAssertEqual(ReleaseLoop.differences(TestSupport.snapshot(existing), before), [], mode)
            XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), mode)
            let local = TestSupport.tempDir("redirect-sync").appendingPathComponent("copy")
            let sync = try TestSupport.runCLI(["sync", url, local.path])
            XCTAssertEqual(sync.status, 1, sync.output)
            XCTAssertFalse(sync.output.contains("nothing is published"), sync.output)
        }
        // A site that moved: the error names where to point the site URL.
        try server.fault(["update-manifest.json": "301moved"])
        let moved = try TestSupport.runCLI(["sync", url, TestSupport.tempDir("moved").appendingPathComponent("copy").path])
        XCTAssertEqual(moved.status, 1, moved.output)
        XCTAssertTrue(moved.output.contains("redirected (301) to \(url)moved/update-manifest.json: redirects are not followed: "
                                            + "point the site URL at \(url)moved/"), moved.output)
    }
}

/// The generator as a child process, with what wait4 reports of it: exit status, peak memory, CPU time.
struct Child {
    var status: Int32
    var output: String
    var maxRSSKB: Int
    var cpuSeconds: Double
    var seconds: Double

    static func run(_ args: [String], env extra: [String: String] = [:], limit: TimeInterval = 300) throws -> Child {
        let folder = TestSupport.tempDir("child")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("output").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let binary = TestSupport.generatorBinary.path
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in extra { environment[k] = v }
        let argv = ([binary] + args).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let started = Date()
        guard posix_spawn(&pid, binary, &actions, nil, argv, envp) == 0 else { throw POSIXError(.ECHILD) }
        var status: Int32 = 0
        var usage = rusage()
        // Polled, so a child that hangs (the bug under test) is killed rather than hanging the suite.
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            if Date().timeIntervalSince(started) > limit { kill(pid, SIGKILL) }
            usleep(20_000)
        }
        let seconds = Date().timeIntervalSince(started)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Child(status: exit, output: output, maxRSSKB: Int(usage.ru_maxrss), cpuSeconds: cpu, seconds: seconds)
    }
}
