import XCTest
import LowLevel
import Foundation
import TreeClient
import FaultServerSupport

/// TreeSync against a real HTTP server on 127.0.0.1 (scripts/fault-server.py) serving hand-written releases.
final class SyncTests: XCTestCase {
    var server: FaultServer!
    var work: URL!
    var r1: SyntheticRelease!
    var r2: SyntheticRelease!

    /// Release 1, and release 2 with a price changed (patched), a page added, one removed, one unchanged, and a
    /// changed file whose delta entry carries no patch.
    override func setUpWithError() throws {
        work = scratchFolder("sync")
        let v1 = ["a.json": #"{"id":"a","name":"Drill","price":10,"tags":["x","y"]}"#,
                  "b.json": #"{"id":"b","name":"Saw","price":20}"#,
                  "gone.json": #"{"id":"gone"}"#,
                  "pages/big.json": "[" + (0..<400).map { #"{"n":\#($0),"text":"row \#($0) of a long page"}"# }.joined(separator: ",") + "]",
                  "notes.txt": "plain text\n"]
        r1 = try SyntheticRelease.write(work.appendingPathComponent("site1"), version: 1, files: v1)
        var v2 = v1
        v2["a.json"] = #"{"id":"a","name":"Drill","price":12.5,"tags":["x","y"]}"#
        v2["pages/big.json"] = "[" + (0..<400).map { #"{"n":\#($0),"text":"row \#($0) of a \#($0 == 7 ? "short" : "long") page"}"# }.joined(separator: ",") + "]"
        v2["b.json"] = #"{"id":"b","name":"Saw","price":21}"#
        v2["new/c.json"] = #"{"id":"c","name":"Sander \u00e9\n\"q\""}"#
        v2["gone.json"] = nil
        r2 = try SyntheticRelease.write(work.appendingPathComponent("site2"), version: 2, files: v2, previous: r1, patches: [
            "a.json": #"[{"op":"replace","path":"/price","value":12.5}]"#,
            "pages/big.json": #"[{"op":"replace","path":"/7/text","value":"row 7 of a short page"}]"#,
        ])
        server = try FaultServer(root: r1.root)
    }

    override func tearDown() {
        server?.stop()
        try? FileManager.default.removeItem(at: work)
    }

    func client(_ dir: URL, timeout: Double = 5, retries: Int = 1) -> TreeSync {
        TreeSync(site: server.base, directory: dir, configuration: .init(timeout: timeout, retries: retries, backoff: 0.05))
    }

    /// No staging folder and no lock left beside the copy.
    func assertNoLeftovers(_ dir: URL, file: StaticString = #filePath, line: UInt = #line) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.deletingLastPathComponent().path)) ?? []
        XCTAssertEqual(names.filter { $0.contains(".sync-") && !$0.hasSuffix("sync-state.json") || $0.hasSuffix(".sync.lock") }, [],
                       file: file, line: line)
    }

    func testFirstCopyUpdateWithDeltaAndAlreadyCurrent() throws {
        let dir = work.appendingPathComponent("app/copy")
        let first = try client(dir).run(progress: nil)
        XCTAssertNil(first.fromVersion)
        XCTAssertEqual(first.toVersion, 1)
        XCTAssertEqual(snapshot(dir), snapshot(r1.root))
        XCTAssertEqual(first.bytesDownloaded, first.freshCopyBytes)
        XCTAssertEqual(first.downloaded, r1.files.count)

        // Nothing new: the manifest comes back 304 (no body at all).
        let again = try client(dir).run(progress: nil)
        XCTAssertTrue(again.alreadyCurrent)
        XCTAssertEqual(again.bytesDownloaded, 0)

        try server.serve(r2.root)
        try server.clearLog()
        let progress = Locked([SyncProgress]())
        let update = try client(dir).run(progress: { p in progress.withLock { $0.append(p) } })
        let steps = progress.withLock { $0 }
        XCTAssertEqual(snapshot(dir), snapshot(r2.root))
        XCTAssertEqual(update.fromVersion, 1)
        XCTAssertEqual(update.toVersion, 2)
        XCTAssertEqual(update.deltaFrom, 1)
        XCTAssertEqual(update.patched, 2, "a.json and pages/big.json")
        XCTAssertEqual(update.deleted, 1, "gone.json")
        XCTAssertLessThan(update.bytesDownloaded, update.freshCopyBytes)
        XCTAssertEqual(steps.last?.done, steps.last?.total)
        // Patched files are never downloaded, and nothing is fetched twice.
        let fetched = try server.log().map(\.path)
        XCTAssertFalse(fetched.contains("a.json"))
        XCTAssertFalse(fetched.contains("pages/big.json"))
        XCTAssertTrue(fetched.contains("b.json"), "changed without a patch: downloaded whole")
        XCTAssertEqual(fetched.count, Set(fetched).count, "\(fetched)")
        assertNoLeftovers(dir)
    }

    func testRollbackIsRefused() throws {
        let dir = work.appendingPathComponent("copy")
        try server.serve(r2.root)
        _ = try client(dir).run(progress: nil)
        let before = snapshot(dir)
        try server.serve(r1.root)
        XCTAssertThrowsError(try client(dir).run(progress: nil)) { e in
            XCTAssertEqual((e as? SyncError)?.kind, .rollback)
            XCTAssertTrue("\(e)".contains("offers version 1, older than the local copy's version 2"), "\(e)")
        }
        XCTAssertEqual(snapshot(dir), before)
        assertNoLeftovers(dir)
    }

    /// Every fault on a file of the update leaves the copy as it was; the next clean sync succeeds.
    func testFaultsLeaveTheCopyIntact() throws {
        let dir = work.appendingPathComponent("copy")
        _ = try client(dir).run(progress: nil)
        let before = snapshot(dir)
        try server.serve(r2.root)
        let cases: [(path: String, mode: String, kind: SyncError.Kind)] = [
            ("new/c.json", "truncate", .unreachable), ("b.json", "corrupt", .invalidRelease), ("b.json", "500", .unreachable),
            ("new/c.json", "reset", .unreachable), ("b.json", "slow3", .unreachable),
            ("update-manifest.json", "500", .unreachable), ("releases/2/files.json", "corrupt", .invalidRelease),
            ("releases/2/delta-from-1.json", "truncate", .unreachable), ("b.json", "404", .unreachable),
        ]
        for c in cases {
            try server.fault([c.path: c.mode])
            let started = Date()
            XCTAssertThrowsError(try client(dir, timeout: 1).run(progress: nil), "\(c)") { e in
                XCTAssertEqual((e as? SyncError)?.kind, c.kind, "\(c): \(e)")
                XCTAssertTrue("\(e)".contains(server.base.absoluteString + c.path), "\(c): names the URL: \(e)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(started), 60, "\(c)")   // (a hang, not a slow machine)
            XCTAssertEqual(snapshot(dir), before, "\(c)")
            assertNoLeftovers(dir)
        }
        try server.clearFaults()
        _ = try client(dir).run(progress: nil)
        XCTAssertEqual(snapshot(dir), snapshot(r2.root))
    }

    /// A fault that passes (once) is retried away.
    func testRetriesAPassingFault() throws {
        let dir = work.appendingPathComponent("copy")
        try server.fault(["a.json": "once:500", "b.json": "once:reset", "notes.txt": "once:corrupt"])
        _ = try client(dir, retries: 2).run(progress: nil)
        XCTAssertEqual(snapshot(dir), snapshot(r1.root))
    }

    func testNothingPublished() throws {
        try server.serve(work)   // no update-manifest.json there
        XCTAssertThrowsError(try client(work.appendingPathComponent("copy")).run(progress: nil)) { e in
            XCTAssertEqual((e as? SyncError)?.kind, .notPublished, "\(e)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("copy").path))
    }

    /// A `.DIR.sync-PID` folder the sync did not mark as its own (this very pid, or another) survives a sync; a
    /// marked one, left by a killed sync, is removed.
    func testForeignStagingFoldersSurvive() throws {
        let dir = work.appendingPathComponent("app/copy")
        let parent = dir.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        var foreign: [URL] = []
        for name in [".copy.sync-\(getpid())", ".copy.sync-4194303"] {
            let folder = parent.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("tree"), withIntermediateDirectories: true)
            try Data("someone's file\n".utf8).write(to: folder.appendingPathComponent("tree/keep.txt"))
            foreign.append(folder)
        }
        let abandoned = parent.appendingPathComponent(".copy.sync-4194302")
        try FileManager.default.createDirectory(at: abandoned, withIntermediateDirectories: true)
        try Data("tree sync staging folder\npid 4194302\n".utf8).write(to: abandoned.appendingPathComponent("made-by-tree-sync"))
        _ = try client(dir).run(progress: nil)
        XCTAssertEqual(snapshot(dir), snapshot(r1.root))
        for folder in foreign {
            XCTAssertEqual(try? String(contentsOf: folder.appendingPathComponent("tree/keep.txt"), encoding: .utf8), "someone's file\n", folder.path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: abandoned.path))
    }

    /// A server below the minimum rate is dropped at the end of a rate window, the copy unchanged.
    func testATrickleBelowTheMinimumRateFails() throws {
        let dir = work.appendingPathComponent("copy")
        _ = try client(dir).run(progress: nil)
        let before = snapshot(dir)
        try server.serve(r2.root)
        try server.fault(["new/c.json": "trickle"])
        let sync = TreeSync(site: server.base, directory: dir,
                            configuration: .init(timeout: 5, retries: 0, minimumRate: 50, rateWindow: 2))
        XCTAssertThrowsError(try sync.run(progress: nil)) { e in
            XCTAssertEqual((e as? SyncError)?.kind, .unreachable, "\(e)")
            XCTAssertTrue("\(e)".contains("new/c.json: sent "), "\(e)")
            XCTAssertTrue("\(e)".contains(" bytes in 2 s, below the minimum rate of 50 bytes/s"), "\(e)")
        }
        XCTAssertEqual(snapshot(dir), before)
        assertNoLeftovers(dir)
    }

    func testUnreachableSite() throws {
        server.stop()
        XCTAssertThrowsError(try client(work.appendingPathComponent("copy"), retries: 0).run(progress: nil)) { e in
            XCTAssertEqual((e as? SyncError)?.kind, .unreachable, "\(e)")
            XCTAssertTrue("\(e)".contains("connection refused"), "\(e)")
        }
    }

    /// Paths a hostile index names are refused before anything is written; nothing appears outside the folder.
    func testHostilePathsAreRefused() throws {
        let dir = work.appendingPathComponent("deep/copy")
        _ = try client(dir).run(progress: nil)
        let before = snapshot(dir)
        for (i, bad) in ["../escape.json", "../../escape.json", "/tmp/escape.json", #"a\b.json"#, "a/./b.json", "a//b.json", "x\u{1B}[2J.json", ""].enumerated() {
            let site = try SyntheticRelease.write(work.appendingPathComponent("hostile\(i)"), version: 2,
                                                  files: ["a.json": #"{"id":"a"}"#]) { entries in
                entries.append((bad, String(repeating: "0", count: 64), 2))
            }
            try server.serve(site.root)
            XCTAssertThrowsError(try client(dir).run(progress: nil), bad) { e in
                XCTAssertEqual((e as? SyncError)?.kind, .invalidRelease, "\(bad): \(e)")
            }
            XCTAssertEqual(snapshot(dir), before, bad)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("deep/escape.json").path))
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("escape.json").path))
        }
        // The same in a delta's path and the manifest's index path.
        let manifest = try String(contentsOf: r2.root.appendingPathComponent("update-manifest.json"), encoding: .utf8)
        let hostile = work.appendingPathComponent("hostile-manifest")
        try FileManager.default.copyItem(at: r2.root, to: hostile)
        for replaced in [manifest.replacingOccurrences(of: #""path":"releases/2/files.json""#, with: #""path":"../releases/2/files.json""#),
                         manifest.replacingOccurrences(of: #""path":"releases/2/delta-from-1.json"}]"#, with: #""path":"/etc/passwd"}]"#)] {
            XCTAssertNotEqual(replaced, manifest)
            try Data(replaced.utf8).write(to: hostile.appendingPathComponent("update-manifest.json"))
            try server.serve(hostile)
            XCTAssertThrowsError(try client(dir).run(progress: nil)) { e in XCTAssertEqual((e as? SyncError)?.kind, .invalidRelease, "\(e)") }
            XCTAssertEqual(snapshot(dir), before)
        }
    }

    /// The folder must be new, empty or an earlier copy: a sync replaces it whole.
    func testRefusesAFolderOfOtherFiles() throws {
        let dir = work.appendingPathComponent("documents")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: dir.appendingPathComponent("thesis.txt"))
        XCTAssertThrowsError(try client(dir).run(progress: nil)) { e in XCTAssertEqual((e as? SyncError)?.kind, .refusedFolder, "\(e)") }
        XCTAssertEqual(snapshot(dir), ["thesis.txt": Data("mine".utf8)])
    }

    /// A damaged local file is never used: it is downloaded again (and a patch whose base is damaged is not applied).
    func testDamagedLocalFilesAreDownloadedAgain() throws {
        let dir = work.appendingPathComponent("copy")
        _ = try client(dir).run(progress: nil)
        try Data(#"{"id":"a","name":"Drill","price":99,"tags":["x","y"]}"#.utf8).write(to: dir.appendingPathComponent("a.json"))
        try Data("PLAIN TEXT\n".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        try server.serve(r2.root)
        let report = try client(dir).run(progress: nil)
        XCTAssertEqual(snapshot(dir), snapshot(r2.root))
        XCTAssertEqual(report.patched, 1, "only pages/big.json: a.json's base is damaged")
        XCTAssertTrue(report.notes.contains { $0.contains("notes.txt") }, "\(report.notes)")
        XCTAssertTrue(report.notes.contains { $0.contains("a.json") }, "\(report.notes)")
        // Same version, a file truncated: repaired rather than reported current.
        try Data().write(to: dir.appendingPathComponent("b.json"))
        let repair = try client(dir).run(progress: nil)
        XCTAssertFalse(repair.alreadyCurrent)
        XCTAssertEqual(snapshot(dir), snapshot(r2.root))
    }

    /// A patch that does not give the published bytes is never used: the file is downloaded whole.
    func testWrongPatchFallsBackToTheWholeFile() throws {
        let dir = work.appendingPathComponent("copy")
        _ = try client(dir).run(progress: nil)
        let bad = try SyntheticRelease.write(work.appendingPathComponent("site-bad-patch"), version: 2, files: r2.files.mapValues { String(decoding: $0, as: UTF8.self) },
                                             previous: r1, patches: ["a.json": #"[{"op":"replace","path":"/price","value":13}]"#,
                                                                     "pages/big.json": #"[{"op":"remove","path":"/nothing"}]"#])
        try server.serve(bad.root)
        let report = try client(dir).run(progress: nil)
        XCTAssertEqual(snapshot(dir), snapshot(bad.root))
        XCTAssertEqual(report.patched, 0)
        XCTAssertEqual(report.notes.filter { $0.contains("did not give the published bytes") }.count, 2, "\(report.notes)")
    }

    /// An object store in the middle of a publish: the manifest already names release 2, but b.json still holds
    /// release 1's bytes at its path; release 2's bytes are in the store under their sha256
    /// (`releases/objects/SHA256.json`). Sync reads them from there, checks them, and the copy is release 2's byte
    /// for byte. Without that object (GitHub Pages) or with other bytes in it, the sync fails as before.
    func testAFileItsPathDoesNotHoldYetIsReadFromItsContentAddressedCopy() throws {
        let site = work.appendingPathComponent("mid-publish")
        try FileManager.default.copyItem(at: r2.root, to: site)
        try Data(r1.files["b.json"]!).write(to: site.appendingPathComponent("b.json"))
        let b2 = r2.files["b.json"]!
        let object = "releases/objects/\(HTTPFetcher.sha256Hex(b2)).json"
        try FileManager.default.createDirectory(at: site.appendingPathComponent("releases/objects"), withIntermediateDirectories: true)
        try Data(b2).write(to: site.appendingPathComponent(object))
        try server.serve(site)

        // A fresh copy, and a copy at release 1 (b.json has no patch: downloaded whole).
        let fresh = work.appendingPathComponent("fresh/copy"), old = work.appendingPathComponent("old/copy")
        try server.serve(r1.root)
        _ = try client(old).run(progress: nil)
        try server.serve(site)
        for dir in [fresh, old] {
            try server.clearLog()
            let report = try client(dir, retries: 3).run(progress: nil)
            XCTAssertEqual(report.toVersion, 2)
            XCTAssertEqual(snapshot(dir), snapshot(r2.root), "byte-identical to release 2 (\(dir.path))")
            let log = try server.log().map(\.path)
            XCTAssertEqual(log.filter { $0 == "b.json" }.count, 1, "the copy is asked at once, not after retries: \(log)")
            XCTAssertEqual(log.filter { $0 == object }.count, 1, "\(log)")
            XCTAssertEqual(log.filter { $0.hasPrefix("releases/objects/") }.count, 1, "only for the file whose path holds other bytes: \(log)")
        }

        // Other bytes in the copy too (of another size, or of the same size with one byte changed: only the sha256
        // tells), or no copy: refused as before, naming the file; the copy at release 1 intact.
        try server.serve(r1.root)
        let stale = work.appendingPathComponent("stale/copy")
        _ = try client(stale).run(progress: nil)
        try server.serve(site)
        var sameSize = b2
        sameSize[sameSize.count / 2] ^= 0x01
        for damage in [Array("other bytes".utf8), sameSize, nil] {
            if let damage { try Data(damage).write(to: site.appendingPathComponent(object)) }
            else { try FileManager.default.removeItem(at: site.appendingPathComponent(object)) }
            try server.clearLog()
            XCTAssertThrowsError(try client(stale, retries: 2).run(progress: nil)) { e in
                XCTAssertEqual((e as? SyncError)?.kind, .invalidRelease, "\(e)")
                XCTAssertTrue("\(e)".contains(server.base.absoluteString + "b.json"), "\(e)")
            }
            XCTAssertEqual(snapshot(stale), snapshot(r1.root))
            let log = try server.log().map(\.path)
            XCTAssertEqual(log.filter { $0 == "b.json" }.count, 3, "the path is retried as before: \(log)")
            // Asked again after each retry while it answers with bytes; a 404 ends it (no such object on Pages).
            XCTAssertEqual(log.filter { $0 == object }.count, damage == nil ? 1 : 3, "\(log)")
        }
    }

    /// The content-addressed name of a file: its sha256 and its extension (lower case, letters and digits), never a
    /// path outside releases/objects/.
    func testContentAddressedNames() {
        let h = String(repeating: "ab", count: 32)
        let cases: [(String, String?)] = [
            ("products/1/details.json", "releases/objects/\(h).json"), ("404.html", "releases/objects/\(h).html"),
            ("a/B.SVG", "releases/objects/\(h).svg"), ("x.tar.gz", "releases/objects/\(h).gz"), (".nojekyll", "releases/objects/\(h)"),
            ("CNAME", "releases/objects/\(h)"), ("a/b.j$on", "releases/objects/\(h)"), ("a/b.", "releases/objects/\(h)"),
            ("a/b." + String(repeating: "x", count: 17), "releases/objects/\(h)"),
        ]
        for (path, expected) in cases { XCTAssertEqual(TreePath.contentAddressed(sha256: h, path: path), expected, path) }
        for bad in [String(repeating: "AB", count: 32), String(repeating: "a", count: 63), "../" + String(repeating: "a", count: 61), ""] {
            XCTAssertNil(TreePath.contentAddressed(sha256: bad, path: "a.json"), bad)
        }
    }

    func testAsyncRun() async throws {
        let dir = work.appendingPathComponent("copy")
        let report = try await client(dir).run()
        XCTAssertEqual(report.toVersion, 1)
        XCTAssertEqual(snapshot(dir), snapshot(r1.root))
    }
}
