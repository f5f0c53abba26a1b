import XCTest
import Foundation
@testable import Schemas

/// The entry points that take and lend `Span<UInt8>` (and `[UInt8]`) give what the buffer-pointer ones they replace
/// give, on whole texts and on parts of larger ones.
final class SpanEntryPointsTests: XCTestCase {
    let texts: [String] = [
        #"{"id":"204077179","name":"Drill \"Pro\" 20V","price":129.99,"tags":["a","b"],"rating":null}"#,
        #"[1,2.5,-3e2,true,false,null,"é\u00e9\n"]"#,
        "\u{FEFF}{\"a\":1}", "  0 ", "\"x\"", "{\"a\":1,}", "{\"a\":1,\"a\":2}", "[1] 2", "", "nul", "\"\u{1}\"",
    ]

    /// The reader on a span, an array and a buffer pointer: the same value, or the same error (line and column).
    func testReaderAgrees() {
        for t in texts {
            let bytes = Array(t.utf8)
            let whole = bytes[...]
            let fromSpan = Result { try JSONReader.parse(whole.span) }
            let fromArray = Result { try JSONReader.parse(bytes) }
            let fromPointer = bytes.withUnsafeBufferPointer { p in Result { try JSONReader.parse(p) } }
            for other in [fromArray, fromPointer] {
                switch (fromSpan, other) {
                case (.success(let a), .success(let b)): XCTAssertEqual(a, b, t)
                case (.failure(let a as JSONSyntaxError), .failure(let b as JSONSyntaxError)): XCTAssertEqual(a, b, t)
                default: XCTFail("\(t.debugDescription): \(fromSpan) against \(other)")
                }
            }
        }
    }

    /// A part of a larger buffer, lent with `extracting`: only its bytes are read.
    func testReaderOnAPartOfABuffer() throws {
        let bytes = Array(#"xx{"a":[1,2]}yy"#.utf8)
        let whole = bytes[...]
        XCTAssertEqual(try JSONReader.parse(whole.span.extracting(2..<13)), .obj(["a": .array([1, 2])]))
        XCTAssertThrowsError(try JSONReader.parse(whole.span.extracting(2..<14)))
    }

    func testTextScansAgree() {
        let bytes = Array(#"{"a\"b":"c\\","d":"\u00e9"}"#.utf8)
        let whole = bytes[...]
        for i in 0..<bytes.count {
            let expected = bytes.withUnsafeBufferPointer { JSONText.stringEnd($0, from: i) }
            XCTAssertEqual(JSONText.stringEnd(whole.span, from: i), expected, "from \(i)")
            XCTAssertEqual(JSONText.stringEnd(bytes, from: i), expected, "from \(i)")
            guard let end = expected else { continue }
            let literal = whole.span.extracting(i..<end)
            XCTAssertEqual(JSONText.string(literal), bytes.withUnsafeBufferPointer { JSONText.string(UnsafeBufferPointer(rebasing: $0[i..<end])) })
        }
        XCTAssertEqual(JSONText.stringEnd(whole.span, from: 1), 7)
        XCTAssertEqual(JSONText.string(whole.span.extracting(1..<7)), "a\"b")
        XCTAssertEqual(JSONText.string(whole.span.extracting(18..<26)), "é")
    }

    /// The validator's verdicts and errors on text given as a span, an array and a raw buffer, with the fast path and
    /// without it (a schema with `oneOf` has none).
    func testValidatorAgrees() throws {
        let schemas: [JSON] = [
            .obj(["type": "object", "required": .strings(["id"]), "properties": .obj(["id": .obj(["type": "string", "minLength": 1]),
                                                                                        "price": .obj(["type": "number", "minimum": 0])])]),
            .obj(["oneOf": .array([.obj(["type": "string"]), .obj(["type": "integer"])])]),
        ]
        let instances = [#"{"id":"1","price":2}"#, #"{"id":"","price":-1}"#, #"{"price":2}"#, "\"s\"", "3", "3.5", "{", "[1,]"]
        for schema in schemas {
            let v = try JSONSchemaValidator(schema: schema)
            for t in instances {
                let bytes = Array(t.utf8)
                let whole = bytes[...]
                let expected = bytes.withUnsafeBytes { v.isValid(text: $0) }
                XCTAssertEqual(v.isValid(text: whole.span), expected, t)
                XCTAssertEqual(v.isValid(text: bytes), expected, t)
                let errors = bytes.withUnsafeBytes { p in Result { try v.validate(text: p) } }
                for other in [Result { try v.validate(text: whole.span) }, Result { try v.validate(text: bytes) }] {
                    switch (errors, other) {
                    case (.success(let a), .success(let b)): XCTAssertEqual(a, b, t)
                    case (.failure(let a as JSONSyntaxError), .failure(let b as JSONSyntaxError)): XCTAssertEqual(a, b, t)
                    default: XCTFail("\(t): \(errors) against \(other)")
                    }
                }
            }
        }
    }

    /// The stream's span forms write what its buffer-pointer forms write.
    func testStreamAgrees() throws {
        let fragment = Array(#"{"a":1},[2]"#.utf8), name = Array("na\"me\u{1}é".utf8)
        let f = fragment[...], n = name[...]
        let bySpan = JSONStream(capacity: 8), byPointer = JSONStream(capacity: 8)
        var drainedBySpan: [UInt8] = [], drainedByPointer: [UInt8] = []

        bySpan.beginArray(); bySpan.raw(f.span); bySpan.append(f.span); bySpan.append(fragment)
        bySpan.string(utf8: n.span); bySpan.string(utf8: Optional<Span<UInt8>>.none); bySpan.string(utf8: Optional(n.span))
        bySpan.raw(f.span, drainingInto: &drainedBySpan); bySpan.endArray()

        byPointer.beginArray(); fragment.withUnsafeBytes { byPointer.raw($0); byPointer.append($0); byPointer.append($0) }
        // (Strings as bytes have only the span forms now: the pointer stream writes them as strings.)
        byPointer.string(String(decoding: name, as: UTF8.self)); byPointer.string(nil as String?)
        byPointer.string(String(decoding: name, as: UTF8.self) as String?)
        fragment.withUnsafeBytes { byPointer.raw($0, drainingInto: &drainedByPointer) }; byPointer.endArray()

        XCTAssertEqual(drainedBySpan + bySpan.bytes, drainedByPointer + byPointer.bytes)
        XCTAssertEqual(bySpan.withSpan { $0.count }, bySpan.count)
        XCTAssertEqual(bySpan.withSpan { s in (0..<s.count).map { s[$0] } }, bySpan.bytes)
        XCTAssertEqual(String(decoding: drainedBySpan + bySpan.bytes, as: UTF8.self),
                       #"[{"a":1},[2]{"a":1},[2]{"a":1},[2],"na\"me\u0001é",null,"na\"me\u0001é",{"a":1},[2]]"#)
    }

    func testWriterLendsASpan() throws {
        let v: JSON = .obj(["a": .array([1, "b", .null]), "c": .double(0.5)])
        XCTAssertEqual(try JSONWriter().withSpan(v) { s in (0..<s.count).map { s[$0] } }, try JSONWriter().bytes(v))
        XCTAssertEqual(try JSONWriter(pretty: true).withSpan(v) { s in (0..<s.count).map { s[$0] } }, try JSONWriter(pretty: true).bytes(v))
    }
}
