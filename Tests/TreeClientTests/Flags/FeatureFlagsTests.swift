import Foundation
import TreeClient
import XCTest

/// Evaluation on a table of cases: version ranges, lists, rule order, rollouts and the update policy. Each expected
/// value is written by hand from the rules in the document below.
final class FeatureFlagsTests: XCTestCase {
    static let document = #"""
    {"format": 1,
     "flags": {
       "new_checkout": {"default": false, "rules": [
         {"when": {"platform": ["ios"], "appVersion": ">=3.2.0 <4.0.0"}, "rollout": {"percent": 100, "value": true}},
         {"when": {"country": ["US", "CA"]}, "value": true}]},
       "first_wins": {"default": "default", "rules": [
         {"when": {"country": ["US"]}, "value": "first"},
         {"when": {"country": ["US", "DE"]}, "value": "second"},
         {"value": "everyone else"}]},
       "rollout_then_value": {"default": 0, "rules": [
         {"rollout": {"percent": 0, "value": 1}},
         {"when": {"plan": ["pro"]}, "value": 2}]},
       "testers": {"default": false, "rules": [{"when": {"unit": ["qa-1"]}, "value": true}]},
       "exact": {"default": false, "rules": [{"when": {"appVersion": "=3.1"}, "value": true}]},
       "open_range": {"default": false, "rules": [{"when": {"appVersion": ">2.9.9 <=3.0"}, "value": true}]},
       "object_value": {"default": {"limit": 5}, "rules": [{"when": {"platform": ["web"]}, "value": {"limit": 50}}]}
     },
     "updates": {
       "ios": {"minimum": "3.0.0", "recommended": "3.4.0", "blocked": ["3.1.2"]},
       "android": {"minimum": "2.9"}
     }}
    """#

    func flags() throws -> FeatureFlags { try FeatureFlags(json: Array(Self.document.utf8)) }

    func value(_ key: String, _ c: FlagContext) throws -> String {
        String(decoding: try XCTUnwrap(try flags().value(key, for: c)).bytes, as: UTF8.self)
    }

    func testVersionRangesAndLists() throws {
        let cases: [(FlagContext, String, String)] = [
            (FlagContext(unit: "u", platform: "ios", appVersion: "3.2.0"), "new_checkout", "true"),      // lower bound holds
            (FlagContext(unit: "u", platform: "ios", appVersion: "3.2"), "new_checkout", "true"),        // 3.2 = 3.2.0
            (FlagContext(unit: "u", platform: "ios", appVersion: "3.10.1"), "new_checkout", "true"),     // 10 > 2, not "1" < "2"
            (FlagContext(unit: "u", platform: "ios", appVersion: "4.0.0"), "new_checkout", "false"),     // upper bound excluded
            (FlagContext(unit: "u", platform: "ios", appVersion: "3.1.9"), "new_checkout", "false"),
            (FlagContext(unit: "u", platform: "android", appVersion: "3.5"), "new_checkout", "false"),   // platform not listed
            (FlagContext(unit: "u", platform: "ios", appVersion: "3.2.0-beta"), "new_checkout", "false"), // not a version
            (FlagContext(unit: "u", platform: "ios"), "new_checkout", "false"),                          // no version
            (FlagContext(unit: "u", attributes: ["country": "CA"]), "new_checkout", "true"),             // any of the list
            (FlagContext(unit: "u", attributes: ["country": "ca"]), "new_checkout", "false"),            // exact, case-sensitive
            (FlagContext(unit: "u", appVersion: "3.1.0"), "exact", "true"),                              // =3.1 is 3.1.0
            (FlagContext(unit: "u", appVersion: "3.1.0.1"), "exact", "false"),
            (FlagContext(unit: "u", appVersion: "3"), "open_range", "true"),                             // 3 = 3.0, > 2.9.9
            (FlagContext(unit: "u", appVersion: "2.9.9"), "open_range", "false"),
            (FlagContext(unit: "u", appVersion: "3.0.0.1"), "open_range", "false"),
            (FlagContext(unit: "qa-1"), "testers", "true"),                                              // `unit` is an attribute
            (FlagContext(unit: "qa-2"), "testers", "false"),
            (FlagContext(unit: "u", platform: "web"), "object_value", #"{"limit":50}"#),
            (FlagContext(unit: "u"), "object_value", #"{"limit":5}"#),
        ]
        for (c, key, want) in cases {
            XCTAssertEqual(try value(key, c), want, "\(key) for \(c)")
        }
    }

    func testRulesAreTriedInOrder() throws {
        XCTAssertEqual(try value("first_wins", FlagContext(unit: "u", attributes: ["country": "US"])), #""first""#)
        XCTAssertEqual(try value("first_wins", FlagContext(unit: "u", attributes: ["country": "DE"])), #""second""#)
        XCTAssertEqual(try value("first_wins", FlagContext(unit: "u", attributes: ["country": "FR"])), #""everyone else""#)
        XCTAssertEqual(try value("first_wins", FlagContext(unit: "u")), #""everyone else""#)
        // A unit outside a rollout goes on to the next rule; a rollout without a unit takes nobody.
        XCTAssertEqual(try value("rollout_then_value", FlagContext(unit: "u", attributes: ["plan": "pro"])), "2")
        XCTAssertEqual(try value("rollout_then_value", FlagContext(unit: "u")), "0")
        XCTAssertEqual(try value("new_checkout", FlagContext(unit: nil, platform: "ios", appVersion: "3.3")), "false")
        XCTAssertNil(try flags().value("no_such_flag", for: FlagContext(unit: "u")))
        XCTAssertEqual(try flags().values(for: FlagContext(unit: "u")).map(\.key),
                       ["new_checkout", "first_wins", "rollout_then_value", "testers", "exact", "open_range", "object_value"])
    }

    func testUpdatePolicy() throws {
        let f = try flags()
        let cases: [(String?, String?, FeatureFlags.UpdateStatus)] = [
            ("ios", "3.1.2", .blocked), ("ios", "3.1.2.0", .blocked), ("ios", "2.9.9", .required), ("ios", "3.0", .recommended),
            ("ios", "3.3.9", .recommended), ("ios", "3.4.0", .none), ("ios", "10.0", .none),
            ("android", "2.8.99", .required), ("android", "2.9.0", .none), ("web", "1.0", .none), (nil, "1.0", .none), ("ios", nil, .none),
            ("ios", "v3", .none),
        ]
        for (platform, version, want) in cases {
            XCTAssertEqual(f.update(for: FlagContext(unit: "u", platform: platform, appVersion: version)), want, "\(platform ?? "-") \(version ?? "-")")
        }
    }

    func testVersionsAndRangesParseStrictly() {
        for bad in ["", "3.", ".3", "3..1", "-1", "3.2.0-beta", "v3", "1234567890", "1.2.3.4.5.6.7.8.9", " 3", "3 "] {
            XCTAssertNil(AppVersion(bad), bad)
        }
        XCTAssertEqual(AppVersion("3.2"), AppVersion("3.2.0.0"))
        XCTAssert(AppVersion("3.10")! > AppVersion("3.9")!)
        for bad in ["", ">= 3.2", ">=3.2  <4", "~3.2", "3.2", ">=3.2,<4", "=>3", ">=3.x"] {
            XCTAssertThrowsError(try VersionRange(parsing: bad), bad)
        }
        XCTAssertEqual((try? VersionRange(parsing: ">=1 <2 =1.5"))?.comparators.count, 3)
    }

    func testDocumentOfAnotherFormatIsRefused() {
        XCTAssertThrowsError(try FeatureFlags(json: Array(#"{"format": 2, "flags": {}, "updates": {}}"#.utf8))) { e in
            XCTAssert("\(e)".contains("format 2"), "\(e)")
        }
        XCTAssertThrowsError(try FeatureFlags(json: Array(#"{"format": 1, "flags": {"a": {"default": true, "rules": [{"when": {}}]}}, "updates": {}}"#.utf8)))
    }
}
