import XCTest
import Foundation
@testable import Generator
import Schemas
import TreeClient
import FaultServerSupport
import TestTools

/// A sync that pins root 1 against a hostile HTTP server on 127.0.0.1 serving real signed trees (`SignedTrees`),
/// altered as The Update Framework's attacks alter an update channel. Each attack ends in a clear error and a copy
/// byte for byte as it was.
final class SignedSyncTests: XCTestCase {
    var server: FaultServer!
    var signed: SignedTrees!

    override func setUpWithError() throws {
        signed = try SignedTrees.get()
        server = try FaultServer(root: signed.trees[0])
    }

    override func tearDown() { server?.stop() }

    func trust(_ root: [UInt8]? = nil, now: Date = Date()) throws -> ReleaseTrust {
        try ReleaseTrust(pinned: SignedRoot(json: root ?? signed.roots[0]), now: { now })
    }

    /// Syncs `dir` from `tree` as served now.
    @discardableResult
    func sync(_ tree: URL, _ dir: URL, trust: ReleaseTrust? = nil) throws -> SyncReport {
        try server.serve(tree)
        return try TreeSync(site: server.base, directory: dir, configuration: .init(timeout: 5, retries: 0, backoff: 0.05),
                            trust: trust ?? self.trust()).run(progress: nil)
    }

    /// A copy synced to release `n`.
    func copy(at n: Int, _ name: String) throws -> URL {
        let dir = TestSupport.tempDir("signed-\(name)").appendingPathComponent("copy")
        for k in 1...n where k == 1 || k == n { try sync(signed.trees[k - 1], dir) }
        return dir
    }

    /// Syncing `dir` from `tree` fails with `kind`, the message holding `words`, and leaves the copy as it was.
    func assertRefused(_ tree: URL, _ dir: URL, _ kind: SyncError.Kind, _ words: String, trust: ReleaseTrust? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let before = TestSupport.snapshot(dir)
        XCTAssertThrowsError(try sync(tree, dir, trust: trust), file: file, line: line) { e in
            let s = e as? SyncError
            XCTAssertEqual(s?.kind, kind, "\(e)", file: file, line: line)
            XCTAssertTrue("\(e)".contains(words), "\(e)", file: file, line: line)
        }
        XCTAssertEqual(TestSupport.snapshot(dir), before, "the copy is as it was", file: file, line: line)
    }

    /// Releases 1 to 4 one after the other: the roots 2 and 3 are taken on the way (from the site, then from the
    /// copy), and each copy is the tree.
    func testSignedReleasesAndRotatedRootsAreFollowed() throws {
        let dir = TestSupport.tempDir("signed-follow").appendingPathComponent("copy")
        var taken: [[Int]] = []
        for (k, tree) in signed.trees.enumerated() {
            let report = try sync(tree, dir)
            XCTAssertEqual(report.toVersion, k + 1)
            XCTAssertEqual(TestSupport.snapshot(dir), TestSupport.snapshot(tree), "release \(k + 1)")
            XCTAssertEqual(report.rootVersion, [1, 1, 2, 3][k])
            XCTAssertNotNil(report.expires)
            taken.append(report.rootsTaken)
        }
        XCTAssertEqual(taken, [[], [], [2], [2, 3]])
        // A new app pinned at root 1 reaches release 4 at once, through both roots.
        let fresh = TestSupport.tempDir("signed-fresh").appendingPathComponent("copy")
        XCTAssertEqual(try sync(signed.trees[3], fresh).rootsTaken, [2, 3])
    }

