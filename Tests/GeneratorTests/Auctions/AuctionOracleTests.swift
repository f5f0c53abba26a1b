import XCTest
import Foundation
@testable import Generator
import Schemas

/// Auction scores, grades and ranks checked against values computed outside the code: by hand (boundary parcels),
/// and by a short Python implementation of the Auctions article (below) over the real files — its own CSV reader,
/// keyword list, Python's round(x, 1), decimal fees and sort. Only the published files are read from our side.
final class AuctionOracleTests: XCTestCase {
    /// The oracle. argv[1]: JSON list of [path, county or null], in `auctions.files` order. Prints the parcels in rank
    /// order as JSON. Rows repeating a (county, parcel id) replace the earlier row (newest wins). Acreage is the
    /// column; a row without one must have no acreage in its description (the oracle does not infer acreage) and
    /// scores 0.
    static let oracle = #"""
    import csv, json, math, re, sys
    from decimal import Decimal, ROUND_HALF_UP
    PRIMARY = ["creek", "stream", "river", "lake", "pond", "spring"]
    SECONDARY = ["branch", "run", "brook", "tributary", "wetland", "marsh"]
    TERTIARY = ["water", "aquatic", "riparian", "shore", "bank", "waterfront"]
    def water(d):
        d = d.lower()
        return 3.0 * sum(k in d for k in PRIMARY) + 2.0 * sum(k in d for k in SECONDARY) + 1.0 * sum(k in d for k in TERTIARY)
    def acreage_part(a):
        if 2 <= a <= 4: return 100.0
        if a < 2: return 100 * a / 2
        return max(0.0, 100 - 10 * (a - 4))
    def score(ppa, acres, w, ratio):
        if not acres > 0: return 0.0
        s = 0.0
        if ppa > 0: s += min(100, 10000 / ppa) * 0.4
        s += acreage_part(acres) * 0.3
        s += min(100, w * 10) * 0.2
        if ratio > 0: s += min(100, 100 / ratio) * 0.1
        return round(s, 1)
    def grade(s):
        for g, t in (("A", 80), ("B", 60), ("C", 40), ("D", 20)):
            if s >= t: return g
        return "F"
    parcels = {}
    for path, county in json.loads(sys.argv[1]):
        with open(path, newline="", encoding="utf-8-sig") as f:
            for row in csv.DictReader(f):
                r = {k.strip().lower().replace("_", " "): (v or "").strip() for k, v in row.items()}
                pid, c = r["parcel id"], r.get("county") or county
                amount_text = r["amount"].replace("$", "").replace(",", "")
                amount, desc = float(amount_text), r.get("description", "")
                if r["acreage"]:
                    acres = float(r["acreage"])
                else:
                    assert not re.search(r"\d\s*(AC|ACRE|SQ)|\d'?\s*X\s*\d", desc.upper()), "oracle cannot infer acreage: " + desc
                    acres = None
                ppa = amount / acres if acres and acres > 0 else None
                w = water(desc)
                assessed_text = r.get("assessed value", "").replace("$", "").replace(",", "")
                assessed = float(assessed_text) if assessed_text else None
                ratio = amount / assessed if assessed else 1.0      # unknown or 0: 1.0
                s = score(ppa or 0, acres or 0, w, ratio)
                bid = Decimal(amount_text)
                cost = bid + Decimal("35") + (bid / 20).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) + Decimal("100")
                parcels[(c, pid)] = {"parcelId": pid, "county": c, "score": s, "grade": grade(s), "water": w,
                                     "ppa": ppa, "cost": float(cost), "ratio": ratio, "assessed": assessed or 0.0, "column": float(r["investment score"]) if r.get("investment score") else None}
    ranked = sorted(parcels.values(), key=lambda p: (-p["score"], p["ppa"] if p["ppa"] is not None else math.inf, -p["water"], p["parcelId"], p["county"]))
    for i, p in enumerate(ranked): p["rank"] = i + 1
    print(json.dumps(ranked))
    """#

    struct Expected {
        let parcelId, county, grade: String; let score, water: Double; let ppa: Double?; let cost: Double; let rank: Int; let column: Double?
        var ratio = 1.0, assessed = 0.0
    }

    func runOracle(_ files: [(URL, String?)]) throws -> [Expected] {
        let arg = try JSONWriter().string(.array(files.map { .array([.string($0.0.path), $0.1.map { .string($0) } ?? .null]) }))
        let r = try TestSupport.run(["python3", "-c", Self.oracle, arg])
        XCTAssertEqual(r.status, 0, r.output)
        return try XCTUnwrap(JSONReader.parse(r.output).arrayValue).map { p in
            Expected(parcelId: p["parcelId"]!.stringValue!, county: p["county"]!.stringValue!, grade: p["grade"]!.stringValue!,
                     score: p["score"]!.doubleValue!, water: p["water"]!.doubleValue!, ppa: p["ppa"]?.doubleValue,
                     cost: p["cost"]!.doubleValue!, rank: p["rank"]!.intValue!, column: p["column"]?.doubleValue,
                     ratio: p["ratio"]!.doubleValue!, assessed: p["assessed"]!.doubleValue!)
        }
    }

    /// Builds the given files (copied into a fresh input, listed in this order) and returns properties.json.
    func build(_ files: [(URL, String?)], name: String) throws -> [JSON] {
        let input = TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["auctions"] = ["files": files.map { f -> Any in
                let path = "auctions/\(f.0.lastPathComponent)"
                return f.1.map { ["path": path, "county": $0] as [String: Any] } ?? path
            }, "recordedAt": "2025-12-15T00:00:00Z"]
        }, files: [:])
        try FileManager.default.createDirectory(at: input.appendingPathComponent("auctions"), withIntermediateDirectories: true)
        for f in files { try FileManager.default.copyItem(at: f.0, to: input.appendingPathComponent("auctions/\(f.0.lastPathComponent)")) }
        let out = TestSupport.tempDir(name).appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return try XCTUnwrap(JSONReader.parse(Data(contentsOf: out.appendingPathComponent("auctions/properties.json"))).arrayValue)
    }

    /// Every published parcel equals the oracle's, in the oracle's order.
    func assertMatches(_ published: [JSON], _ expected: [Expected], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(published.count, expected.count, file: file, line: line)
        var mismatches: [String] = []
        for (p, e) in zip(published, expected) {
            let id = "\(e.rank) \(e.county)/\(e.parcelId)"
            if p["parcelId"]?.stringValue != e.parcelId || p["county"]?.stringValue != e.county {
                mismatches.append("\(id): rank \(e.rank) is \(p["county"]?.stringValue ?? "?")/\(p["parcelId"]?.stringValue ?? "?")"); continue
            }
            if p["investmentScore"]?.doubleValue != e.score { mismatches.append("\(id): score \(p["investmentScore"]!) ≠ \(e.score)") }
            if p["grade"]?.stringValue != e.grade { mismatches.append("\(id): grade \(p["grade"]!) ≠ \(e.grade)") }
            if p["rank"]?.intValue != e.rank { mismatches.append("\(id): rank field \(p["rank"]!)") }
            if p["waterScore"]?.doubleValue != e.water { mismatches.append("\(id): water \(p["waterScore"]!) ≠ \(e.water)") }
            if p["estimatedAllInCost"]?.doubleValue != e.cost { mismatches.append("\(id): cost \(p["estimatedAllInCost"]!) ≠ \(e.cost)") }
            if p["assessedValueRatio"]?.doubleValue != e.ratio { mismatches.append("\(id): ratio \(p["assessedValueRatio"]!) ≠ \(e.ratio)") }
            if p["assessedValue"]?.doubleValue != e.assessed { mismatches.append("\(id): assessed value \(p["assessedValue"]!) ≠ \(e.assessed)") }
            let ppa = p["pricePerAcre"]?.doubleValue ?? -1, eppa = e.ppa ?? 0
            if abs(ppa - eppa) > 1e-12 * max(1, eppa) { mismatches.append("\(id): price per acre \(ppa) ≠ \(eppa)") }
        }
        XCTAssertEqual(mismatches.count, 0, "\(mismatches.prefix(8))", file: file, line: line)
    }

    // MARK: by hand

    /// The documented thresholds (A ≥ 80, B ≥ 60, C ≥ 40, D ≥ 20), at and just below each.
    func testGradeAtEveryBoundary() throws {
        let defaults = AuctionSettings().grades
        XCTAssertEqual(defaults.map(\.0), ["A", "B", "C", "D"])
        XCTAssertEqual(defaults.map(\.1), [80, 60, 40, 20])
        let site = try SiteConfig.load(TestSupport.defaultInput.appendingPathComponent("site.json"), displayName: "site.json")
        let read = try AuctionSettings.read(site, file: "site.json")
        XCTAssertEqual(read.grades.map(\.1), [80, 60, 40, 20])
        let cases: [(Double, String)] = [(100, "A"), (80, "A"), (79.9, "B"), (60, "B"), (59.9, "C"), (40, "C"), (39.9, "D"),
                                         (20, "D"), (19.9, "F"), (0, "F")]
        for (score, grade) in cases { XCTAssertEqual(AuctionScoring.grade(score, thresholds: defaults), grade, "\(score)") }
    }

    /// Parcels that score exactly 80, 60, 40, 20 and 0.1 below, and rank ties broken by each documented key.
    /// Acres 3 (acreage part 100 × 0.3 = 30), no water, no assessed value (10): score = 40 + 0.4 × min(100, 10000 / ppa).
    /// Acres 0.2 (acreage part 10 × 0.3 = 3): score = 13 + 0.4 × min(100, 10000 / ppa).
    static let boundaryCSV = """
    parcel id,amount,acreage,description
    G-80-0,300,3,
    G-79-9,300.75,3,
    G-60-0,600,3,
    G-59-9,603.02,3,
    G-40-0,29.63,0.2,
    G-39-9,29.74,0.2,
    G-20-0,114.29,0.2,
    G-19-9,115.94,0.2,
    T-B-02,150,3,
    T-B-01,150,3,
    T-WATER,300,6,creek

    """

    func testBoundaryParcelsAndTieBreaks() throws {
        let dir = TestSupport.tempDir("auct-boundary")
        let csv = dir.appendingPathComponent("boundary.csv")
        try Self.boundaryCSV.write(to: csv, atomically: true, encoding: .utf8)
        let published = try build([(csv, "Baldwin")], name: "auct-boundary")
        func parcel(_ id: String) throws -> JSON { try XCTUnwrap(published.first { $0["parcelId"]?.stringValue == id }, id) }
        // By hand: ppa 100.25 → 10000/100.25 = 99.7506 → 39.9002 + 40 = 79.9002 → 79.9; 603.02/3 = 201.0067 → 49.7496 →
        // 59.8998 → 59.9; 29.63/0.2 = 148.15 → 67.4992 → 39.9997 → 40.0; 29.74/0.2 = 148.7 → 39.8998 → 39.9;
        // 114.29/0.2 = 571.45 → 19.9997 → 20.0; 115.94/0.2 = 579.7 → 19.9001 → 19.9.
        let expected: [(String, Double, String)] = [
            ("G-80-0", 80, "A"), ("G-79-9", 79.9, "B"), ("G-60-0", 60, "B"), ("G-59-9", 59.9, "C"),
            ("G-40-0", 40, "C"), ("G-39-9", 39.9, "D"), ("G-20-0", 20, "D"), ("G-19-9", 19.9, "F"),
        ]
        for (id, score, grade) in expected {
            XCTAssertEqual(try parcel(id)["investmentScore"]?.doubleValue, score, id)
            XCTAssertEqual(try parcel(id)["grade"]?.stringValue, grade, id)
        }
        // Rank ties at 80: T-WATER (ppa 50, water 3: creek, acres 6 → acreage part 80 → 24, + 6 for water), then T-B-01 and
        // T-B-02 (ppa 50, no water: parcel id order), then G-80-0 (ppa 100).
        XCTAssertEqual(published.prefix(4).map { $0["parcelId"]?.stringValue }, ["T-WATER", "T-B-01", "T-B-02", "G-80-0"])
        XCTAssertTrue(published.prefix(4).allSatisfy { $0["investmentScore"]?.doubleValue == 80 })
        XCTAssertEqual(published.map { $0["rank"]?.intValue }, Array(1...11))
        // The same from the Python oracle.
        assertMatches(published, try runOracle([(csv, "Baldwin")]))
    }

    /// Amounts become the doubles Python's float() gives (the original's arithmetic): NSDecimalNumber's doubleValue
    /// gave 146.45999999999998 for 146.46, so 146.46 / 0.003 ranked apart from 195.28 / 0.004 (both 48820 in Python).
    func testAmountsBecomeCorrectlyRoundedDoubles() {
        for text in ["146.46", "195.28", "0.1", "300.75", "12500.0", "1234567.89", "0.07"] {
            XCTAssertEqual(AuctionsDomain.double(Decimal(string: text)!), Double(text)!, text)
        }
        XCTAssertEqual(AuctionsDomain.double(Decimal(string: "146.46")!) / 0.003, 48820)
    }

    /// The assessed-value term: ratio = amount / assessed value (1.0 when unknown or 0), min(100, 100 / ratio) × 0.1,
    /// left out when the ratio is 0 (a zero bid).
    func testAssessedValueRatio() throws {
        let dir = TestSupport.tempDir("auct-assessed")
        let csv = dir.appendingPathComponent("assessed.csv")
        try """
        parcel id,amount,acreage,assessed value,description
        V-HALF,500,3,1000,
        V-DOUBLE,500,3,250,
        V-1.25,500,3,400,
        V-ZERO-BID,0,3,1000,
        V-UNKNOWN,500,3,,
        V-ZERO-VALUE,500,3,0,
        V-MONEY,"$1,000.00",3,"$4,000.00",

        """.write(to: csv, atomically: true, encoding: .utf8)
        let published = try build([(csv, "Baldwin")], name: "auct-assessed")
        func parcel(_ id: String) throws -> JSON { try XCTUnwrap(published.first { $0["parcelId"]?.stringValue == id }, id) }
        // By hand (ppa 166.67: 10000/ppa = 60 → 24; acreage 30): ratio 0.5 → 10 → 64.0; 2 → 5 → 59.0; 1.25 → 8 → 62.0;
        // zero bid: no price term and no ratio term → 30.0; unknown or 0 value: ratio 1 → 64.0; $1,000 / $4,000 → ppa 333.33
        // (30 → 12), ratio 0.25 → 10 → 52.0.
        let expected: [(String, Double, Double)] = [("V-HALF", 64, 0.5), ("V-DOUBLE", 59, 2), ("V-1.25", 62, 1.25), ("V-ZERO-BID", 30, 0),
                                                    ("V-UNKNOWN", 64, 1), ("V-ZERO-VALUE", 64, 1), ("V-MONEY", 52, 0.25)]
        for (id, score, ratio) in expected {
            XCTAssertEqual(try parcel(id)["investmentScore"]?.doubleValue, score, id)
            XCTAssertEqual(try parcel(id)["assessedValueRatio"]?.doubleValue, ratio, id)
        }
        assertMatches(published, try runOracle([(csv, "Baldwin")]))
    }

    // MARK: real data

    /// recalc_2053.csv: every published parcel's score, grade, water score, price per acre, all-in cost and rank equal
    /// the oracle's, and its score equals the newest row's `investment_score` column (the Auctions article).
    func testRealRecalcAgainstTheOracle() throws {
        let csv = TestSupport.testData.appendingPathComponent("auctions/recalc_2053.csv")
        let expected = try runOracle([(csv, nil)])
        XCTAssertEqual(expected.count, 1985)
        XCTAssertEqual(expected.filter { $0.column != $0.score }.count, 0, "the oracle's score is the file's own column")
        XCTAssertEqual(expected.filter { $0.score == 80 }.count, 7)           // exactly on the A boundary
        let published = try build([(csv, nil)], name: "auct-recalc-oracle")
        assertMatches(published, expected)
        let atEighty = published.filter { $0["investmentScore"]?.doubleValue == 80 }
        XCTAssertEqual(atEighty.count, 7)
        XCTAssertTrue(atEighty.allSatisfy { $0["grade"] == "A" })
        // Ties in score are common, so the rank order depends on the tie-breaks, not only on the score.
        let scores = expected.map(\.score)
        XCTAssertGreaterThan(zip(scores, scores.dropFirst()).filter { $0 == $1 }.count, 1000)
    }

    /// The five reports: published scores follow the Auctions article's formula (the oracle), price per acre equals
    /// each report's own `price_per_acre` column, and the reports' `investment_score` columns are the other scoring
    /// versions the data's README describes (ranges 0.26–4.24 and 26–118.85; 90–100 in two reports), which we do not
    /// publish.
    func testReportsAgainstTheOracleAndTheirColumns() throws {
        let names = ["top_100_water_properties.csv", "best_deals_under_500_per_acre.csv", "top_50_best_investments.csv",
                     "best_deals_under_500_water.csv", "premium_water_properties.csv"]
        let files = names.map { (TestSupport.testData.appendingPathComponent("auctions/reports/\($0)"), String?.none) }
        let expected = try runOracle(files)
        let published = try build(files, name: "auct-reports-oracle")
        assertMatches(published, expected)

        // The reports' columns, read here with Python's csv module (not our reader).
        let read = #"""
        import csv, json, sys
        out = {}
        for path in sys.argv[1:]:
            rows = list(csv.DictReader(open(path, newline="", encoding="utf-8-sig")))
            out[path.rsplit("/", 1)[1]] = [{"id": r["parcel_id"], "county": r["county"], "score": float(r["investment_score"]),
                                           "ppa": float(r["price_per_acre"]) if r["price_per_acre"] else None} for r in rows]
        print(json.dumps(out))
        """#
        let r = try TestSupport.run(["python3", "-c", read] + files.map(\.0.path))
        XCTAssertEqual(r.status, 0, r.output)
        let columns = try JSONReader.parse(r.output)
        var byKey: [String: JSON] = [:]
        for p in published { byKey["\(p["county"]!.stringValue!)/\(p["parcelId"]!.stringValue!)"] = p }
        var ranges: [String: (Double, Double)] = [:], differing = 0, total = 0
        for name in names {
            for row in columns[name]?.arrayValue ?? [] {
                let score = row["score"]!.doubleValue!
                ranges[name] = (min(ranges[name]?.0 ?? score, score), max(ranges[name]?.1 ?? score, score))
                let p = try XCTUnwrap(byKey["\(row["county"]!.stringValue!)/\(row["id"]!.stringValue!)"], "\(name): \(row)")
                total += 1
                if p["investmentScore"]?.doubleValue != score { differing += 1 }
                // Our price per acre is the report's, for every row with an acreage (the newest row of a parcel may come
                // from another report, with the same amount and acreage).
                if let ppa = row["ppa"]?.doubleValue, let ours = p["pricePerAcre"]?.doubleValue, ours > 0 {
                    XCTAssertEqual(ours, ppa, accuracy: 1e-9 * ppa, "\(name): \(row)")
                }
            }
        }
        XCTAssertEqual(total, 241)
        XCTAssertEqual(ranges["premium_water_properties.csv"]?.0, 0.26)
        XCTAssertEqual(ranges["premium_water_properties.csv"]?.1, 4.24)
        XCTAssertEqual(ranges["top_100_water_properties.csv"]?.0 ?? 0, 26, accuracy: 0.5)
        XCTAssertEqual(ranges["top_100_water_properties.csv"]?.1, 118.85)
        XCTAssertEqual(ranges["top_50_best_investments.csv"]?.1, 100)
        // Above 100 is impossible under the published formula; a score read from the column would show up here.
        XCTAssertTrue(published.allSatisfy { ($0["investmentScore"]?.doubleValue ?? 101) <= 100 })
        XCTAssertGreaterThan(differing, total * 9 / 10, "the reports' columns are other scoring versions, not what we publish")
    }
}
