import Foundation
import XCTest
@testable import Generator

/// Flag changes in words and how far each widens a rollout, on hand-written pairs of documents.
final class FlagChangesTests: XCTestCase {
    func doc(_ flags: String, updates: String = "{}") -> [UInt8] { Array(#"{"format": 1, "flags": \#(flags), "updates": \#(updates)}"#.utf8) }

    func changes(_ old: String, _ new: String) -> [String] {
        FlagChanges.compare(old: doc(old), new: doc(new)).map { "\($0.text) [\(FlagChanges.percent($0.widening))]" }
    }

    func testRolloutsKillSwitchesAndRules() {
        let base = #"{"p": {"default": false, "rules": [{"when": {"platform": ["android"], "appVersion": ">=2.0"}, "rollout": {"percent": 10, "value": true}}]}}"#
        XCTAssertEqual(changes(base, base.replacingOccurrences(of: "10,", with: "12.5,")),
                       ["p: Android ≥2.0 rollout 10 % → 12.5 % [2.5]"])
        XCTAssertEqual(changes(base, base.replacingOccurrences(of: "10,", with: "5,")), ["p: Android ≥2.0 rollout 10 % → 5 % [0]"])
        XCTAssertEqual(changes(base, #"{"p": {"default": false, "rules": []}}"#), ["kill switch: p off [0]"])
        XCTAssertEqual(changes(base, base.replacingOccurrences(of: "10,", with: "0,")), ["kill switch: p off [0]"])
        XCTAssertEqual(changes(base, #"{"p": {"default": true, "rules": []}}"#), ["p on for everyone [90]"])
        XCTAssertEqual(changes(base, #"{"p": {"default": false, "rules": [{"when": {"platform": ["android"], "appVersion": ">=2.0"}, "value": true}]}}"#),
                       ["p: rule 1: Android ≥2.0: rollout 10 % → true → Android ≥2.0: true [90]"])
        XCTAssertEqual(changes(base, #"{"p": {"default": false, "rules": [{"when": {"platform": ["android"], "appVersion": ">=2.0"}, "rollout": {"percent": 10, "value": true}}, {"when": {"country": ["US", "CA"]}, "rollout": {"percent": 20, "value": true}}]}}"#),
                       ["p: rule 2 added: country US/CA: rollout 20 % → true [20]"])
        XCTAssertEqual(changes(base, "{}"), ["p: flag removed [0]"])
        XCTAssertEqual(changes("{}", base), ["p: new flag, default false [10]", "p: rule 1: Android ≥2.0: rollout 10 % → true [0]"])
        // A value rule made a rollout narrows; a rollout of another value from a value rule takes its percent.
        let plain = #"{"p": {"default": false, "rules": [{"value": true}]}}"#
        XCTAssertEqual(changes(plain, #"{"p": {"default": false, "rules": [{"rollout": {"percent": 30, "value": true}}]}}"#),
                       ["p: rule 1: everyone: true → everyone: rollout 30 % → true [0]"])
        XCTAssertEqual(changes(#"{"s": {"default": "a"}}"#.replacingOccurrences(of: "}}", with: #", "rules": []}}"#),
                               #"{"s": {"default": "b", "rules": [{"when": {"unit": ["qa-1"]}, "value": "a"}]}}"#),
                       ["s: default \"a\" → \"b\" [0]", "s: rule 1 added: unit qa-1: \"a\" [0]"])
    }

    func testUpdatePolicyChanges() {
        let old = doc("{}", updates: #"{"ios": {"minimum": "3.0", "blocked": ["3.1.2"]}}"#)
        let new = doc("{}", updates: #"{"ios": {"minimum": "3.1", "recommended": "3.4", "blocked": ["3.1.3"]}, "android": {"minimum": "2.9"}}"#)
        XCTAssertEqual(FlagChanges.compare(old: old, new: new).map(\.text), [
            "updates android: minimum none → 2.9",
            "updates ios: minimum 3.0 → 3.1", "updates ios: recommended none → 3.4",
            "updates ios: 3.1.3 blocked", "updates ios: 3.1.2 no longer blocked",
        ])
        XCTAssertEqual(FlagChanges.compare(old: nil, new: nil), [])
    }
}
