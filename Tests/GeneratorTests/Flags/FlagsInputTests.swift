import Foundation
import Schemas
import XCTest
@testable import Generator

/// `input/flags.json`: what a good file becomes, and every kind of mistake as a message naming the file, the field
/// and, inside a rule, the flag and the rule's number.
final class FlagsInputTests: XCTestCase {
    func input(_ flags: String) -> URL {
        TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: ["flags.json": flags])
    }

    func build(_ input: URL) throws -> URL {
        let out = TestSupport.tempDir("flags").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return out
    }

    func testTheDefaultInputPublishesItsFlagsAndAppConfigNamesThem() throws {
        let dist = try build(TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") },
                                                   files: ["flags.json": try String(contentsOf: TestSupport.repoRoot.appendingPathComponent("input/flags.json"), encoding: .utf8)]))
        let doc = try JSONReader.parse(Data(contentsOf: dist.appendingPathComponent("config/flags.json")))
        XCTAssertEqual(doc["format"], .int(1))
        XCTAssertEqual(doc["flags"]?.objectValue?.keys.map { $0 }, ["new_checkout", "search_filters", "ar_preview", "home_banner", "payments_v2"])
        XCTAssertEqual(doc["flags"]?["new_checkout"]?["rules"]?[0]?["rollout"]?["percent"], .int(25))
        XCTAssertEqual(doc["updates"]?["ios"]?["blocked"], .strings(["3.1.2"]))
        let config = try JSONReader.parse(Data(contentsOf: dist.appendingPathComponent("app-config.json")))
        XCTAssertEqual(config["endpoints"]?["flags"]?.stringValue?.hasSuffix("/config/flags.json"), true)
        XCTAssert(FileManager.default.fileExists(atPath: dist.appendingPathComponent("flags/flags.js").path))
        // Without flags.json: no file, no endpoint.
        let plain = try build(TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: ["x.txt": ""]))
        XCTAssertFalse(FileManager.default.fileExists(atPath: plain.appendingPathComponent("config/flags.json").path))
        XCTAssertNil(try JSONReader.parse(Data(contentsOf: plain.appendingPathComponent("app-config.json")))["endpoints"]?["flags"])
    }

    /// Each bad file, and what its message must say.
    static let mistakes: [(String, [String])] = [
        (#"{"flags": {"a": {"default": true, "rules": [{"value": true}, {"rollout": {"percent": 150, "value": true}}]}}}"#,
         ["flags.a.rules[1].rollout.percent", "flag a, rule 2", "from 0 to 100, found 150"]),
        (#"{"flags": {"a": {"default": true, "rules": [{"rollout": {"percent": -1, "value": true}}]}}}"#,
         ["flags.a.rules[0].rollout.percent", "flag a, rule 1", "found -1"]),
        (#"{"flags": {"a": {"default": true, "rules": [{"rollout": {"percent": 12.345, "value": true}}]}}}"#,
         ["flag a, rule 1", "more than two decimals"]),
        (#"{"flags": {"b": {"default": false, "rules": [{"when": {"appVersion": ">= 3.2"}, "value": true}]}}}"#,
         ["flags.b.rules[0].when.appVersion", "flag b, rule 1", "\">=\" has no version after it"]),
        (#"{"flags": {"b": {"default": false, "rules": [{"when": {"appVersion": "~3.2"}, "value": true}]}}}"#,
         ["flag b, rule 1", "does not start with >=, >, <=, < or ="]),
        (#"{"flags": {"c": {"default": false, "rules": [{"when": {"country": ["US"]}, "value": "yes"}]}}}"#,
         ["flags.c.rules[0].value", "flag c, rule 1", "is a string, but the flag's default is a boolean"]),
        (#"{"flags": {"c": {"default": 3, "rules": [{"rollout": {"percent": 5, "value": {"x": 1}}}]}}}"#,
         ["flags.c.rules[0].rollout.value", "flag c, rule 1", "is an object, but the flag's default is a number"]),
        (#"{"flags": {"d": {"default": false, "rules": [{"when": {"country": ["US"]}, "value": true, "percent": 5}]}}}"#,
         ["flags.d.rules[0].percent", "flag d, rule 1", "unknown key"]),
        (#"{"flags": {"d": {"default": false, "rules": [{"rollout": {"percent": 5, "value": true, "salt": "x"}}]}}}"#,
         ["flags.d.rules[0].rollout.salt", "flag d, rule 1", "unknown key"]),
        (#"{"flags": {"e": {"default": false, "rules": [{"when": {"country": "US"}, "value": true}]}}}"#,
         ["flags.e.rules[0].when.country", "flag e, rule 1", "non-empty list"]),
        (#"{"flags": {"e": {"default": false, "rules": [{"when": {"country": ["US"]}}]}}}"#,
         ["flags.e.rules[0]", "flag e, rule 1", "needs a value or a rollout"]),
        (#"{"flags": {"e": {"default": false, "rules": [{"value": true, "rollout": {"percent": 5, "value": true}}]}}}"#,
         ["flag e, rule 1", "has both value and rollout"]),
        (#"{"flags": {"f": {"rules": []}}}"#, ["flags.f.default", "flag f", "is required"]),
        (#"{"flags": {"f": {"default": null}}}"#, ["flags.f.default", "flag f", "is required"]),
        (#"{"flags": {"f": {"default": true, "rule": []}}}"#, ["flags.f.rule", "unknown key"]),
        (#"{"flags": {"bad key!": {"default": true}}}"#, ["flag key", "bad key!"]),
        (#"{"flags": {}, "update": {}}"#, ["field 'update'", "unknown key"]),
        (#"{"flags": {}, "updates": {"ios": {"minimum": "3.x"}}}"#, ["updates.ios.minimum", "not a version"]),
        (#"{"flags": {}, "updates": {"ios": {"minimum": "3.2", "recommended": "3.1"}}}"#, ["updates.ios.recommended", "below the minimum"]),
        (#"{"flags": {}, "updates": {"iOS": {}}}"#, ["updates.iOS", "lower-case"]),
        (#"{"flags": {"a": {"default": true,}}}"#, ["flags.json:1", "invalid JSON"]),
        (#"{"flags": {"a": {"default": {"x": [1e400]}}}}"#, ["flags.a.default", "flag a", "1e400 is beyond the range"]),
        (#"{"flags": {"a": {"default": 1, "rules": [{"value": -1e999}]}}}"#, ["flags.a.rules[0].value", "flag a, rule 1", "beyond the range"]),
    ]

    func testEveryMistakeIsAnErrorNamingFileFlagAndRule() throws {
        for (text, expected) in Self.mistakes {
            do {
                _ = try build(input(text))
                XCTFail("built: \(text)")
            } catch {
                let message = "\(error)"
                XCTAssert(message.contains("flags.json"), "no file in: \(message)")
                for e in expected { XCTAssert(message.contains(e), "expected \(e) in: \(message)") }
            }
        }
    }

    func testAFailedBuildLeavesThePreviousTreeAsItWas() throws {
        let good = input(#"{"flags": {"a": {"default": true}}}"#)
        let out = TestSupport.tempDir("flags-keep").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: good, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let before = try Data(contentsOf: out.appendingPathComponent("config/flags.json"))
        try Data(#"{"flags": {"a": {"default": true, "rules": [{"rollout": {"percent": 101, "value": false}}]}}}"#.utf8)
            .write(to: good.appendingPathComponent("flags.json"))
        XCTAssertThrowsError(try Build.run(BuildOptions(input: good, output: out, threads: 2, epochSeconds: 1_700_000_001)))
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("config/flags.json")), before)
    }

    func testAFlagsFileLinkedFromOutsideTheInputIsRefused() throws {
        let input = input("{}")
        let outside = TestSupport.tempDir("flags-outside").appendingPathComponent("flags.json")
        try Data(#"{"flags": {"a": {"default": true}}}"#.utf8).write(to: outside)
        try FileManager.default.removeItem(at: input.appendingPathComponent("flags.json"))
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("flags.json"), withDestinationURL: outside)
        XCTAssertThrowsError(try build(input)) { e in
            XCTAssert("\(e)".contains("flags.json: resolves outside the input folder"), "\(e)")
        }
    }
}
