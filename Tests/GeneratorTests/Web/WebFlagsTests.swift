import Foundation
import Schemas
import TestTools
import TreeClient
import XCTest
@testable import Generator

/// `flags/flags.js` in headless Chromium, `generator flags --contexts` and TreeClient's `FeatureFlags` on 10,000
/// random contexts: the same value of every flag and the same update status for each.
final class WebFlagsTests: XCTestCase {
    /// A tree of `Tests/Data/flags/flags.json` (every kind of rule, value and version range).
    static let tree: Result<URL, Error> = Result {
        let flags = try String(contentsOf: Repository.testData("flags/flags.json"), encoding: .utf8)
        let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: ["flags.json": flags])
        let out = TestSupport.tempDir("web-flags").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }

    /// Seeded contexts: units of every shape (the testers' included), platforms, versions in and around every
    /// range (malformed ones too), attributes present or not.
    static func contexts(_ n: Int) -> [JSON] {
        var r = TestSupport.Random(state: 44)
        let versions = ["3.2.0", "3.2", "3.1.2", "3.1.2.0", "3.3", "3.9.99", "4.0.0", "2.9.9", "3", "3.0.0.1", "3.1", "1.0.0.1", "1", "0.9",
                        "10.0.1", "10.0.0", "3.2.0-beta", "v3", "", "3..1"]
        return (0..<n).map { i in
            var members: [(String, JSON)] = []
            if !r.chance(3) {
                let unit = r.chance(2) ? r.pick(["qa-1", "Zoë-東京", "qa-2"]) : r.chance(50) ? String(format: "%016llX-%08llx", r.next(), r.next() >> 32) : "user-\(i)"
                members.append(("unit", .string(unit)))
            }
            if !r.chance(10) { members.append(("platform", .string(r.pick(["ios", "android", "web", "IOS"])))) }
            if !r.chance(10) { members.append(("appVersion", .string(r.pick(versions)))) }
            var attributes: [(String, JSON)] = []
            if !r.chance(20) { attributes.append(("country", .string(r.pick(["US", "CA", "DE", "us", "FR"])))) }
            if r.chance(40) { attributes.append(("plan", .string(r.pick(["pro", "team", "free"])))) }
            if !attributes.isEmpty { members.append(("attributes", .object(JSONObject(attributes)))) }
            return .object(JSONObject(members))
        }
    }

    func swiftAnswers(_ flags: FeatureFlags, _ contexts: [JSON]) throws -> [JSON] {
        try contexts.enumerated().map { i, c in
            try TreeFlags.answer(flags, try TreeFlags.context(jsonLine: JSONWriter().string(c), number: i + 1))
        }
    }

    func testSwiftChromiumAndTheCommandAgreeOn10000Contexts() throws {
        try Tool.require(.chromium, .python3)
        let tree = try Self.tree.get()
        let contexts = Self.contexts(10_000)
        let want = try swiftAnswers(try FeatureFlags(copy: tree), contexts)
        // The command, all contexts in one run.
        let file = TestSupport.tempDir("flag-contexts").appendingPathComponent("contexts.jsonl")
        try Data(try contexts.map { try JSONWriter().string($0) + "\n" }.joined().utf8).write(to: file)
        let cli = try TestSupport.runCLI(["flags", tree.path, "--contexts", file.path])
        XCTAssertEqual(cli.status, 0, String(cli.output.prefix(500)))
        let cliAnswers = try cli.output.split(separator: "\n").map { try JSONReader.parse(String($0)) }
        // The browser.
        let site = try WebTools.site(tree: tree, extra: [
            "flags-compare.html": try Data(contentsOf: WebTools.folder.appendingPathComponent("flags-compare.html")),
            "contexts.json": try JSONWriter().data(.array(contexts)),
        ])
        let server = try WebTools.Server(site)
        defer { server.stop() }
        let dom = try WebTools.dumpDOM(server.url.appendingPathComponent("flags-compare.html"))
        let text = try XCTUnwrap(WebTools.output(dom, marker: "ANSWERS"), String(dom.suffix(2000)))
        let browser = try XCTUnwrap(try JSONReader.parse(text).arrayValue)
        XCTAssertEqual(cliAnswers.count, contexts.count)
        XCTAssertEqual(browser.count, contexts.count)
        var problems: [String] = []
        for (i, c) in contexts.enumerated() {
            if i < cliAnswers.count, cliAnswers[i] != want[i] { problems.append("command \(c.compactText): \(cliAnswers[i].compactText) ≠ \(want[i].compactText)") }
            if i < browser.count, browser[i] != want[i] { problems.append("browser \(c.compactText): \(browser[i].compactText) ≠ \(want[i].compactText)") }
        }
        XCTAssertEqual(problems, [], "\(problems.count) disagreements:\n" + problems.prefix(20).joined(separator: "\n"))
        // Not vacuous: every flag takes more than one value, and every update status occurs.
        for key in ["new_checkout", "fine_rollout", "limits", "ratio", "everyone", "nobody"] {
            let seen = Set(want.map { $0["flags"]?[key]?.compactText ?? "" })
            XCTAssertGreaterThan(seen.count, 1, "\(key) always \(seen)")
        }
        XCTAssertEqual(Set(want.compactMap { $0["update"]?.stringValue }), ["none", "recommended", "required", "blocked"])
        XCTAssertEqual(Set(want.compactMap { $0["flags"]?["fine_rollout"]?.stringValue }), ["control", "variant-a", "variant-b", "variant-c"])
    }
}
