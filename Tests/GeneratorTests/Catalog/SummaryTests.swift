import XCTest
import Foundation
@testable import Generator
import Schemas

/// SUMMARY.json's average price comes from an exact sum of the prices.
final class SummaryTests: XCTestCase {
    func decimalSum(_ prices: [JSONNumber]) -> Decimal { prices.reduce(Decimal(0)) { $0 + $1.decimal } }

    /// The scaled-integer sum equals Foundation's Decimal sum on the real corpus and on literals it must hand over.
    func testExactSumMatchesDecimalSum() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../../shared/data/catalog/products.jsonl")
        var prices: [JSONNumber] = []
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            if let n = try JSONReader.parse(String(line))["price"]?.numberValue { prices.append(n) }
        }
        XCTAssertGreaterThan(prices.count, 4000)
        XCTAssertEqual(SummaryOutput.exactSum(prices), decimalSum(prices))
        for extra in [["0.1", "0.2"], ["-2.50", "1"], ["1e3", "2"], ["12345678901234567890", "1"], ["0.0000001", "3"],
                      ["9223372036854775807", "1"], ["99999999999999999", "99999999999999999"], ["1.5", "2.25", "-0.75"]] {
            let list = extra.map { JSONNumber(literal: $0) }
            XCTAssertEqual(SummaryOutput.exactSum(list), decimalSum(list), "\(extra)")
        }
        XCTAssertEqual(SummaryOutput.exactSum([]), 0)
    }
}
