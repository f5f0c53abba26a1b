import XCTest
import Foundation
import Schemas
@testable import Generator

/// The RFC 6902 community test suite (`Tests/Data/json-patch-tests`, json-patch/json-patch-tests at 2a928f9)
/// against our applier: every runnable record passes or fails as it says. Our own diff emits only add, remove and
/// replace, so this is where move, copy and test are exercised, by cases we did not write.
final class JSONPatchSuiteTests: XCTestCase {
    static let folder = TestSupport.testData.appendingPathComponent("json-patch-tests")

    struct Outcome { var run = 0, passed = 0, failures: [String] = [] }

    /// The records of one file. Two disabled records hold an object with two "op" members, which our strict reader
    /// refuses; the file is split into records by Foundation's reader and each record is then read by ours (so
    /// numbers and strings are ours), the disabled ones as null.
    static func records(_ file: String) throws -> [JSON] {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(file))
        let loose = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]], file)
        return try loose.map { r in
            if r["disabled"] as? Bool == true { return .null }
            return try JSONReader.parse(JSONSerialization.data(withJSONObject: r, options: [.fragmentsAllowed]))
        }
    }

    /// Runs every record of one file that has `expected` or `error` and is not `disabled`.
    func runSuite(_ file: String) throws -> Outcome {
        let records = try Self.records(file)
        XCTAssertGreaterThan(records.count, 10)
        var o = Outcome()
        for (i, r) in records.enumerated() {
            if r.isNull { continue }   // disabled
            let expected = r["expected"], error = r["error"]
            guard expected != nil || error != nil, let doc = r["doc"], let patch = r["patch"] else { continue }
            o.run += 1
            let label = "\(file)[\(i)] \(r["comment"]?.stringValue ?? error?.stringValue ?? "")"
            do {
                let result = try JSONPatch.apply(patch, to: doc)
                if let expected {
                    if result == expected { o.passed += 1 }
                    else { o.failures.append("\(label): got \(result.compactText), expected \(expected.compactText)") }
                } else {
                    o.failures.append("\(label): applied (giving \(result.compactText)) but must fail: \(error!.stringValue ?? "")")
                }
            } catch {
                if expected == nil { o.passed += 1 } else { o.failures.append("\(label): failed (\(error)) but must give \(expected!.compactText)") }
            }
        }
        return o
    }

    func testCommunityTests() throws {
        let o = try runSuite("tests.json")
        XCTAssertEqual(o.run, 92)
        XCTAssertEqual(o.failures, [], "\(o.failures.count) of \(o.run) failed")
        XCTAssertEqual(o.passed, o.run)
    }

    func testSpecTests() throws {
        let o = try runSuite("spec_tests.json")
        XCTAssertEqual(o.run, 16)
        XCTAssertEqual(o.failures, [], "\(o.failures.count) of \(o.run) failed")
        XCTAssertEqual(o.passed, o.run)
    }

    /// The suite does exercise every operation (so a dropped `copy`, `move` or `test` cannot pass unnoticed).
    func testTheSuiteCoversEveryOperation() throws {
        var ops: [String: Int] = [:]
        for file in ["tests.json", "spec_tests.json"] {
            for r in try Self.records(file) where r["expected"] != nil || r["error"] != nil {
                for op in r["patch"]?.arrayValue ?? [] { ops[op["op"]?.stringValue ?? "?", default: 0] += 1 }
            }
        }
        for name in ["add", "remove", "replace", "move", "copy", "test"] { XCTAssertGreaterThan(ops[name] ?? 0, 2, name) }
    }
}
