import Foundation
import XCTest
@testable import Generator
import Schemas

/// The fast reading of a file index (`FileIndexText`) takes only our writer's shape and otherwise hands the text to
/// the whole parse: it never accepts text the strict JSON reader refuses, and what it reads is what the whole parse
/// reads (worked out here from `JSONReader`'s value, not by the code under test).
final class FileIndexTextTests: XCTestCase {
    static let sha = String(repeating: "ab", count: 32)
    /// An index as the writer gives it, with `entry` as the text of its second entry.
    static func index(entry: String) -> String {
        #"{"version":2,"currentVersion":"v2","files":[{"path":"a.json","sha256":"\#(sha)","size":10,"schema":"schemas/a.schema.json"},"#
            + entry + #"],"contentDigest":"x"}"#
    }

    /// The entries of an index read whole: nil when the strict reader refuses the text or an entry lacks a field.
    static func wholeParse(_ text: String) -> [FileEntry]? {
        guard let json = try? JSONReader.parse(Array(text.utf8)), let list = json["files"]?.arrayValue else { return nil }
        var out: [FileEntry] = []
        for e in list {
            guard let p = e["path"]?.stringValue, let h = e["sha256"]?.stringValue, let s = e["size"]?.intValue else { return nil }
            out.append(FileEntry(path: p, sha256: h, size: s, schema: e["schema"]?.stringValue))
        }
        return out
    }

    func testTheWritersShapeIsReadFastAndAsTheWholeParseReadsIt() throws {
        for entry in [#"{"path":"b/c.json","sha256":"\#(Self.sha)","size":0,"schema":null}"#,
                      #"{"size":123,"schema":"s.json","path":"caf\u00e9 \"q\".json","sha256":"\#(Self.sha)"}"#,
                      #" { "path" : "x.bin" , "sha256" : "\#(Self.sha)" , "size" : 7 } "#] {
            let text = Self.index(entry: entry)
            let fast = try XCTUnwrap(FileIndexText.parse(Array(text.utf8)), entry)
            XCTAssertEqual(fast.files, Self.wholeParse(text), entry)
            XCTAssertEqual(fast.members["version"]?.intValue, 2)
            XCTAssertEqual(fast.members["contentDigest"]?.stringValue, "x")
        }
    }

