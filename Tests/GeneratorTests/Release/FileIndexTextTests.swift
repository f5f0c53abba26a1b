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
}
