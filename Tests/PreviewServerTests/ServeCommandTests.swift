import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `generator serve` as a user runs it: port 0 prints the URL, SIGTERM and Ctrl-C stop it cleanly (exit 0, its
/// snapshot folder gone, the tree untouched), and the usage errors exit 2.
final class ServeCommandTests: XCTestCase {
    /// The built `generator` executable (next to the test bundle).
    static var binary: URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("generator")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return ServeSupport.repoRoot.appendingPathComponent(".build/debug/generator")
    }

    /// Starts `generator serve ARGS`, returns it with the URL of its "Serving … at URL" line.
    func start(_ args: [String]) throws -> (Process, URL, Pipe) {
        let p = Process()
        p.executableURL = Self.binary
        p.arguments = ["serve"] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Serving ") }),
               let range = line.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                return (p, URL(string: String(line[range]))!, err)
            }
        }
        p.terminate()
        throw RawHTTP.Failure("no URL printed: \(text) \(String(decoding: err.fileHandleForReading.availableData, as: UTF8.self))")
    }

    func waitExit(_ p: Process, _ seconds: Double) -> Bool {
        ServeSupport.waitFor(seconds) { !p.isRunning }
    }

    func testPortZeroPrintsTheURLAndSignalsStopCleanly() throws {
        let dist = try ServeSupport.build(ServeSupport.smallInput())
        let before = try FileManager.default.subpathsOfDirectory(atPath: dist.path).sorted()
        for sig in [SIGTERM, SIGINT] {
            let (p, url, _) = try start([dist.path, "--port", "0"])
            let r = try RawHTTP.get(port: url.port!, "/app-config.json")
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.body, try Data(contentsOf: dist.appendingPathComponent("app-config.json")))
            let privateFolder = dist.deletingLastPathComponent().appendingPathComponent(".dist.serve-\(p.processIdentifier)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: privateFolder.path), "snapshots live beside the tree")
            kill(p.processIdentifier, sig)
            XCTAssertTrue(waitExit(p, 60), "stops on signal \(sig)")
            XCTAssertEqual(p.terminationReason, .exit)
            XCTAssertEqual(p.terminationStatus, 0)
            XCTAssertFalse(FileManager.default.fileExists(atPath: privateFolder.path), "its snapshot folder is removed")
            XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: dist.path).sorted(), before, "the tree is untouched")
            XCTAssertThrowsError(try RawHTTP.get(port: url.port!, "/app-config.json"), "nothing listens any more")
        }
    }

    /// SIGTERM and Ctrl-C stop it within a second whatever its connections are doing: one kept alive and idle, one
    /// halfway through a head, one that never sent a byte.
    func testSignalsStopItWithinASecondWithConnectionsOpen() throws {
        let dist = try ServeSupport.build(ServeSupport.smallInput())
        for sig in [SIGTERM, SIGINT] {
            let child = try ServeChild([dist.path, "--port", "0"])
            defer { child.stop() }
            let idle = try XCTUnwrap(TestSocket.connect(port: child.port)), half = try XCTUnwrap(TestSocket.connect(port: child.port))
            let silent = try XCTUnwrap(TestSocket.connect(port: child.port))
            defer { [idle, half, silent].forEach { close($0) } }
            TestSocket.send(idle, Array("GET /app-config.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            var first = [UInt8](repeating: 0, count: 16)
            XCTAssertGreaterThan(first.withUnsafeMutableBytes { recv(idle, $0.baseAddress, $0.count, 0) }, 0, "answered, and kept alive")
            TestSocket.send(half, Array("GET /app-config.json HTTP/1.1\r\nHo".utf8))

            let started = Date()
            XCTAssertTrue(child.signal(sig, waitingUpTo: 1), "signal \(sig): still running after 1 s")
            print("signal \(sig): exited after \(String(format: "%.3f", Date().timeIntervalSince(started))) s")
            XCTAssertTrue(ServeSupport.waitFor(10) { !child.process.isRunning })
            XCTAssertEqual(child.process.terminationReason, .exit)
            XCTAssertEqual(child.process.terminationStatus, 0)
            XCTAssertTrue(child.stdout.hasSuffix("stopped\n"), child.stdout)
        }
    }

    /// With --watch, SIGTERM during a rebuild does not wait for the build: the server exits within a second, and the
    /// build is abandoned as a killed one is (the tree stays as it was).
    func testSIGTERMDuringABuildStopsItWithinASecond() throws {
        let input = ServeSupport.copyOfDefaultInput()
        let dist = ServeSupport.tempDir("sigterm-build").appendingPathComponent("dist")
        let child = try ServeChild([dist.path, "--port", "0", "--watch", input.path, "--threads", "1"], timeout: 600)
        defer { child.stop() }
        let manifest = try Data(contentsOf: dist.appendingPathComponent("update-manifest.json"))
        // Every betting total moved by half a point: each game is simulated again, so the rebuild takes as long as
        // the first build's simulations (seconds), not the ~1 s of an edit whose results are remembered.
        let lines = input.appendingPathComponent("nba/lines.csv")
        let rows = try String(contentsOf: lines, encoding: .utf8).components(separatedBy: "\n").enumerated().map { i, row -> String in
            var columns = row.components(separatedBy: ",")
            guard i > 0, columns.count > 3, let total = Double(columns[3]) else { return row }
            columns[3] = String(total + 0.5)
            return columns.joined(separator: ",")
        }
        try rows.joined(separator: "\n").write(to: lines, atomically: true, encoding: .utf8)
        XCTAssertTrue(ServeSupport.waitFor(60) { child.stdout.contains("changed: rebuilding") }, child.stdout)

        let started = Date()
        XCTAssertTrue(child.signal(SIGTERM, waitingUpTo: 1), "still running 1 s after SIGTERM: \(child.stdout)")
        print("exited \(String(format: "%.3f", Date().timeIntervalSince(started))) s after SIGTERM")
        XCTAssertTrue(ServeSupport.waitFor(10) { !child.process.isRunning })
        XCTAssertEqual(child.process.terminationStatus, 0)
        XCTAssertTrue(child.stdout.contains("a build was still running"), "the signal came during the build: \(child.stdout)")
        XCTAssertEqual(try Data(contentsOf: dist.appendingPathComponent("update-manifest.json")), manifest, "the served tree is the one before")
        let privateFolder = dist.deletingLastPathComponent().appendingPathComponent(".dist.serve-\(child.process.processIdentifier)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: privateFolder.path), "its snapshot folder is removed")
    }

    func testUsageErrorsExitTwoAndABusyPortExitsOne() throws {
        let folder = ServeSupport.tempDir("usage")
        let notATree = folder.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: notATree, withIntermediateDirectories: true)
        try "x".write(to: notATree.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8)
        for (args, mention) in [([folder.appendingPathComponent("none").path, "--port", "0"], "no such folder"),
                                ([notATree.path, "--port", "0"], "not a tree built by generator"),
                                ([notATree.path, "--port", "0", "--host", "example.com"], "--host"),
                                ([notATree.path, "--port", "70000"], "--port")] {
            let (status, output) = try run(args)
            XCTAssertEqual(status, 2, "\(args): \(output)")
            XCTAssertTrue(output.contains(mention), "\(args): \(output)")
        }
        // --watch builds into DIST, so DIST must be a folder a build may replace.
        let (refused, refusal) = try run([notATree.path, "--port", "0", "--watch", ServeSupport.smallInput().path])
        XCTAssertEqual(refused, 2, refusal)
        XCTAssertTrue(refusal.contains("not built by generator") || refusal.contains("not a tree built by generator"), refusal)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: notATree.path), ["a.txt"], "nothing written into a folder it refused")

        // A first build that fails leaves nothing to serve: exit 1 with the build's error.
        let broken = ServeSupport.smallInput()
        try "{\"id\": ".write(to: broken.appendingPathComponent("catalog/products.jsonl"), atomically: true, encoding: .utf8)
        let (failed, failure) = try run([folder.appendingPathComponent("new-dist").path, "--port", "0", "--watch", broken.path])
        XCTAssertEqual(failed, 1, failure)
        XCTAssertTrue(failure.contains("products.jsonl:1"), failure)
        XCTAssertTrue(failure.contains("holds no tree to serve"), failure)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("new-dist").path))

        let dist = try ServeSupport.build(ServeSupport.smallInput())
        let (p, url, _) = try start([dist.path, "--port", "0"])
        defer { kill(p.processIdentifier, SIGTERM); _ = waitExit(p, 10) }
        let (status, output) = try run([dist.path, "--port", String(url.port!)])
        XCTAssertEqual(status, 1, output)
        XCTAssertTrue(output.contains("cannot listen"), output)
    }

    func run(_ args: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = Self.binary
        p.arguments = ["serve"] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
