import XCTest
import Foundation
@testable import Schemas
import TestTools

/// The streaming writer gives the same bytes as `JSONWriter` for the same value.
final class JSONStreamTests: XCTestCase {
    /// Writes a value through the streaming API, member by member.
    func stream(_ v: JSON, _ s: JSONStream) throws {
        switch v {
        case .null: s.null()
        case .bool(let b): s.bool(b)
        case .number(let n): try s.number(n)
        case .string(let t): s.string(t)
        case .array(let a): s.beginArray(); for x in a { try stream(x, s) }; s.endArray()
        case .object(let o): s.beginObject(); for m in o.members { s.key(m.key); try stream(m.value, s) }; s.endObject()
        }
    }

    /// Every record of the real corpus (escapes, non-ASCII names, prices, nulls, nested ratings), one stream reused.
    func testSameBytesAsTheWriterOnTheRealCorpus() throws {
        let url = Repository.testData("catalog/products.jsonl")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 4000)
        let s = JSONStream(capacity: 16)
        var all: [JSON] = []
        for line in lines {
            let v = try JSONReader.parse(String(line))
            all.append(v)
            s.reset()
            try stream(v, s)
            XCTAssertEqual(s.bytes, try JSONWriter().bytes(v), String(line.prefix(80)))
        }
        // The whole corpus as one array, with entries written once and reused as raw fragments.
        s.reset()
        s.beginObject(); s.key("items"); s.beginArray()
        for v in all { s.raw(try JSONWriter().bytes(v)) }
        s.endArray(); s.key("count"); s.int(all.count); s.endObject()
        XCTAssertEqual(s.bytes, try JSONWriter().bytes(.obj(["items": .array(all), "count": .int(all.count)])))
    }

    func testStaticKeysOptionalsAndNumbers() throws {
        let s = JSONStream()
        s.beginObject()
        s.key("a"); s.string(nil as String?)
        s.key("b"); try s.double(349.0)
        s.key("c"); try s.double(0.1)
        s.key("d"); s.beginArray(); s.int(-12); s.bool(true); s.string("q\"\n\u{1}/"); s.endArray()
        s.key("é\t"); try s.value(["x": [1, 2]])
        s.key("e"); s.beginObject(); s.endObject()
        s.endObject()
        XCTAssertEqual(String(decoding: s.bytes, as: UTF8.self), #"{"a":null,"b":349,"c":0.1,"d":[-12,true,"q\"\n\u0001/"],"é\t":{"x":[1,2]},"e":{}}"#)
        XCTAssertThrowsError(try s.double(.nan))
        XCTAssertThrowsError(try s.double(-.infinity))
    }

    /// Text drained into an array part way, with a value made elsewhere appended between, continues as one text: the
    /// commas between members and elements come out as if it had all been written to the stream.
    func testDrainKeepsTheTextWhole() throws {
        let whole = JSONStream(), piecewise = JSONStream()
        var bytes: [UInt8] = []
        for s in [whole, piecewise] { s.beginObject(); s.key("a"); s.beginArray(); s.int(1) }
        piecewise.drain(into: &bytes)
        for s in [whole, piecewise] { s.int(2); s.endArray(); s.key("patch") }
        whole.raw(Array(#"[{"op":"remove","path":"/x"}]"#.utf8))
        Array(#"[{"op":"remove","path":"/x"}]"#.utf8).withUnsafeBytes { piecewise.raw($0, drainingInto: &bytes) }
        for s in [whole, piecewise] { s.key("b"); s.string("c"); s.endObject() }
        piecewise.drain(into: &bytes)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(decoding: whole.bytes, as: UTF8.self))
        XCTAssertEqual(piecewise.count, 0)
        XCTAssertNoThrow(try JSONReader.parse(bytes))
    }
}
