import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

final class AuctionScoringTests: XCTestCase {
    /// The integration guide's reference cases (arguments: price per acre, acreage, water score, assessed ratio).
    func testReferenceCases() {
        XCTAssertEqual(AuctionScoring.investmentScore(pricePerAcre: 5000, acreage: 3, water: 6, assessedRatio: 0.8), 52.8)
        // The guide prints 23.3 "±0.5"; the original Python code and its Swift port both give 23.7.
        XCTAssertEqual(AuctionScoring.investmentScore(pricePerAcre: 10000, acreage: 1, water: 0, assessedRatio: 1.2), 23.7)
        XCTAssertEqual(AuctionScoring.water("creek frontage"), 3.0)
        XCTAssertEqual(AuctionScoring.water("pond and stream"), 6.0)
        XCTAssertEqual(AuctionScoring.allInCost(10_000).description, "10635")
        XCTAssertEqual(AuctionScoring.investmentScore(pricePerAcre: 100, acreage: 0, water: 9, assessedRatio: 1), 0)   // no acreage, no score
    }

    func testDocumentedQuirksOfTheReferenceWaterScore() {
        XCTAssertEqual(AuctionScoring.water("WATERFRONT LOT"), 2)   // "water" and "waterfront"
        XCTAssertEqual(AuctionScoring.water("running deer"), 2)     // "run" inside "running"
    }

    /// Python's round(x, 1), checked against python3 itself on values where a naive rounding differs.
    func testPythonRound() throws {
        let values: [Double] = [0.05, 0.15, 0.25, 0.35, 2.675, 52.75, 23.733333333333334, 1.45, 99.95, 0.0499999, 1e-9, 47.85, 12.25]
        let script = "import sys\nfor v in sys.argv[1:]: print(repr(round(float(v), 1)))"
        let r = try TestSupport.run(["python3", "-c", script] + values.map { "\($0)" })
        XCTAssertEqual(r.status, 0, r.output)
        let expected = r.output.split(separator: "\n").map { Double($0)! }
        XCTAssertEqual(values.map(AuctionScoring.pythonRound1), expected)
    }

    func testAcreageInference() {
        func acres(_ d: String) -> Double? { AuctionInput.inferAcreage(d)?.acres }
        XCTAssertEqual(acres("LOT 4 2.5 AC MORE OR LESS"), 2.5)
        XCTAssertEqual(acres("LOT 9 SPRING HILL 1/2 ACRE"), 0.5)          // the original reads 2.0
        XCTAssertEqual(acres("21,780 SQ FT ON DOG RIVER"), 0.5)
        XCTAssertEqual(acres("LOT 12 75' X 150'")!, 75 * 150 / 43_560, accuracy: 1e-12)
        XCTAssertEqual(acres("WOODED LOT 100 X 200")!, 20_000 / 43_560, accuracy: 1e-12)
        XCTAssertNil(acres("HOMESITE ON COUNTY RD 22"))
        XCTAssertEqual(AuctionInput.inferAcreage("TRACT 3 ACRES")?.source, "description: 3 ACRES")
    }

    func testCountyNames() {
        for s in ["St. Clair", "Saint Clair", "ST_CLAIR", "st clair county"] { XCTAssertEqual(AlabamaCounties.canonical(s), "Saint Clair", s) }
        for s in ["DeKalb", "De Kalb", "DEKALB"] { XCTAssertEqual(AlabamaCounties.canonical(s), "DeKalb", s) }
        XCTAssertNil(AlabamaCounties.canonical("Orange"))
        XCTAssertEqual(AlabamaCounties.names.count, 67)
    }
}

/// The real data in Tests/Data/auctions.
final class AuctionRealDataTests: XCTestCase {
    let data = TestSupport.testData.appendingPathComponent("auctions")

