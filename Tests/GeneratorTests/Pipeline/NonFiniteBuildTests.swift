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
}
