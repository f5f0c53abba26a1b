import XCTest
import Foundation
@testable import Generator
import Schemas

/// Products files are read in blocks (a million products never sit in memory as records all together): whatever
/// the block size, the records, their line numbers and the malformed lines are those of the file read whole.
final class BlockReadTests: XCTestCase {
    /// A BOM, a CRLF line, blank lines, a long line, a malformed line and a last line without a newline.
    static let text = "\u{FEFF}{\"id\":\"a\"}\r\n\n{\"id\":\"b\",\"name\":\"\(String(repeating: "x", count: 100))\"}\n  \n{\"id\":\n{\"id\":\"c\"}\n{\"id\":\"d\"}"
    /// (line, id) of each record, and the malformed line, counted by hand.
    static let expected: [(Int, String)] = [(1, "a"), (3, "b"), (6, "c"), (7, "d")]

    func records(blockSize: Int, skip: Bool = true) throws -> (records: [(Int, String)], skipped: [Int], batches: Int) {
        let dir = TestSupport.tempDir("blocks")
        let url = dir.appendingPathComponent("products.jsonl")
        try Data(Self.text.utf8).write(to: url)
        var out: [(Int, String)] = [], batches = 0
        let r = try ProductFileReader.forEachBatch(url, display: "products.jsonl", threads: 2, skipBadRecords: skip, blockSize: blockSize) { batch in
            batches += 1
            out += batch.map { r in
                guard case .json(let j) = r.source else { return (r.line, "?") }
                return (r.line, j["id"]?.stringValue ?? "?")
            }
        }
        XCTAssertEqual(r.records, out.count)
        return (out, r.skipped.compactMap(\.line), batches)
    }

    func testEveryBlockSizeGivesTheRecordsOfTheWholeFile() throws {
        for size in [1, 2, 3, 5, 7, 11, 16, 31, 64, 100, 117, 4096] {
            let r = try records(blockSize: size)
            XCTAssertEqual(r.records.map(\.0), Self.expected.map(\.0), "block \(size)")
            XCTAssertEqual(r.records.map(\.1), Self.expected.map(\.1), "block \(size)")
            XCTAssertEqual(r.skipped, [5], "block \(size)")
        }
        // Small blocks hand over several batches; one large block, two (the last line has no newline).
        XCTAssertGreaterThan(try records(blockSize: 16).batches, 2)
        XCTAssertEqual(try records(blockSize: 4096).batches, 2)
    }

    func testMalformedLineFailsTheReadNamingItsLine() {
        XCTAssertThrowsError(try records(blockSize: 7, skip: false)) { e in
            XCTAssertTrue("\(e)".hasPrefix("error: products.jsonl:5: malformed JSON Lines record"), "\(e)")
        }
    }
}
