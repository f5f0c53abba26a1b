import XCTest
import Foundation
@testable import Generator
import Schemas
import TreeClient

/// A signed build with nothing new renews the release's signature in place (a scheduled build keeps apps from
/// finding the release stale), and leaves every other file as it was.
final class SignatureRenewalTests: XCTestCase {
    func testABuildWithNothingNewSignsTheReleaseAgain() throws {
        let signed = try SignedTrees.get()
        let work = TestSupport.tempDir("renewal"), input = work.appendingPathComponent("input"), out = work.appendingPathComponent("dist")
        try FileManager.default.copyItem(at: signed.input, to: input)
        let day0 = Int(Date().timeIntervalSince1970)
        func build(_ day: Int) throws -> BuildSummary {
            var o = BuildOptions(input: input, output: out, threads: 2, epochSeconds: day0 + day * 86_400)
            o.signingKeys = [signed.b]
            return try Build.run(o)
        }
        func expires() throws -> Date? {
            try SignedRelease.of(manifest: Array(Data(contentsOf: out.appendingPathComponent("update-manifest.json"))))?.expires
        }
        let first = try build(0)
        XCTAssertTrue(first.changed)
        let tree = TestSupport.snapshot(out)
        XCTAssertEqual(try expires(), Date(timeIntervalSince1970: TimeInterval(day0 + 7 * 86_400)))
        // Three days on, nothing new: the same version, signed again until day 10; no other file touched.
        let later = try build(3)
        XCTAssertFalse(later.changed)
        XCTAssertTrue(later.renewed)
        XCTAssertEqual(later.version, first.version)
        XCTAssertEqual(try expires(), Date(timeIntervalSince1970: TimeInterval(day0 + 10 * 86_400)))
        let renewed = TestSupport.snapshot(out)
        XCTAssertEqual(Set(renewed.keys), Set(tree.keys))
        XCTAssertEqual(renewed.keys.filter { renewed[$0] != tree[$0] }, ["update-manifest.json"])
        // An app pinned at root 1 takes it; the same build time again writes nothing.
        let trust = try ReleaseTrust(pinned: SignedRoot(json: signed.roots[0]), now: { Date(timeIntervalSince1970: TimeInterval(day0 + 9 * 86_400)) })
        XCTAssertEqual(try TreeVerifier(folder: out, trust: trust).verify().version, first.version)
        XCTAssertFalse(try build(3).renewed)
        XCTAssertEqual(TestSupport.snapshot(out), renewed)
        // An unsigned manifest: the whole tree, signed by the build, was never renewed into one.
        XCTAssertNotNil(try SignedRelease.of(manifest: Array(renewed["update-manifest.json"]!)))
    }
}
