import XCTest
import Foundation
@testable import Generator
import Schemas

/// Money text is read one way or refused: commas only between groups of three, exact decimals only, and every money
/// parser of the build (auction amounts and assessed values, catalog prices, collection decimals) follows it.
/// Expected values are written out by hand.
final class MoneyTests: XCTestCase {
    func parsed(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do { return "\(try Money.parse(s))" } catch { XCTFail("\(s): \(error)", file: file, line: line); return nil }
    }

    func problem(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do { let d = try Money.parse(s); XCTFail("\(s.debugDescription) read as \(d)", file: file, line: line); return "" } catch { return "\(error)" }
    }

    func testAmountsThatReadOneWay() {
        let cases: [(String, String)] = [
            ("1234.56", "1234.56"), ("$1,234.56", "1234.56"), ("1,299", "1299"), ("1,299.00", "1299"), ("  $ 12.00 ", "12"),
            ("-12.5", "-12.5"), ("-$12.50", "-12.5"), ("$-12.50", "-12.5"), ("0", "0"), ("0.10", "0.1"), ("007", "7"),
            ("1,000,000", "1000000"), ("999", "999"), ("5000.0", "5000"), ("$18,400", "18400"), ("64.76", "64.76"),
            ("\u{00A0}315.00\t", "315"),
            ("1." + String(repeating: "0", count: 60), "1"),   // trailing zeros are not significant
            ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),   // 38 digits
            ("1" + String(repeating: "0", count: 164), "1" + String(repeating: "0", count: 164)),   // 10^164
            ("0." + String(repeating: "0", count: 127) + "1", "0." + String(repeating: "0", count: 127) + "1"),   // 10^-128
        ]
        for (text, expected) in cases { XCTAssertEqual(parsed(text), expected, text) }
    }

    func testAmountsThatCouldBeReadTwoWaysAreErrors() {
        let cases: [(String, String)] = [
            ("12,99", "ambiguous decimal comma; write 12.99"), (",99", "ambiguous decimal comma; write 0.99"),
            ("12,5", "ambiguous decimal comma"), ("1.234,56", "ambiguous decimal comma"), ("1,299.5,0", "ambiguous decimal comma"),
            ("1,2345", "misplaced thousands separator"), ("1,,000", "misplaced thousands separator"),
            ("1234,567", "misplaced thousands separator"), ("12,345,67", "misplaced thousands separator"),
            (",999", "misplaced thousands separator"), ("1,", "misplaced thousands separator"),
            ("1 299", "space inside the number"), ("(12.00)", "parentheses"), ("1.2E+05", "scientific notation"),
            ("1e5", "scientific notation"), ("€12", "not in dollars"), ("12 €", "not in dollars"), ("£5.00", "not in dollars"),
            ("USD 12", "not an amount of money"), ("12 dollars", "not an amount of money"), ("12$", "not an amount of money"),
            ("12.34.56", "more than one decimal point"), ("-", "not an amount of money"), ("$", "not an amount of money"),
            (".", "not an amount of money"), ("12.", "not an amount of money"), (".5", "not an amount of money"),
            ("--12", "not an amount of money"), ("+12", "not an amount of money"), ("0x1F", "not an amount of money"),
            ("", "is empty"), ("   ", "is empty"),
            ("1" + String(repeating: "2", count: 38), "39 significant digits"),
            ("1" + String(repeating: "0", count: 165), "too large"),
            ("0." + String(repeating: "0", count: 128) + "1", "128th decimal place"),
        ]
        for (text, expected) in cases {
            let p = problem(text)
            XCTAssertTrue(p.contains(expected), "\(text.debugDescription): expected '\(expected)' in '\(p)'")
        }
        // Input is quoted short and escaped: a control character never reaches the terminal raw.
        let p = problem("12\u{0}\u{1B}[31m" + String(repeating: "9", count: 100))
        XCTAssertTrue(p.contains("\\u{0}\\u{1b}[31m"), p)
        XCTAssertFalse(p.contains("\u{1B}"), p)
        XCTAssertLessThan(p.count, 200, p)
    }

    func testJSONNumbersAsMoney() throws {
        XCTAssertFalse(try Money.check(JSONNumber(literal: "19.99")))
        XCTAssertTrue(try Money.check(JSONNumber(literal: "-0.5")))
        XCTAssertFalse(try Money.check(JSONNumber(literal: "-0.00")))
        XCTAssertTrue(try Money.check(JSONNumber(literal: "-1e-3")))
        XCTAssertEqual(try Money.decimal(JSONNumber(literal: "1e160")).description, "1" + String(repeating: "0", count: 160))
        XCTAssertNoThrow(try Money.check(JSONNumber(literal: "1e160")))
        XCTAssertNoThrow(try Money.check(JSONNumber(literal: "12345678901234567890123456789012345678e127")))
        for (text, expected) in [("1e308", "too large"), ("1e165", "too large"), ("1.5e-129", "decimal place"),
                                 ("1234567890123456789012345678901234567890", "39 significant digits")] {
            XCTAssertThrowsError(try Money.check(JSONNumber(literal: text)), text) { e in XCTAssertTrue("\(e)".contains(expected), "\(e)") }
        }
        XCTAssertThrowsError(try Money.check(JSONNumber(Double.infinity)))
        // Acreage (not money) follows the comma rule and may have an exponent.
        XCTAssertEqual(try Money.quantity("1,250.5"), 1250.5)
        XCTAssertEqual(try Money.quantity("1e-05"), 0.00001)
        XCTAssertThrowsError(try Money.quantity("1,5")) { e in XCTAssertTrue("\(e)".contains("ambiguous decimal comma"), "\(e)") }
        XCTAssertThrowsError(try Money.quantity("$2"))
    }

    func testExactDecimalArithmetic() {
        func x(_ s: String) -> ExactDecimal { ExactDecimal(literal: s)! }
        XCTAssertEqual((x("0.1") + x("0.2")).description, "0.3")
        XCTAssertEqual((x("1e40") + x("0.01")).description, "1" + String(repeating: "0", count: 40) + ".01")
        XCTAssertEqual((x("-2.50") + x("1")).description, "-1.5")
        XCTAssertEqual((x("2.5") + x("-2.50")).description, "0")
        XCTAssertEqual((x("-0.001") + x("-999.999")).description, "-1000")
        XCTAssertEqual((x("100") + x("-100.01")).description, "-0.01")
        XCTAssertEqual(x("12.500").description, "12.5")
        XCTAssertEqual(x("1.5e3").description, "1500")
        XCTAssertEqual(x("-0").description, "0")
        XCTAssertEqual(ExactDecimal(units: 1299, scale: 2).description, "12.99")
        XCTAssertEqual(ExactDecimal(units: -5, scale: 3).description, "-0.005")
        XCTAssertTrue(x("-1") < x("-0.5") && x("-0.5") < x("0") && x("0") < x("0.001") && x("0.001") < x("1e40"))
        XCTAssertNil(ExactDecimal(exactly: .nan))
        // Division by a count, rounded from the exact remainder (by hand).
        let cases: [(String, Int, Int, ExactDecimal.Rounding, String)] = [
            ("1", 3, 2, .halfEven, "0.33"), ("2", 3, 2, .halfEven, "0.67"), ("0.125", 1, 2, .halfEven, "0.12"),
            ("0.125", 1, 2, .halfUp, "0.13"), ("0.135", 1, 2, .halfEven, "0.14"), ("-0.125", 1, 2, .halfEven, "-0.12"),
            ("-0.125", 1, 2, .halfUp, "-0.13"), ("5", 2, 0, .halfEven, "2"), ("7", 2, 0, .halfEven, "4"),
            ("0.00001", 1, 2, .halfUp, "0"), ("0.005", 1, 2, .halfEven, "0"), ("0.005", 1, 2, .halfUp, "0.01"),
            ("0.0051", 1, 2, .halfEven, "0.01"), ("999.995", 1, 2, .halfUp, "1000"), ("0.25", 2, 2, .halfEven, "0.12"),
            ("0.2500001", 2, 2, .halfEven, "0.13"), ("10", 4, 6, .halfEven, "2.5"), ("0", 7, 2, .halfEven, "0"),
            ("1e160", 3, 2, .halfEven, String(repeating: "3", count: 160) + ".33"),
        ]
        for (value, divisor, places, rounding, expected) in cases {
            XCTAssertEqual(x(value).divided(by: divisor, places: places, rounding: rounding).description, expected, "\(value)/\(divisor)")
        }
    }

    /// Bid + 35 + 5 % (half-up to cents) + 100, by hand: 1000.10 → fee 50.005 → 50.01 → 1185.11; exact for a 38-digit bid.
    func testAllInCostIsExact() {
        XCTAssertEqual(AuctionScoring.allInCost(Decimal(string: "1000.10")!).description, "1185.11")
        XCTAssertEqual(AuctionScoring.allInCost(Decimal(string: "99999999999999999999999999999999999999")!).description,
                       "105000000000000000000000000000000000133.95")
    }

    // MARK: Every money parser of the build follows the rule

    func auctionInput(_ csv: String) -> URL {
        TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["auctions"] = ["files": [["path": "auctions/x.csv", "county": "Baldwin"]], "recordedAt": "2025-12-15T00:00:00Z"]
        }, files: ["auctions/x.csv": csv])
    }

    func buildError(_ input: URL) -> String? {
        let out = TestSupport.tempDir("money").appendingPathComponent("dist")
        do { _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000)); return nil } catch { return "\(error)" }
    }

    func testAuctionAmountsFollowTheRule() throws {
        let header = "parcel id,amount,assessed value,acreage\n"
        for (row, mentions) in [("A2,\"12,99\",,1", ["x.csv:3", "field 'amount'", "ambiguous decimal comma"]),
                                ("A2,100,\"1,2345\",1", ["x.csv:3", "field 'assessed value'", "misplaced thousands separator"]),
                                ("A2,100,,\"1,5\"", ["x.csv:3", "field 'acreage'", "ambiguous decimal comma"]),
                                ("A2,1e308,,1", ["x.csv:3", "field 'amount'", "scientific notation"]),
                                ("A2," + String(repeating: "9", count: 39) + ",,1", ["x.csv:3", "field 'amount'", "39 significant digits"])] {
            let e = buildError(auctionInput(header + "A1,100,,1\n" + row + "\n"))
            XCTAssertNotNil(e, row)
            for m in mentions { XCTAssertTrue(e?.contains(m) == true, "\(row): expected '\(m)' in \(e ?? "")") }
        }
        // Grouped thousands read as such; the county total is the exact sum (1,299.00 + 100 + 0.10).
        let out = TestSupport.tempDir("money").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: auctionInput(header + "A1,\"$1,299.00\",\"$18,400\",1\nA2,100,,1\nA3,0.10,,1\n"), output: out,
                                       threads: 2, epochSeconds: 1_700_000_000))
        let a1 = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("auctions/properties/A1.json")))
        XCTAssertEqual(a1["amount"]?.numberValue?.description, "1299")
        XCTAssertEqual(a1["assessedValue"]?.numberValue?.description, "18400")
        let index = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("auctions/county-index.json")))
        XCTAssertEqual(index["counties"]?[0]?["totalBid"]?.numberValue?.description, "1399.1")
    }

    /// `filters.maxPrice` compares exactly: 19.99 keeps a 19.99 bid (through a double it was 19.98999…99488, which left
    /// it out) and drops 20.00.
    func testMaxPriceFilterIsExact() throws {
        let dir = TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["auctions"] = ["files": [["path": "auctions/x.csv", "county": "Baldwin"]], "recordedAt": "2025-12-15T00:00:00Z",
                             "filters": ["maxPrice": 19.99]]
        }, files: ["auctions/x.csv": "parcel id,amount,acreage\nA1,19.99,1\nA2,20.00,1\nA3,$19.98,1\n"])
        let out = TestSupport.tempDir("money").appendingPathComponent("dist")
        let s = try Build.run(BuildOptions(input: dir, output: out, threads: 2, epochSeconds: 1_700_000_000))
        XCTAssertEqual(s.report.first { $0.key == "parcels published" }?.count, 2)
        XCTAssertNotNil(FileManager.default.contents(atPath: out.appendingPathComponent("auctions/properties/A1.json").path))
        XCTAssertNil(FileManager.default.contents(atPath: out.appendingPathComponent("auctions/properties/A2.json").path))
    }

    func testCatalogPriceTextFollowsTheRule() throws {
        func input(_ price: String) -> URL {
            TestSupport.makeInput(files: ["catalog/products.jsonl": TestSupport.productLine("a") + "\n" + TestSupport.productLine("b", price: price) + "\n",
                                          "catalog/categories.json": TestSupport.categoriesJSON])
        }
        for (price, says) in [(#""12,99""#, "ambiguous decimal comma"), (#""1,2345""#, "misplaced thousands separator"),
                              (#""-3.00""#, "non-negative"), (#""€12""#, "not in dollars")] {
            let e = buildError(input(price))
            for m in ["products.jsonl:2", "field 'price'", says] { XCTAssertTrue(e?.contains(m) == true, "\(price): expected '\(m)' in \(e ?? "nil")") }
        }
        let out = TestSupport.tempDir("money").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input(#""$1,299.00""#), output: out, threads: 2, epochSeconds: 1_700_000_000))
        let details = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("products/b/details.json")))
        XCTAssertEqual(details["pricing"]?["currentPrice"]?.numberValue?.description, "1299")
    }

    func testCollectionDecimalsNameTheCommaProblem() throws {
        let decl = #"{"sources": ["collections/data/p.csv"], "id": "sku", "fields": {"sku": {"type": "string"}, "price": {"type": "decimal"}}}"#
        func input(_ cell: String) -> URL {
            TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") },
                                  files: ["collections/p.json": decl, "collections/data/p.csv": "sku,price\na,1\nb,\(cell)\n"])
        }
        for (cell, says) in [(#""12,99""#, "ambiguous decimal comma"), (#""1,299.00""#, "separators are not read in this column; write 1299"),
                             (#""1,2345""#, "misplaced thousands separator"), ("1e200", "too large"), ("1e-200", "decimal place")] {
            let e = buildError(input(cell))
            for m in ["p.csv:3", "price", says] { XCTAssertTrue(e?.contains(m) == true, "\(cell): expected '\(m)' in \(e ?? "nil")") }
        }
        // A declared bound beyond what an exact decimal carries is refused, not silently dropped.
        let bounded = decl.replacingOccurrences(of: #"{"type": "decimal"}"#, with: #"{"type": "decimal", "maximum": 1e200}"#)
        let e = buildError(TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") },
                                                 files: ["collections/p.json": bounded, "collections/data/p.csv": "sku,price\na,1\n"]))
        XCTAssertTrue(e?.contains("field 'fields.price.maximum'") == true && e?.contains("too large") == true, e ?? "nil")
    }
}
