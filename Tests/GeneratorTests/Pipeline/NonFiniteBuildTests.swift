import XCTest
import Foundation
@testable import Generator
import Schemas

/// A computed value that is not a finite number fails the build: the error names the output file and the field, and
/// the previous tree is left byte for byte as it was. NaN passes every schema bound (it is neither above a maximum
/// nor below a minimum), so the writer is the check that catches it.
final class NonFiniteBuildTests: XCTestCase {
    func input(weights: [String: Any]?) -> URL {
        TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            var a: [String: Any] = ["files": [["path": "auctions/x.csv", "county": "Baldwin"]], "recordedAt": "2025-12-15T00:00:00Z"]
            if let weights { a["weights"] = weights }
            s["auctions"] = a
        }, files: ["auctions/x.csv": "parcel id,amount,acreage,description\nA1,300,3,LOT ON CREEK\n"])
    }

    func testNaNScoreFailsTheBuildNamingFileAndField() throws {
        let out = TestSupport.tempDir("nonfinite").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input(weights: nil), output: out, threads: 2, epochSeconds: 1_700_000_000))
        let before = TestSupport.snapshot(out)
        // Absurd but accepted weights: the acreage term is 100 × 1e308 = +∞ and the water term 30 × −1e308 = −∞, so
        // the score is ∞ − ∞ = NaN. (Were weights ever bounded on input, another route to a NaN would be needed.)
        let weights: [String: Any] = ["pricePerAcre": 0, "acreage": 1e308, "water": -1e308, "assessedRatio": 0]
        let r = try TestSupport.runCLI(["build", "--input", input(weights: weights).path, "--out", out.path])
        XCTAssertEqual(r.status, 1, r.output)
        for m in ["auctions/properties.json: field /0/investmentScore", "not a finite number", "left unchanged"] {
            XCTAssertTrue(r.output.contains(m), "expected '\(m)' in \(r.output)")
        }
        XCTAssertFalse(r.output.contains("NaN\""), r.output)
        XCTAssertEqual(TestSupport.snapshot(out), before)
    }

    /// Where input text or configuration would give a non-finite number, it is an input error instead.
    func testNonFiniteInputNumbersAreInputErrors() throws {
        // "nan" and "inf" parse as doubles in Swift; an NBA line's total may not be one.
        for bad in ["nan", "inf", "-infinity"] {
            let dir = TestSupport.tempDir("nba")
            for f in ["games.csv", "lines.csv", "player_game_stats.csv", "teams.csv"] {
                var text = try String(contentsOf: TestSupport.defaultInput.appendingPathComponent("nba/\(f)"), encoding: .utf8)
                // The game's closing line (line 3): only closing lines are read.
                if f == "lines.csv" { text = text.replacingOccurrences(of: "2022-10-18T00:00:00Z,216,", with: "2022-10-18T00:00:00Z,\(bad),") }
                try text.write(to: dir.appendingPathComponent(f), atomically: true, encoding: .utf8)
            }
            XCTAssertThrowsError(try NBAData.load(dir) { $0.lastPathComponent }, bad) { e in
                XCTAssertTrue("\(e)".contains("lines.csv:3: field 'total'"), "\(e)")
            }
        }
        // 1e400 in site.json is valid JSON but no double.
        let out = TestSupport.tempDir("nonfinite").appendingPathComponent("dist")
        let auctions = input(weights: ["acreage": 987654321])
        let site = auctions.appendingPathComponent("site.json")
        try String(contentsOf: site, encoding: .utf8).replacingOccurrences(of: "987654321", with: "1e400").write(to: site, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Build.run(BuildOptions(input: auctions, output: out, threads: 2))) { e in
            XCTAssertTrue("\(e)".contains("field 'auctions.weights.acreage'"), "\(e)")
        }
    }
}
