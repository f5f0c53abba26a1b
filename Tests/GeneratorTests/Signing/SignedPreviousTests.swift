import XCTest
import Foundation
@testable import Generator
import Schemas
import TreeClient
import FaultServerSupport

/// `build --previous URL` of a signed input: the site's release must be signed under the input's roots (checked as
/// an app would, its expiry aside), or the build stops with the output untouched.
final class SignedPreviousTests: XCTestCase {
    var server: FaultServer!
    var signed: SignedTrees!

    override func setUpWithError() throws {
        signed = try SignedTrees.get()
        server = try FaultServer(root: signed.trees[3])
    }

    override func tearDown() { server?.stop() }

    /// A build into a new output that continues from the served tree; the output's files after it (nil: none).
    func build(_ tree: URL, acceptUnsigned: Bool = false, keys: [SigningKey]? = nil) throws -> (BuildSummary, URL) {
        try server.serve(tree)
        let out = TestSupport.tempDir("signed-previous").appendingPathComponent("dist")
        var o = BuildOptions(input: signed.input, output: out, threads: 2, epochSeconds: Int(Date().timeIntervalSince1970) + 86_400)
        o.previousSite = server.base
        o.signingKeys = keys ?? [signed.b]
        o.acceptUnsignedPrevious = acceptUnsigned
        return (try Build.run(o), out)
    }

    func assertRefused(_ tree: URL, _ words: String, acceptUnsigned: Bool = false, line: UInt = #line) {
        XCTAssertThrowsError(try build(tree, acceptUnsigned: acceptUnsigned), line: line) { e in
            XCTAssertTrue("\(e)".contains(words), "\(e)", line: line)
        }
    }

    func testGenuineReleaseIsContinuedAndForgedOnesAreRefused() throws {
        // Release 4 as published: the build continues from it (the same input: nothing new, version 4 stands).
        let (same, _) = try build(signed.trees[3])
        XCTAssertEqual(same.version, 4)
        XCTAssertFalse(same.changed)
        // Signed by a key no root lists.
        let site = try signed.hostileCopy(of: 4, "previous-forged")
        let payload = try SignedTrees.payload(of: site)
        try SignedTrees.writeManifest(SignedTrees.replacing(payload, "version", with: .int(900)), signedBy: [SigningKey.generate()], into: site)
        assertRefused(site, "does not list")
        // Signed by revoked key A.
        try SignedTrees.writeManifest(SignedTrees.replacing(payload, "version", with: .int(900)), signedBy: [signed.a], into: site)
        assertRefused(site, "does not list")
        // Release 1 (under root 1, replaced since): refused.
        assertRefused(signed.trees[0], "signed under a replaced root")
    }

    /// An unsigned release at the site: refused, unless the build is told this is the site's first signed release.
    func testUnsignedPreviousNeedsToBeAcceptedExplicitly() throws {
        let site = try signed.hostileCopy(of: 4, "previous-unsigned")
        var plain = try SignedTrees.payload(of: site)
        plain = JSONObject(plain.members.filter { $0.key != "expires" && $0.key != "rootVersion" }.map { ($0.key, $0.value) })
        try Data(try JSONWriter().bytes(.object(plain))).write(to: site.appendingPathComponent("update-manifest.json"))
        assertRefused(site, "--accept-unsigned-previous")
        let (summary, out) = try build(site, acceptUnsigned: true)
        XCTAssertEqual(summary.version, 4)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing changed, nothing written")
    }
}
