import FaultServerSupport
import Foundation
import Schemas
import TestTools
import TreeClient
import XCTest
@testable import Generator

/// A release that only moves one rollout: a delta of a few hundred bytes, `generator diff` saying it in words (and
/// failing a widening over the step), and an app that sees it after one sync.
final class FlagsReleaseTests: XCTestCase {
    static let flags = try! String(contentsOf: TestSupport.repoRoot.appendingPathComponent("input/flags.json"), encoding: .utf8)

    /// Releases 1, 2 (a description edited) and 3 (new_checkout's iOS rollout 25 → 50 %) of one site, each kept.
    static let releases: Result<[URL], Error> = Result {
        let input = TestSupport.makeInput(files: ["flags.json": flags], copyDefaultCatalog: true)
        let out = TestSupport.tempDir("flags-release").appendingPathComponent("dist")
        let edits: [(String) -> String] = [
            { $0 },
            { $0.replacingOccurrences(of: "\"One-page checkout\"", with: "\"One-page checkout (beta)\"") },
            { $0.replacingOccurrences(of: "\"percent\": 25", with: "\"percent\": 50") },
        ]
        var kept: [URL] = []
        var text = flags
        for (i, edit) in edits.enumerated() {
            text = edit(text)
            try Data(text.utf8).write(to: input.appendingPathComponent("flags.json"))
            _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000 + i * 100))
            let copy = out.deletingLastPathComponent().appendingPathComponent("release-\(i + 1)")
            try FileManager.default.copyItem(at: out, to: copy)
            kept.append(copy)
        }
        return kept
    }

    func testTheDeltaOfOneRolloutChangeIsAFewHundredBytes() throws {
        let trees = try Self.releases.get()
        let bytes = try Data(contentsOf: trees[2].appendingPathComponent("releases/3/delta-from-2.json"))
        let delta = try JSONReader.parse(bytes)
        let changed = delta["changed"]?.arrayValue ?? []
        XCTAssertEqual(delta["added"]?.arrayValue?.count, 0)
        XCTAssertEqual(delta["removed"]?.arrayValue?.count, 0)
        // The flag: one operation.
        let flags = try XCTUnwrap(changed.first { $0["path"]?.stringValue == "config/flags.json" })
        XCTAssertEqual(flags["patch"], .array([.obj(["op": "replace", "path": "/flags/new_checkout/rules/0/rollout/percent", "value": .int(50)])]))
        XCTAssertLessThan(try JSONWriter().bytes(flags).count, 400)
        // Every other file in it only carries the release's time (app-config's lastUpdated, the seed indexes'
        // generatedAt): nothing else of the tree moved.
        for entry in changed where entry["path"]?.stringValue != "config/flags.json" {
            let ops = entry["patch"]?.arrayValue ?? []
            XCTAssert(ops.allSatisfy { ["/lastUpdated", "/generatedAt"].contains($0["path"]?.stringValue ?? "") && $0["op"]?.stringValue == "replace" },
                      "\(entry["path"]?.stringValue ?? "?"): \(ops)")
        }
        // A few hundred bytes as a host sends it (gzip), under 1.5 KB as text.
        let gzip = Gzip.compressedSize(Array(bytes))
        XCTAssertLessThan(gzip, 800, "gzip \(gzip) B")
        XCTAssertLessThan(bytes.count, 1500, String(decoding: bytes, as: UTF8.self))
    }

    func testDiffWordsTheChangeAndFailsAWideningOverTheStep() throws {
        let trees = try Self.releases.get()
        let diff = try TreeDiff.compare(old: trees[1], new: trees[2])
        XCTAssertEqual(diff.flagChanges.map(\.text), ["new_checkout: iOS ≥3.2.0 <4.0.0 rollout 25 % → 50 %"])
        XCTAssertEqual(diff.flagChanges.map(\.widening), [25])
        XCTAssert(diff.text().contains("flags:\n  new_checkout: iOS ≥3.2.0 <4.0.0 rollout 25 % → 50 %"), diff.text())
        XCTAssert(diff.markdown().contains("- new_checkout: iOS ≥3.2.0 <4.0.0 rollout 25 % → 50 %"), diff.markdown())
        let edit = try TreeDiff.compare(old: trees[0], new: trees[1])
        XCTAssertEqual(edit.flagChanges.map(\.text), [], "a description is not a rule change")
        let over = try TestSupport.runCLI(["diff", "--fail-on", "widening=10", trees[1].path, trees[2].path])
        XCTAssertEqual(over.status, 1, over.output)
        XCTAssert(over.output.contains("fail: new_checkout: a rollout widened by 25 points, more than 10"), over.output)
        XCTAssertEqual(try TestSupport.runCLI(["diff", "--fail-on", "widening=25", trees[1].path, trees[2].path]).status, 0)
        XCTAssertEqual(try TestSupport.runCLI(["diff", "--fail-on", "widening=30", "--fail-on", "breaking", trees[1].path, trees[2].path]).status, 0)
        XCTAssertEqual(try TestSupport.runCLI(["diff", trees[1].path, trees[2].path]).status, 1)
        XCTAssertNotEqual(try TestSupport.runCLI(["diff", "--fail-on", "widening=x", trees[1].path, trees[2].path]).status, 0)
    }

    func testAnAppSeesTheNewRolloutAfterOneSync() throws {
        let trees = try Self.releases.get()
        let server = try FaultServer(root: trees[1])
        defer { server.stop() }
        let dir = TestSupport.tempDir("flags-sync").appendingPathComponent("copy")
        let config = HTTPFetcher.Configuration(timeout: 5, retries: 0, backoff: 0.05)
        _ = try TreeSync(site: server.base, directory: dir, configuration: config).run(progress: nil)
        // An install whose bucket is in [2500, 5000): out at 25 %, in at 50 %.
        let unit = try XCTUnwrap((0..<10_000).lazy.map { "install-\($0)" }.first { (2500..<5000).contains(FlagBucket.bucket(flag: "new_checkout", unit: $0)) })
        let context = FlagContext(unit: unit, platform: "ios", appVersion: "3.3.0", attributes: ["country": "DE"])
        XCTAssertFalse(try FeatureFlags(copy: dir).isOn("new_checkout", for: context))
        try server.serve(trees[2])
        let report = try TreeSync(site: server.base, directory: dir, configuration: config).run(progress: nil)
        XCTAssertEqual(report.toVersion, 3)
        XCTAssertEqual(report.deltaFrom, 2)
        XCTAssertTrue(try FeatureFlags(copy: dir).isOn("new_checkout", for: context))
        XCTAssertEqual(try FeatureFlags(copy: dir).update(for: context), .recommended)
    }
}