    func input(_ files: [String], site: [String: Any] = [:]) throws -> URL {
        let dir = TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            var a: [String: Any] = ["files": files.map { "auctions/\(($0 as NSString).lastPathComponent)" }, "recordedAt": "2025-12-15T00:00:00Z"]
            for (k, v) in site { a[k] = v }
            s["auctions"] = a
        }, files: [:])
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("auctions"), withIntermediateDirectories: true)
        for f in files {
            try FileManager.default.copyItem(at: data.appendingPathComponent(f), to: dir.appendingPathComponent("auctions/\((f as NSString).lastPathComponent)"))
        }
        return dir
    }

    /// Every one of the 2,053 rows (before de-duplication) scores exactly its `investment_score` column.
    func testRecalcScoresMatchEveryRow() throws {
        let url = data.appendingPathComponent("recalc_2053.csv")
        let table = try CSVReader.read(url, displayName: "recalc_2053.csv")
        let rows = AuctionInput.rows(table, display: "recalc_2053.csv")
        XCTAssertEqual(rows.count, 2053)
        let (scored, errors) = AuctionsDomain().score(rows, fileCounty: [:], settings: AuctionSettings())
        XCTAssertEqual(errors.count, 0, "\(errors.prefix(3))")
        let column = table.column(["investment_score"])!
        var matches = 0, mismatches: [String] = []
        for (row, parcel) in scored {
            let expected = Double(table.records[row.line - 2].fields[column])!
            if parcel.investmentScore == expected { matches += 1 } else { mismatches.append("\(parcel.parcelId): \(parcel.investmentScore) ≠ \(expected)") }
        }
        print("recalc_2053.csv: \(matches) of \(rows.count) investment scores equal")
        XCTAssertEqual(matches, 2053, "\(mismatches.prefix(5))")
    }

    func testRecalcCompilesAndReportsDuplicates() throws {

        try Tool.require(.python3, .jsonschema)
        let out = TestSupport.tempDir("auct").appendingPathComponent("dist")
        let s = try Build.run(BuildOptions(input: try input(["recalc_2053.csv"]), output: out, threads: 2, epochSeconds: 1_700_000_000))
        func count(_ k: String) -> Int? { s.report.first { $0.key == k }?.count }
        XCTAssertEqual(count("parcel ids that occur more than once"), 53)
        XCTAssertEqual(count("exact duplicate rows"), 39)
        XCTAssertEqual(count("rows repeating a (county, parcel id)"), 2053 - 1985)
        XCTAssertEqual(count("parcels published"), 1985)
        let tree = TestSupport.snapshot(out)
        let list = try JSONReader.parse(tree["auctions/properties.json"]!).arrayValue!
        XCTAssertEqual(list.count, 1985)
        XCTAssertEqual(list.map { $0["rank"]?.intValue }, (1...1985).map { $0 })
        // Rank order: score high first, then price per acre low first.
        for (a, b) in zip(list, list.dropFirst()) {
            let sa = a["investmentScore"]!.doubleValue!, sb = b["investmentScore"]!.doubleValue!
            XCTAssertGreaterThanOrEqual(sa, sb)
        }
        XCTAssertEqual(tree.keys.filter { $0.hasPrefix("auctions/properties/") }.count, 1985)
        XCTAssertEqual(tree.keys.filter { $0.hasPrefix("auctions/counties/") }.count, 18)
        // Both judges accept the tree.
        let judged = try TestSupport.checkTree(out)
        XCTAssertEqual(judged.status, 0, String(judged.output.suffix(1500)))
    }

    func testReportsParse() throws {
        let expected = ["top_100_water_properties.csv": 100, "best_deals_under_500_per_acre.csv": 50, "top_50_best_investments.csv": 50,
                        "best_deals_under_500_water.csv": 34, "premium_water_properties.csv": 7]
        for (file, rows) in expected {
            let table = try CSVReader.read(data.appendingPathComponent("reports/\(file)"), displayName: file)
            let parsed = AuctionInput.rows(table, display: file)
            XCTAssertEqual(parsed.count, rows, file)
            let (scored, errors) = AuctionsDomain().score(parsed, fileCounty: [:], settings: AuctionSettings())
            XCTAssertEqual(errors.count, 0, "\(file): \(errors.prefix(2))")
            XCTAssertEqual(scored.count, rows, file)
            if file == "best_deals_under_500_water.csv" { XCTAssertTrue(scored.allSatisfy { $0.1.owner != nil }, file) }
        }
        let out = TestSupport.tempDir("auct-rep").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: try input(expected.keys.sorted().map { "reports/\($0)" }), output: out, threads: 2, epochSeconds: 1_700_000_000))
        XCTAssertNotNil(TestSupport.snapshot(out)["auctions/county-index.json"])
    }
}

/// Bad rows fail the build with file and line (nothing written), or become counted warnings with --skip-bad-rows.
final class AuctionBadRowTests: XCTestCase {
    func input(_ csv: String) -> URL {
        TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["auctions"] = ["files": [["path": "auctions/x.csv", "county": "Baldwin"]], "recordedAt": "2025-12-15T00:00:00Z"]
        }, files: ["auctions/x.csv": csv])
    }

    func assertFails(_ csv: String, mentions: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let out = TestSupport.tempDir("auct-bad").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input("parcel id,amount,acreage\nA1,100,1\n"), output: out, threads: 2, epochSeconds: 1_700_000_000))
        let before = TestSupport.snapshot(out)
        let r = try TestSupport.runCLI(["build", "--input", input(csv).path, "--out", out.path])
        XCTAssertEqual(r.status, 1, r.output, file: file, line: line)
        for m in mentions { XCTAssertTrue(r.output.contains(m), "expected '\(m)' in \(r.output)", file: file, line: line) }
        XCTAssertEqual(TestSupport.snapshot(out), before, file: file, line: line)
        // With --skip-bad-rows the row is left out and counted.
        let skipOut = TestSupport.tempDir("auct-skip").appendingPathComponent("dist")
        let s = try TestSupport.runCLI(["build", "--input", input(csv).path, "--out", skipOut.path, "--skip-bad-rows"])
        XCTAssertEqual(s.status, 0, s.output, file: file, line: line)
        XCTAssertTrue(s.output.contains("bad rows skipped: 1"), s.output, file: file, line: line)
    }

    func testUnparseableAmount() throws {
        try assertFails("parcel id,amount,acreage\nA1,100,1\nA2,12 dollars,2\n", mentions: ["auctions/x.csv:3", "field 'amount'", "12 dollars"])
    }

    func testUnknownCounty() throws {
        try assertFails("parcel id,amount,acreage,county\nA1,100,1,Baldwin\nA2,100,2,Orange\n", mentions: ["x.csv:3", "field 'county'", "\"Orange\" is not one of Alabama's 67 counties"])
    }

    func testNegativeAcreage() throws {
        try assertFails("parcel id,amount,acreage\nA1,100,1\nA2,100,-2\n", mentions: ["x.csv:3", "field 'acreage'", "negative"])
    }
}
