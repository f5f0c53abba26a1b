import XCTest
import Foundation
@testable import Generator

/// The smaller input problems of issue 18 (scope 8): each is a clear message naming the file, never a silent pass,
/// a misleading "stray quote", a raw Foundation error, or raw control characters on the terminal.
final class InputErrorsTests: XCTestCase {
    let cats = TestSupport.categoriesJSON

    func build(_ input: URL, skipBadRows: Bool = false) throws -> BuildSummary {
        let out = TestSupport.tempDir("inerr").appendingPathComponent("dist")
        return try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000, skipBadRows: skipBadRows))
    }

    /// The message of a failing build (as the CLI prints it).
    func failure(_ input: URL, skipBadRows: Bool = false, file: StaticString = #filePath, line: UInt = #line) -> String {
        do { _ = try build(input, skipBadRows: skipBadRows) } catch {
            let text = "\(error)"
            XCTAssertFalse(text.contains("Error Domain") || text.contains("NSCocoaErrorDomain"), "raw Foundation error: \(text)", file: file, line: line)
            return text
        }
        XCTFail("the build succeeded", file: file, line: line)
        return ""
    }

    func assertMentions(_ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        for e in expected { XCTAssertTrue(text.contains(e), "expected '\(e)' in: \(text)", file: file, line: line) }
    }

    func collectionsInput(_ files: [String: String]) -> URL {
        TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: files)
    }

    func auctionsInput(_ files: [String: String]) -> URL {
        TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["auctions"] = ["files": [["path": "auctions/x.csv", "county": "Baldwin"]], "recordedAt": "2025-12-15T00:00:00Z"]
        }, files: files)
    }

    // MARK: --skip-bad-rows and malformed JSON Lines records

    func testSkipBadRowsSkipsAMalformedJSONLinesRecord() throws {
        let lines = [TestSupport.productLine("1"), #"{"id":"2","name": oops}"#, TestSupport.productLine("3")].joined(separator: "\n")
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": lines, "catalog/categories.json": cats])
        assertMentions(failure(input), ["catalog/products.jsonl:2:", "malformed JSON Lines record"])
        let summary = try build(input, skipBadRows: true)
        let item = try XCTUnwrap(summary.report.first { $0.key == "malformed records skipped" })
        XCTAssertEqual(item.count, 1)
        XCTAssertEqual(item.examples.count, 1)
        XCTAssertTrue(item.examples[0].hasSuffix("catalog/products.jsonl:2"), "\(item.examples)")
        XCTAssertEqual(summary.report.first { $0.key == "products read" }?.count, 2)
    }

    func testSkipBadRowsSkipsAMalformedRecordOfACollection() throws {
        let decl = #"{"sources": ["collections/data/c.jsonl"], "id": "id", "fields": {"id": {"type": "string"}}}"#
        let input = collectionsInput(["collections/c.json": decl, "collections/data/c.jsonl": "{\"id\":\"a\"}\n{\"id\":\n{\"id\":\"b\"}\n"])
        assertMentions(failure(input), ["c.jsonl:2:", "malformed JSON Lines record"])
        let summary = try build(input, skipBadRows: true)
        XCTAssertEqual(summary.report.first { $0.key == "c: bad rows skipped" }?.count, 1)
        XCTAssertEqual(summary.report.first { $0.key == "c: items" }?.count, 2)
    }

    // MARK: UTF-16 and UTF-32

    func write(_ data: Data, _ path: String, in input: URL) throws {
        let url = input.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    func testUTF16CSVIsNamedNotAStrayQuote() throws {
        let csv = "id,name,price,category\n1,\"Drill\",19.99,tools/drills\n"
        let input = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c["products"] = "catalog/products.csv"; s["catalog"] = c
        }, files: ["catalog/categories.json": cats])
        // With a byte-order mark (what Excel's "Unicode text" writes).
        try write(Data([0xFF, 0xFE]) + csv.data(using: .utf16LittleEndian)!, "catalog/products.csv", in: input)
        var text = failure(input)
        assertMentions(text, ["catalog/products.csv: the file is UTF-16 (little-endian); save it as UTF-8"])
        XCTAssertFalse(text.contains("stray quote"), text)
        // Without one: recognised by its NUL bytes.
        try write(csv.data(using: .utf16BigEndian)!, "catalog/products.csv", in: input)
        text = failure(input)
        assertMentions(text, ["the file is UTF-16 (big-endian); save it as UTF-8"])
    }

    func testUTF16AuctionCSVAndUTF32JSONLines() throws {
        let input = auctionsInput([:])
        try write(Data([0xFE, 0xFF]) + "parcel id,amount\nA1,100\n".data(using: .utf16BigEndian)!, "auctions/x.csv", in: input)
        assertMentions(failure(input), ["auctions/x.csv: the file is UTF-16 (big-endian); save it as UTF-8"])

        let products = TestSupport.makeInput(files: ["catalog/categories.json": cats])
        try write(TestSupport.productLine("1").data(using: .utf32LittleEndian)!, "catalog/products.jsonl", in: products)
        assertMentions(failure(products), ["catalog/products.jsonl: the file is UTF-32 (little-endian); save it as UTF-8"])
    }

    func testWideEncodingDetection() {
        XCTAssertEqual(InputFiles.wideEncoding(Data([0xFF, 0xFE, 0x41, 0x00])), "UTF-16 (little-endian)")
        XCTAssertEqual(InputFiles.wideEncoding(Data([0xFF, 0xFE, 0x00, 0x00, 0x41, 0, 0, 0])), "UTF-32 (little-endian)")
        XCTAssertEqual(InputFiles.wideEncoding(Data([0, 0, 0xFE, 0xFF])), "UTF-32 (big-endian)")
        XCTAssertEqual(InputFiles.wideEncoding("id,name".data(using: .utf32BigEndian)!), "UTF-32 (big-endian)")
        XCTAssertNil(InputFiles.wideEncoding(Data("id,name\n1,a\n".utf8)))
        XCTAssertNil(InputFiles.wideEncoding(Data([0xEF, 0xBB, 0xBF] + Array("id".utf8))))   // UTF-8 with a BOM is fine
        XCTAssertNil(InputFiles.wideEncoding(Data()))
    }

    // MARK: JSON arrays: real lines, not entry numbers

    func testJSONArrayEntriesReportTheirRealLine() throws {
        let bad = TestSupport.productLine("3").replacingOccurrences(of: #""inStock":true"#, with: #""inStock":"maybe""#)
        // Entry 3 starts on line 6: entries 1 and 2 span several lines, and a string holds brackets and quotes.
        let tricky = TestSupport.productLine("2", name: #"Saw [\"x\"] {y},"#)
        let array = "[\n"                                                                   // line 1
            + "  " + TestSupport.productLine("1") + ",\n"                                      // line 2: entry 1
            + "  " + tricky.replacingOccurrences(of: #""brand":"#, with: "\n  \"brand\":") + ",\n"   // lines 3-4: entry 2
            + "\n"                                                                              // line 5
            + "  " + bad + "\n]\n"                                                              // line 6: entry 3
        let input = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c["products"] = "catalog/products.json"; s["catalog"] = c
        }, files: ["catalog/products.json": array, "catalog/categories.json": cats])
        assertMentions(failure(input), ["catalog/products.json:6:", "field 'inStock'", #"found "maybe""#])

        // The same inside {"products": [...]}, after another member holding an array.
        let wrapped = "{\"note\": [1, [2]],\n \"products\": [\n" + TestSupport.productLine("1") + ",\n" + bad + "]}"
        let input2 = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c["products"] = "catalog/products.json"; s["catalog"] = c
        }, files: ["catalog/products.json": wrapped, "catalog/categories.json": cats])
        assertMentions(failure(input2), ["catalog/products.json:4:", "field 'inStock'"])
    }

    func testEntryLineScanner() {
        XCTAssertEqual(ProductFileReader.entryLines(Array("[1,\n2,\n\n\"a]\\\"\",\n{\"x\":[3,4]},\n[5]]".utf8), member: nil), [1, 2, 4, 5, 6])
        XCTAssertEqual(ProductFileReader.entryLines(Array("{\"a\":{\"products\":[9]},\n\"products\":[\n1,\n2]}".utf8), member: "products"), [3, 4])
    }

    // MARK: A categories file named in site.json must exist

    func testCategoriesNamedButMissingIsAnError() throws {
        // The default site.json names catalog/categories.json.
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": TestSupport.productLine("1")])
        assertMentions(failure(input), ["site.json: field 'catalog.categories': catalog/categories.json not found"])
        // Not named: the default path may be absent.
        let unnamed = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c.removeValue(forKey: "categories"); s["catalog"] = c
        }, files: ["catalog/products.jsonl": TestSupport.productLine("1")])
        XCTAssertNoThrow(try build(unnamed))
    }

    // MARK: An auction CSV without the required columns

    func testAuctionCSVWithoutRequiredColumnsIsAnError() throws {
        let text = failure(auctionsInput(["auctions/x.csv": "name,value\nA,1\n"]))
        assertMentions(text, ["auctions/x.csv:1: the header has no parcel id column (expected one of: parcel id, parcel_id",
                              "and no amount column (expected one of: amount bid at tax sale", "found: name, value"])
        // A header with no rows at all passed silently before.
        assertMentions(failure(auctionsInput(["auctions/x.csv": "description,acres\n"])), ["auctions/x.csv:1:", "parcel id column"])
        // One of the two missing is named alone.
        let one = failure(auctionsInput(["auctions/x.csv": "parcel id,acres\nA1,1\n"]))
        assertMentions(one, ["has no amount column"])
        XCTAssertFalse(one.contains("parcel id column"), one)
    }

    /// A short NBA row is an error naming its line (it was read past its end: a crash).
    func testShortNBARowIsAnError() throws {
        let input = TestSupport.makeInput(site: { s in s.removeValue(forKey: "catalog"); s["nba"] = ["folder": "nba", "simulations": 100] }, files: [
            "nba/teams.csv": "team_id,abbreviation,full_name\n1,AAA\n",
            "nba/games.csv": "game_id,season,game_date,home_team_id,away_team_id,home_score,away_score,ot_periods\n",
        ])
        assertMentions(failure(input), ["nba/teams.csv:2: has 2 fields; the columns used need 3"])
    }

    // MARK: An empty products file

    func testEmptyProductsFileIsAnError() throws {
        for text in ["", "\n\n  \n"] {
            let input = TestSupport.makeInput(files: ["catalog/products.jsonl": text, "catalog/categories.json": cats])
            assertMentions(failure(input), ["catalog/products.jsonl: has no products; an empty catalog is refused"])
        }
        let csv = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c["products"] = "catalog/products.csv"; s["catalog"] = c
        }, files: ["catalog/products.csv": "id,name,price\n", "catalog/categories.json": cats])
        assertMentions(failure(csv), ["catalog/products.csv: has no products"])
    }

    // MARK: No raw Foundation errors

    func testReadErrorsAreShortMessages() throws {
        // A folder where a file is expected.
        let folder = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c["products"] = "catalog"; s["catalog"] = c
        }, files: ["catalog/products.jsonl": TestSupport.productLine("1"), "catalog/categories.json": cats])
        assertMentions(failure(folder), ["catalog: is a folder, not a regular file"])
        // A collection source that is not there.
        let decl = #"{"sources": ["collections/data/none.csv"], "id": "id", "fields": {"id": {"type": "string"}}}"#
        assertMentions(failure(collectionsInput(["collections/c.json": decl])), ["collections/c.json: field 'sources[0]': collections/data/none.csv not found"])
        // A path through a file.
        let through = TestSupport.makeInput(site: { s in
            var c = s["catalog"] as! [String: Any]; c["featured"] = "catalog/products.jsonl/featured.json"; s["catalog"] = c
        }, files: ["catalog/products.jsonl": TestSupport.productLine("1"), "catalog/categories.json": cats])
        assertMentions(failure(through), ["catalog.featured"])
        // Permission denied (not testable as root, which reads anything).
        if getuid() != 0 {
            let locked = TestSupport.makeInput(files: ["catalog/products.jsonl": TestSupport.productLine("1"), "catalog/categories.json": cats])
            chmod(locked.appendingPathComponent("catalog/products.jsonl").path, 0)
            assertMentions(failure(locked), ["catalog/products.jsonl: permission denied"])
        }
        XCTAssertEqual(InputFiles.reason(EACCES), "permission denied")
        XCTAssertEqual(InputFiles.reason(EISDIR), "is a folder, not a file")
        XCTAssertEqual(InputFiles.reason(ENOENT), "not found")
    }

    // MARK: Input quoted in messages: short and escaped

    func testControlCharactersInIdsAreEscapedOnTheTerminal() throws {
        // Ids with ESC (a terminal escape sequence that clears the screen) and NUL, as JSON escapes.
        let esc = TestSupport.productLine(#"a\u001b[2Jb"#)
        let nul = TestSupport.productLine(#"c\u0000d"#)
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": [esc, nul].joined(separator: "\n"), "catalog/categories.json": cats])
        let out = TestSupport.tempDir("esc").appendingPathComponent("dist")
        let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path])
        XCTAssertEqual(r.status, 1, r.output)
        XCTAssertFalse(r.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "a raw control character reached the terminal: \(r.output.debugDescription)")
        assertMentions(r.output, [#"product id "a\u{1B}[2Jb" contains a control character"#, #"product id "c\u{0}d" contains a control character"#])
    }

    func testLongValuesAreCapped() throws {
        let long = String(repeating: "x", count: 5000)
        let line = TestSupport.productLine("1").replacingOccurrences(of: #""inStock":true"#, with: #""inStock":"\#(long)""#)
        let input = TestSupport.makeInput(files: ["catalog/products.jsonl": line, "catalog/categories.json": cats])
        let text = failure(input)
        assertMentions(text, ["found \"" + String(repeating: "x", count: 60) + "…\""])
        XCTAssertLessThan(text.count, 300, text)
    }

    func testExcerpt() {
        XCTAssertEqual(Excerpt.quote("plain"), #""plain""#)
        XCTAssertEqual(Excerpt.quote("a\u{1B}[31m\u{0}\n\"\\"), #""a\u{1B}[31m\u{0}\n\"\\""#)
        XCTAssertEqual(Excerpt.quote(String(repeating: "é", count: 61)), "\"" + String(repeating: "é", count: 60) + "…\"")
        XCTAssertEqual(Excerpt.text("right\u{202E}to-left"), #"right\u{202E}to-left"#)
        // A grapheme cluster of unbounded length is still cut (counted in scalars).
        let zalgo = "a" + String(repeating: "\u{301}", count: 1000)
        XCTAssertEqual(Excerpt.text(zalgo).unicodeScalars.count, 61)
        XCTAssertEqual(Excerpt.escapingControls("ok"), "ok")
        XCTAssertEqual(BuildError(file: "f\u{7}", field: "k\u{1B}", "m\u{9B}").description, #"f\u{7}: field 'k\u{1B}': m\u{9B}"#)
    }
}