    /// Arbitrary content with consistent hashes: a page rewritten, its sha256 and size in the file index, and the
    /// index's in the manifest's plain members. The signed payload still names the published index.
    func testRewrittenContentWithConsistentHashesIsRefused() throws {
        let dir = try copy(at: 1, "rewrite")
        let site = try signed.hostileCopy(of: 2, "rewrite")
        let page = try XCTUnwrap(try FileManager.default.subpathsOfDirectory(atPath: site.path).first { $0.hasPrefix("products/") && $0.hasSuffix("details.json") })
        let old = try Data(contentsOf: site.appendingPathComponent(page)), new = Data(String(decoding: old, as: UTF8.self).replacingOccurrences(of: "\"name\":\"", with: "\"name\":\"Free ").utf8)
        XCTAssertNotEqual(old, new)
        try new.write(to: site.appendingPathComponent(page))
        let indexURL = site.appendingPathComponent("releases/2/files.json")
        var index = try String(contentsOf: indexURL, encoding: .utf8)
        index = index.replacingOccurrences(of: Build.sha256Hex([UInt8](old)), with: Build.sha256Hex([UInt8](new)))
            .replacingOccurrences(of: #""path":"\#(page)","sha256":"\#(Build.sha256Hex([UInt8](new)))","size":\#(old.count)"#,
                                  with: #""path":"\#(page)","sha256":"\#(Build.sha256Hex([UInt8](new)))","size":\#(new.count)"#)
        let oldIndex = try Data(contentsOf: indexURL)
        try index.write(to: indexURL, atomically: true, encoding: .utf8)
        let newIndex = try Data(contentsOf: indexURL)
        let manifestURL = site.appendingPathComponent("update-manifest.json")
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
            .replacingOccurrences(of: Build.sha256Hex([UInt8](oldIndex)), with: Build.sha256Hex([UInt8](newIndex)))
        try manifest.write(to: manifestURL, atomically: true, encoding: .utf8)
        // The index served is not the one signed.
        try assertRefused(site, dir, .invalidRelease, "sha256")
        // With the payload rewritten as well, the signature no longer holds.
        var payload = try SignedTrees.payload(of: signed.trees[1])
        payload = SignedTrees.replacing(payload, "fileIndex", with: .obj(["path": .string("releases/2/files.json"),
                                                                           "sha256": .string(Build.sha256Hex([UInt8](newIndex))), "size": .int(newIndex.count)]))
        let envelopeText = try JSONReader.parse(Data(contentsOf: signed.trees[1].appendingPathComponent("update-manifest.json"))).objectValue!["signed"]!
        var envelope = try SignedEnvelope(json: Array(try JSONWriter().bytes(envelopeText)))
        envelope.payload = try JSONWriter().bytes(.object(payload))
        var members = payload
        members.append("signed", try JSONReader.parse(envelope.json))
        try Data(try JSONWriter().bytes(.object(members))).write(to: manifestURL)
        try assertRefused(site, dir, .untrusted, "0 valid signature(s) by the keys of root 1")
    }

    /// A manifest signed by a key root 1 does not list.
    func testManifestSignedByAnUnknownKeyIsRefused() throws {
        let dir = try copy(at: 1, "unknown")
        let site = try signed.hostileCopy(of: 2, "unknown")
        try SignedTrees.writeManifest(try SignedTrees.payload(of: site), signedBy: [SigningKey.generate()], into: site)
        try assertRefused(site, dir, .untrusted, "does not list")
    }

    /// Under a root of threshold 2 (keys A and B): A's signature alone, or A's twice, is too few; A's and B's pass.
    func testSignaturesBelowTheThresholdAreRefused() throws {
        let both = [signed.a.publicKey, signed.b.publicKey]
        var rootEnvelope = SignedEnvelope(payloadType: SignedRoot.payloadType,
                                          payload: SignedRoot.payload(version: 1, expires: Date().addingTimeInterval(86_400), threshold: 2,
                                                                      maxVersionJump: 3, keys: both))
        rootEnvelope = try signed.b.sign(try signed.a.sign(rootEnvelope))
        let pinned = try trust(rootEnvelope.json)
        let dir = TestSupport.tempDir("signed-threshold").appendingPathComponent("copy")
        let site = try signed.hostileCopy(of: 2, "threshold")
        // (The tree's own root 1 is another chain's; release 2's tree has no root 2, so this app's root stays current.)
        let payload = try SignedTrees.payload(of: site)
        try SignedTrees.writeManifest(payload, signedBy: [signed.a], into: site)
        try assertRefused(site, dir, .untrusted, "1 valid signature(s) by the keys of root 1; it needs 2", trust: pinned)
        try SignedTrees.writeManifest(payload, signedBy: [signed.a, signed.a], into: site)
        try assertRefused(site, dir, .untrusted, "1 valid signature(s) by the keys of root 1; it needs 2", trust: pinned)
        try SignedTrees.writeManifest(payload, signedBy: [signed.a, signed.b], into: site)
        XCTAssertEqual(try sync(site, dir, trust: pinned).toVersion, 2)
    }

    /// A replayed older signed manifest (a host rolled back to release 1).
    func testReplayedOlderReleaseIsRefused() throws {
        let dir = try copy(at: 2, "replay")
        try assertRefused(signed.trees[0], dir, .untrusted, "refusing to roll back")
    }

    /// A version far ahead (a stolen key's fast-forward) is refused past root 1's maxVersionJump of 3; so is a
    /// release relabelled as another version (its signature no longer holds).
    func testVersionJumpAndRelabelledReleaseAreRefused() throws {
        let dir = try copy(at: 1, "jump")
        let site = try signed.hostileCopy(of: 2, "jump")
        let payload = try SignedTrees.payload(of: site)
        try SignedTrees.writeManifest(SignedTrees.replacing(payload, "version", with: .int(999_999_999)), signedBy: [signed.a], into: site)
        try assertRefused(site, dir, .untrusted, "more than root 1's maxVersionJump of 3")
        // Relabelled: the payload says 3, the signatures are release 2's.
        let manifestURL = site.appendingPathComponent("update-manifest.json")
        try FileManager.default.removeItem(at: manifestURL)
        try FileManager.default.copyItem(at: signed.trees[1].appendingPathComponent("update-manifest.json"), to: manifestURL)
        let text = try String(contentsOf: manifestURL, encoding: .utf8)
        let envelope = try SignedEnvelope(json: Array(try JSONWriter().bytes(JSONReader.parse(Data(text.utf8)).objectValue!["signed"]!)))
        var relabelled = envelope
        relabelled.payload = try JSONWriter().bytes(.object(SignedTrees.replacing(payload, "version", with: .int(3))))
        try text.replacingOccurrences(of: Data(envelope.payload).base64EncodedString(), with: Data(relabelled.payload).base64EncodedString())
            .write(to: manifestURL, atomically: true, encoding: .utf8)
        try assertRefused(site, dir, .untrusted, "0 valid signature(s)")
    }

    /// An expired release: refused as new data, the copy kept, and the time of the last good check told.
    func testExpiredReleaseKeepsTheCopyAndTellsItIsStale() throws {
        let dir = try copy(at: 1, "expired")
        let checked = try XCTUnwrap(TreeSync(site: server.base, directory: dir).lastSuccessfulCheck)
        XCTAssertLessThan(abs(checked.timeIntervalSinceNow), 120)
        let later = try trust(now: Date().addingTimeInterval(8 * 86_400))
        try assertRefused(signed.trees[1], dir, .expired, "expired at", trust: later)
        do { try sync(signed.trees[1], dir, trust: later) } catch let e as SyncError {
            XCTAssertEqual(e.lastSuccessfulCheck.map { Int($0.timeIntervalSince1970) }, Int(checked.timeIntervalSince1970))
        }
        // The same release, current when checked now.
        XCTAssertEqual(try sync(signed.trees[1], dir).toVersion, 2)
    }

    /// A mix of two releases: release 2's signed manifest with release 1's file index in its place.
    func testMixOfTwoReleasesIsRefused() throws {
        let dir = try copy(at: 1, "mix")
        let site = try signed.hostileCopy(of: 2, "mix")
        let index = site.appendingPathComponent("releases/2/files.json")
        try FileManager.default.removeItem(at: index)
        try FileManager.default.copyItem(at: signed.trees[0].appendingPathComponent("releases/1/files.json"), to: index)
        try assertRefused(site, dir, .invalidRelease, "releases/2/files.json")
    }

    /// A forged root 2 (listing the attacker's key, signed only by it) is refused, and so is its release.
    func testForgedRootIsRefused() throws {
        let dir = try copy(at: 2, "forged")
        let site = try signed.hostileCopy(of: 3, "forged")
        let thief = SigningKey.generate()
        var root = SignedEnvelope(payloadType: SignedRoot.payloadType,
                                  payload: SignedRoot.payload(version: 2, expires: Date().addingTimeInterval(86_400), threshold: 1,
                                                              maxVersionJump: 1000, keys: [thief.publicKey]))
        root = try thief.sign(root)
        // (Listed in the file index the thief's manifest names, as a thief would.)
        for path in ["roots/2.root.json", "root.json"] { try Data(root.json).write(to: site.appendingPathComponent(path)) }
        try SignedTrees.writeManifest(try SignedTrees.relist(["roots/2.root.json", "root.json"], in: site), signedBy: [thief], into: site)
        try assertRefused(site, dir, .untrusted, "root 2 lacks 1 valid signature(s) by the keys of root 1")
    }

    /// Once root 3 dropped key A, A's later signatures are refused, under root 3 and under the replaced roots; and a
    /// copy A's thief fast-forwarded (within the jump allowed) is brought back by release 4 through root 3, which
    /// resets the version floor.
    func testRevokedKeyIsRefusedAndItsFastForwardUndone() throws {
        let dir = try copy(at: 4, "revoked")
        let site = try signed.hostileCopy(of: 4, "revoked")
        let payload = SignedTrees.replacing(try SignedTrees.payload(of: site), "version", with: .int(5))
        try SignedTrees.writeManifest(payload, signedBy: [signed.a], into: site)
        try assertRefused(site, dir, .untrusted, "does not list")
        try SignedTrees.writeManifest(SignedTrees.replacing(payload, "rootVersion", with: .int(1)), signedBy: [signed.a], into: site)
        try assertRefused(site, dir, .untrusted, "signed under a replaced root")

        // The thief's release 4 (release 2's files) before root 3 was published: taken (within the jump of 3).
        let stolen = TestSupport.tempDir("signed-stolen").appendingPathComponent("copy")
        try sync(signed.trees[0], stolen)
        let forward = try signed.hostileCopy(of: 2, "forward")
        try SignedTrees.writeManifest(SignedTrees.replacing(try SignedTrees.payload(of: forward), "version", with: .int(4)), signedBy: [signed.a], into: forward)
        XCTAssertEqual(try sync(forward, stolen).toVersion, 4)
        // The genuine release 4 under root 3 replaces it, though its version is no higher.
        let report = try sync(signed.trees[3], stolen)
        XCTAssertEqual(report.rootsTaken, [2, 3])
        XCTAssertEqual(TestSupport.snapshot(stolen), TestSupport.snapshot(signed.trees[3]))
    }

    /// A tree without signatures is refused by an app that pins a root.
    func testUnsignedTreeIsRefused() throws {
        let dir = TestSupport.tempDir("signed-unsigned").appendingPathComponent("copy")
        let site = try signed.hostileCopy(of: 1, "unsigned")
        var plain = try SignedTrees.payload(of: site)
        plain = JSONObject(plain.members.filter { $0.key != "expires" && $0.key != "rootVersion" }.map { ($0.key, $0.value) })
        try Data(try JSONWriter().bytes(.object(plain))).write(to: site.appendingPathComponent("update-manifest.json"))
        try server.serve(site)
        XCTAssertThrowsError(try sync(site, dir)) { e in
            XCTAssertEqual((e as? SyncError)?.kind, .untrusted)
            XCTAssertTrue("\(e)".contains("is not signed"), "\(e)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path))
    }

    /// Another Ed25519 implementation (Python's `cryptography`, scripts/check-signature.py) agrees: release 4's
    /// roots and manifest check out from root 1; a manifest signed by a stranger's key does not.
    func testAnOutsideImplementationChecksTheSignatures() throws {
        try Tool.require(.python3, .cryptography)
        let pinned = TestSupport.tempDir("signed-judge").appendingPathComponent("root.json")
        try Data(signed.roots[0]).write(to: pinned)
        let script = Repository.script("check-signature.py").path
        let good = try TestSupport.run(["python3", script, signed.trees[3].path, pinned.path])
        XCTAssertEqual(good.status, 0, good.output)
        XCTAssertTrue(good.output.contains("root 3 signed by root 2's threshold"), good.output)
        XCTAssertTrue(good.output.hasSuffix("0 failed\n") || good.output.contains(" 0 failed"), good.output)
        let site = try signed.hostileCopy(of: 4, "judge")
        try SignedTrees.writeManifest(try SignedTrees.payload(of: site), signedBy: [SigningKey.generate()], into: site)
        let bad = try TestSupport.run(["python3", script, site.path, pinned.path])
        XCTAssertEqual(bad.status, 1, bad.output)
        XCTAssertTrue(bad.output.contains("FAIL 0 valid signature(s) by root 3's keys"), bad.output)
    }

    /// The same release signed again with a later expiry (a renewal): the copy is current, its manifest the new one.
    func testRenewedReleaseReplacesTheCopysManifest() throws {
        let dir = try copy(at: 2, "renewed")
        let site = try signed.hostileCopy(of: 2, "renewed")
        let later = TrustTime.text(Date().addingTimeInterval(20 * 86_400))
        try SignedTrees.writeManifest(SignedTrees.replacing(try SignedTrees.payload(of: site), "expires", with: .string(later)), signedBy: [signed.a], into: site)
        let before = TestSupport.snapshot(dir)
        let report = try sync(site, dir)
        XCTAssertTrue(report.alreadyCurrent)
        XCTAssertEqual(report.expires.map(TrustTime.text), later)
        let after = TestSupport.snapshot(dir)
        XCTAssertEqual(after.keys.filter { after[$0] != before[$0] }, ["update-manifest.json"])
        XCTAssertEqual(after["update-manifest.json"], try Data(contentsOf: site.appendingPathComponent("update-manifest.json")))
    }
}