    /// Schemas told apart by their bytes when entries of one kind come together, an escaped schema beside its plain
    /// spelling, null between them, raw UTF-8 and invalid UTF-8 in a path: read as the whole parse reads them (or, for
    /// bytes the strict reader refuses, not at all). A member name written with an escape is left to the whole parse.
    func testSchemasAndPathsAreReadAsTheWholeParseReadsThem() throws {
        let schemas = [#""s.json""#, #""s.json""#, #""t.json""#, "null", #""s\/x.json""#, #""s/x.json""#, #""s/x.json""#, #""s.jsonx""#, #""s.json""#]
        let entries = schemas.enumerated().map { k, schema in #"{"path":"p/\#(k)\#u{E9}.json","sha256":"\#(Self.sha)","size":\#(k),"schema":\#(schema)}"# }
        let text = Self.index(entry: entries.joined(separator: ","))
        let fast = try XCTUnwrap(FileIndexText.parse(Array(text.utf8)))
        XCTAssertEqual(fast.files, Self.wholeParse(text))
        XCTAssertEqual(fast.files.map(\.schema), ["schemas/a.schema.json", "s.json", "s.json", "t.json", nil, "s/x.json", "s/x.json", "s/x.json", "s.jsonx", "s.json"])
        XCTAssertEqual(fast.files[1].path, "p/0\u{E9}.json")
        // Invalid UTF-8 in a path (a lone continuation byte): refused, as the strict reader refuses it.
        var bytes = Array(Self.index(entry: #"{"path":"p/Q.json","sha256":"\#(Self.sha)","size":1,"schema":null}"#).utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "Q"))!] = 0x80
        XCTAssertNil(FileIndexText.parse(bytes))
        XCTAssertThrowsError(try JSONReader.parse(bytes))
        // An escaped member name: not read fast, read whole.
        let escapedName = Self.index(entry: #"{"p\u0061th":"b.json","sha256":"\#(Self.sha)","size":1,"schema":null}"#)
        XCTAssertNil(FileIndexText.parse(Array(escapedName.utf8)))
        XCTAssertEqual(Self.wholeParse(escapedName)?.last?.path, "b.json")
    }

    /// Text the strict reader refuses (a size with a leading zero, a key twice in an entry) is never read fast: the
    /// whole parse refuses it, and so does reading a previous release's index.
    func testTextTheStrictReaderRefusesIsNotReadFast() throws {
        for entry in [#"{"path":"b.json","sha256":"\#(Self.sha)","size":012,"schema":null}"#,
                      #"{"path":"b.json","sha256":"\#(Self.sha)","size":00,"schema":null}"#,
                      #"{"path":"b.json","path":"../x","sha256":"\#(Self.sha)","size":12,"schema":null}"#,
                      #"{"path":"b.json","sha256":"\#(Self.sha)","sha256":"\#(Self.sha)","size":12,"schema":null}"#,
                      #"{"path":"b.json","sha256":"\#(Self.sha)","size":12,"size":13,"schema":null}"#] {
            let text = Self.index(entry: entry)
            XCTAssertNil(Self.wholeParse(text), "the strict reader accepts \(entry)")
            XCTAssertNil(FileIndexText.parse(Array(text.utf8)), "read fast: \(entry)")
            XCTAssertThrowsError(try PreviousRelease.entries("releases/2/files.json", Array(text.utf8)), entry)
        }
    }

    /// Text the strict reader takes but the fast reading does not vouch for (another member, a size that is not a
    /// plain integer) is read whole, with the same entries.
    func testOtherShapesAreLeftToTheWholeParse() throws {
        for entry in [#"{"path":"b.json","sha256":"\#(Self.sha)","size":12,"schema":null,"note":"x"}"#,
                      #"{"path":"b.json","sha256":"\#(Self.sha)","size":12.0,"schema":null}"#,
                      #"{"path":"b.json","sha256":"\#(Self.sha)","size":1.2e1,"schema":null}"#] {
            let text = Self.index(entry: entry)
            XCTAssertNil(FileIndexText.parse(Array(text.utf8)), "read fast: \(entry)")
            let whole = try XCTUnwrap(Self.wholeParse(text), entry)
            XCTAssertEqual(try PreviousRelease.entries("releases/2/files.json", Array(text.utf8)).files, whole, entry)
        }
    }

    /// A large index (over a megabyte) is read in two halves side by side: the same entries as the whole parse, in
    /// order, wherever the cut falls — among entries of every shape, paths holding the separator's text escaped —
    /// and a bad entry in either half, or text after the list that looks like an entry, is never read fast wrongly.
    func testALargeIndexReadInTwoHalvesReadsAsTheWholeParse() throws {
        func index(_ count: Int, bad: Int? = nil, after: String = "") -> String {
            let shapes = [#"{"path":"p/%d.json","sha256":"\#(Self.sha)","size":%d,"schema":"schemas/p.schema.json"}"#,
                          #"{"path":"q/\"},{\"path\":\"%d.json","sha256":"\#(Self.sha)","size":%d,"schema":null}"#,
                          #" { "size" : %d , "path" : "r/%d.bin" , "sha256" : "\#(Self.sha)" } "#]
            let entries = (0..<count).map { i -> String in
                if i == bad { return #"{"path":"b.json","sha256":"\#(Self.sha)","size":012,"schema":null}"# }
                let shape = shapes[i % 3]
                return i % 3 == 2 ? String(format: shape, i * 7, i) : String(format: shape, i, i * 7)
            }
            return #"{"version":3,"files":["# + entries.joined(separator: ",") + "]" + after + "}"
        }
        for count in [12_000, 12_001, 15_007] {
            let text = index(count)
            XCTAssertGreaterThan(text.utf8.count, 1 << 20)
            let fast = try XCTUnwrap(FileIndexText.parse(Array(text.utf8)), "\(count)")
            XCTAssertEqual(fast.files, Self.wholeParse(text), "\(count)")
            XCTAssertEqual(fast.files.count, count)
            XCTAssertEqual(fast.members["version"]?.intValue, 3)
        }
        // A bad entry near the start, in the middle, near the end: refused, as the whole parse refuses it.
        for bad in [5, 6_000, 6_001, 11_990] {
            let text = index(12_000, bad: bad)
            XCTAssertNil(Self.wholeParse(text))
            XCTAssertNil(FileIndexText.parse(Array(text.utf8)), "bad entry \(bad) read fast")
        }
        // A member after the list with text like an entry, large enough to hold the middle: the same entries.
        let tail = #","note":["# + Array(repeating: #"{"x":1},{"path":"y"}"#, count: 80_000).joined(separator: ",") + "]"
        let text = index(3_000, after: tail)
        let read = try PreviousRelease.entries("releases/3/files.json", Array(text.utf8))
        XCTAssertEqual(read.files, Self.wholeParse(text))
        XCTAssertEqual(read.files.count, 3_000)
    }
}
