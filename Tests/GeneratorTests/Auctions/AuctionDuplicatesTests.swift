import XCTest
import Foundation
@testable import Generator
import Schemas

/// Rows repeating a (county, parcel id): a later row is a newer record of the parcel. Identical to the current
/// record it collapses; differing, it replaces it, and the summary lists every replaced row by file and line.
final class AuctionDuplicatesTests: XCTestCase {
    let data = TestSupport.testData.appendingPathComponent("auctions")

    /// Builds the files; report examples come back without the input folder's name (messages name files from its parent).
    func build(_ files: [(name: String, text: String?)], county: String? = nil) throws -> (summary: BuildSummary, out: URL) {
        let dir = TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["auctions"] = ["files": files.map { f -> Any in county.map { ["path": "auctions/\(f.name)", "county": $0] } ?? "auctions/\(f.name)" },
                             "recordedAt": "2025-12-15T00:00:00Z"]
        }, files: [:])
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("auctions"), withIntermediateDirectories: true)
        for f in files {
            let target = dir.appendingPathComponent("auctions/\(f.name)")
            if let text = f.text { try text.write(to: target, atomically: true, encoding: .utf8) } else {
                try FileManager.default.copyItem(at: data.appendingPathComponent(f.name), to: target)
            }
        }
        let out = TestSupport.tempDir("dups").appendingPathComponent("dist")
        var summary = try Build.run(BuildOptions(input: dir, output: out, threads: 2, epochSeconds: 1_700_000_000))
        for i in summary.report.indices {
            summary.report[i].examples = summary.report[i].examples.map { $0.replacingOccurrences(of: dir.lastPathComponent + "/auctions/", with: "") }
        }
        return (summary, out)
    }

    func report(_ s: BuildSummary, _ key: String) -> ReportItem? { s.report.first { $0.domain == "auctions" && $0.key == key } }

    /// On the real file, every published score is the `investment_score` of the parcel's newest row, read here with
    /// Python's csv module; the replaced rows are the ones the rule gives, worked out in Python from the same rows.
    func testRealRecalcPublishesEveryParcelsNewestRow() throws {
        let script = """
        import csv, json, sys
        rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
        h = rows[0]; pid, county, score = h.index('parcel_id'), h.index('county'), h.index('investment_score')
        current, first, replaced = {}, {}, []
        for line, r in enumerate(rows[1:], start=2):
            key = r[county] + '|' + r[pid].strip()
            first.setdefault(key, r[score])
            if key in current and current[key][1] != r:
                replaced.append('recalc_2053.csv:%d replaced by :%d' % (current[key][0], line))
            if key not in current or current[key][1] != r:
                current[key] = (line, r)
        newest = {k: float(v[1][score]) for k, v in current.items()}
        changed = sorted(k for k in current if float(first[k]) != newest[k])
        print(json.dumps({'newest': newest, 'replaced': replaced, 'changed': changed}))
        """
        let py = try TestSupport.run(["python3", "-c", script, data.appendingPathComponent("recalc_2053.csv").path])
        XCTAssertEqual(py.status, 0, py.output)
        let expected = try JSONReader.parse(py.output.trimmingCharacters(in: .whitespacesAndNewlines))
        let newest = try XCTUnwrap(expected["newest"]?.objectValue)
        let replaced = try XCTUnwrap(expected["replaced"]?.arrayValue).compactMap(\.stringValue)
        let changed = try XCTUnwrap(expected["changed"]?.arrayValue).compactMap(\.stringValue)
        XCTAssertEqual(newest.count, 1985)
        XCTAssertEqual(changed.count, 9, "the issue's 9 parcels whose first row is a stale 0-acre row: \(changed)")

        let (s, out) = try build([("recalc_2053.csv", nil)])
        let list = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("auctions/properties.json"))).arrayValue!
        XCTAssertEqual(list.count, 1985)
        var seen = Set<String>()
        for p in list {
            let key = "\(p["county"]!.stringValue!)|\(p["parcelId"]!.stringValue!)"
            XCTAssertTrue(seen.insert(key).inserted, key)
            XCTAssertEqual(p["investmentScore"]?.doubleValue, newest[key]?.doubleValue, key)
        }
        for key in changed {
            let p = list.first { "\($0["county"]!.stringValue!)|\($0["parcelId"]!.stringValue!)" == key }
            XCTAssertGreaterThan(p?["investmentScore"]?.doubleValue ?? 0, 0, key)   // no longer the stale row's 0
        }
        // Every replaced row is listed by file and line, and counted.
        let item = try XCTUnwrap(report(s, "rows replaced by a newer row of the same parcel"))
        XCTAssertEqual(item.count, replaced.count)
        XCTAssertEqual(item.examples, replaced)
        XCTAssertTrue(item.examples.contains("recalc_2053.csv:220 replaced by :293"), "\(item.examples)")   // a 0-acre row (by hand)
        XCTAssertTrue(item.policy?.contains("every replaced row is listed by file and line") == true)
        XCTAssertEqual(report(s, "rows repeating a (county, parcel id)")?.count, 2053 - 1985)
        XCTAssertEqual(report(s, "parcels published")?.count, 1985)
    }

    /// The rule across files (in their listed order) and within one: A, A collapses; A, B replaces; A, B, A ends with A.
    func testRuleOnSmallFiles() throws {
        let header = "parcel id,amount,acreage\n"
        let first = header + "P1,100.00,1\nP1,100.00,1\nP2,200.00,2\nP3,300.00,3\nP3,301.00,3\nP3,300.00,3\n"
        let second = header + "P2,250.00,2\nP4,400.00,4\nP1,100.00,1\n"
        let (s, out) = try build([("a.csv", first), ("b.csv", second)], county: "Baldwin")
        func amount(_ id: String) throws -> String? {
            try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("auctions/properties/\(id).json")))["amount"]?.numberValue?.description
        }
        XCTAssertEqual(try amount("P1"), "100")   // identical rows collapse, in one file and across files
        XCTAssertEqual(try amount("P2"), "250")   // the later file's row replaces the earlier file's
        XCTAssertEqual(try amount("P3"), "300")   // 300 → 301 → 300: the newest row
        XCTAssertEqual(try amount("P4"), "400")
        let item = try XCTUnwrap(report(s, "rows replaced by a newer row of the same parcel"))
        XCTAssertEqual(item.examples, ["a.csv:5 replaced by :6", "a.csv:6 replaced by :7", "a.csv:4 replaced by b.csv:2"])
        XCTAssertEqual(item.count, 3)
        XCTAssertEqual(report(s, "rows repeating a (county, parcel id)")?.count, 5)
        XCTAssertEqual(report(s, "parcels published")?.count, 4)
    }

    /// The default input has no repeated parcels: nothing replaced.
    func testDefaultInputReplacesNothing() throws {
        let out = TestSupport.tempDir("dups").appendingPathComponent("dist")
        let s = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        XCTAssertEqual(report(s, "rows replaced by a newer row of the same parcel")?.count, 0)
    }
}
