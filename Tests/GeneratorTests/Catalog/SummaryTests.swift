import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

/// SUMMARY.json's average price comes from an exact sum of the prices.
final class SummaryTests: XCTestCase {
    func decimalSum(_ prices: [JSONNumber]) -> Decimal { prices.reduce(Decimal(0)) { $0 + $1.decimal } }

    /// The scaled-integer sum equals Foundation's Decimal sum on the real corpus and on literals it must hand over.
    func testExactSumMatchesDecimalSum() throws {
        let url = TestSupport.testData.appendingPathComponent("catalog/products.jsonl")
        var prices: [JSONNumber] = []
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            if let n = try JSONReader.parse(String(line))["price"]?.numberValue { prices.append(n) }
        }
        XCTAssertGreaterThan(prices.count, 4000)
        XCTAssertEqual(SummaryOutput.exactSum(prices), ExactDecimal(exactly: decimalSum(prices)))
        for extra in [["0.1", "0.2"], ["-2.50", "1"], ["1e3", "2"], ["12345678901234567890", "1"], ["0.0000001", "3"],
                      ["9223372036854775807", "1"], ["99999999999999999", "99999999999999999"], ["1.5", "2.25", "-0.75"]] {
            let list = extra.map { JSONNumber(literal: $0) }
            XCTAssertEqual(SummaryOutput.exactSum(list), ExactDecimal(exactly: decimalSum(list)), "\(extra)")
        }
        XCTAssertEqual(SummaryOutput.exactSum([]), .zero)
        // Past Decimal's 38 digits the sum stays exact (Decimal rounds 1e40 + 0.01, and has no 1e160 at all).
        XCTAssertEqual(SummaryOutput.exactSum(["1e40", "0.01"].map { JSONNumber(literal: $0) }).description, "1" + String(repeating: "0", count: 40) + ".01")
        XCTAssertEqual(SummaryOutput.exactSum(["1e160", "7.97", "0.01"].map { JSONNumber(literal: $0) }).description, "1" + String(repeating: "0", count: 159) + "7.98")
    }

    /// The price range's ends are what `min()` and `max()` give over the numbers' own order, on the real corpus and on
    /// lists with ties spelled differently (the first of equal values is kept), values that one double cannot tell
    /// apart, and values past Double's range.
    func testPriceRangeEndsAreMinAndMax() throws {
        let url = TestSupport.testData.appendingPathComponent("catalog/products.jsonl")
        var corpus: [JSONNumber] = []
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            if let n = try JSONReader.parse(String(line))["price"]?.numberValue { corpus.append(n) }
        }
        let lists: [[String]] = [["10", "10.0", "1e1", "9.99", "10.00"], ["1e1", "10", "10.000"], ["5"], ["3", "1e400", "2e400", "0.5"],
                                 ["9007199254740993", "9007199254740992", "9007199254740993.0"], ["0.30000000000000001", "0.3", "0.2999999999999999999"],
                                 ["-0", "0", "0.0"], ["2", "1", "1e-400", "0"]]
        for list in [corpus] + lists.map({ $0.map { JSONNumber(literal: $0) } }) {
            XCTAssertEqual(SummaryOutput.extreme(list, largest: false)?.description, list.min()?.description, "\(list.prefix(6))")
            XCTAssertEqual(SummaryOutput.extreme(list, largest: true)?.description, list.max()?.description, "\(list.prefix(6))")
        }
        XCTAssertEqual(SummaryOutput.extreme(lists[0].map { JSONNumber(literal: $0) }, largest: true)?.description, "10")
        XCTAssertNil(SummaryOutput.extreme([], largest: true))
    }

    func build(_ prices: [String]) throws -> (out: URL, summary: JSON) {
        let lines = prices.enumerated().map { TestSupport.productLine("p\($0.offset)", price: $0.element) }
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": lines.joined(separator: "\n") + "\n",
                                                  "catalog/categories.json": TestSupport.categoriesJSON])
        let out = TestSupport.tempDir("sum").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        return (out, try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("SUMMARY.json"))))
    }

    /// A price of 1e160 once made the average NaN (written as such, exit 0). Now the average is the exact mean rounded
    /// half to even to cents: (10^160 + 7.97 + 0.01) / 3 = 333…3335.99333…, by hand: 158 threes, then 35.99.
    func testHugePriceGivesAnExactAverageAndAValidTree() throws {
        try Tool.require(.python3, .jsonschema)
        let (out, summary) = try build(["1e160", "7.97", "0.01"])
        XCTAssertEqual(summary["priceRange"]?["average"]?.numberValue?.description, String(repeating: "3", count: 158) + "35.99")
        XCTAssertEqual(summary["priceRange"]?["max"]?.numberValue?.description, "1e160")
        XCTAssertEqual(summary["priceRange"]?["min"]?.numberValue?.description, "0.01")
        let judged = try TestSupport.checkTree(out)
        XCTAssertEqual(judged.status, 0, String(judged.output.suffix(1500)))
        let validated = try TestSupport.runCLI(["validate", out.path])
        XCTAssertEqual(validated.status, 0, validated.output)
    }

    /// Cents, half to even, from the exact mean: 0.125 → 0.12, 0.135 → 0.14, 0.145 → 0.14 (and 2/3 → 0.67).
    func testAverageRoundsHalfToEvenAtCents() throws {
        for (prices, expected) in [(["0.12", "0.13"], "0.12"), (["0.13", "0.14"], "0.14"), (["0.14", "0.15"], "0.14"),
                                   (["1", "1", "0"], "0.67"), (["19.99"], "19.99")] {
            XCTAssertEqual(try build(prices).summary["priceRange"]?["average"]?.numberValue?.description, expected, "\(prices)")
        }
    }

    /// 1e308 (and anything an exact decimal cannot carry) is an input error naming file, line and field; the previous
    /// tree is left as it was.
    func testPriceBeyondExactDecimalIsAnInputError() throws {
        let (out, _) = try build(["19.99"])
        let before = TestSupport.snapshot(out)
        for (price, says) in [("1e308", "too large"), ("123456789012345678901234567890123456789.5", "40 significant digits"),
                              ("1e-200", "decimal place"), ("1e400", "too large")] {
            let lines = [TestSupport.productLine("a"), TestSupport.productLine("b", price: price)].joined(separator: "\n") + "\n"
            let input = TestSupport.makeInput(files: ["catalog/products.jsonl": lines, "catalog/categories.json": TestSupport.categoriesJSON])
            XCTAssertThrowsError(try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000)), price) { e in
                let text = "\(e)"
                for m in ["products.jsonl:2", "field 'price'", says] { XCTAssertTrue(text.contains(m), "\(price): expected '\(m)' in \(text)") }
            }
            XCTAssertEqual(TestSupport.snapshot(out), before, price)
        }
    }
}
