import Foundation

/// A JSON syntax error with the 1-based line and column where it was found.
public struct JSONSyntaxError: Error, CustomStringConvertible, Equatable {
    public let line: Int
    public let column: Int
    public let message: String
    public var description: String { "\(line):\(column): \(message)" }
}

/// Strict RFC 8259 reader: UTF-8 only (a leading BOM is accepted), no duplicate keys,
/// no NaN/Infinity, no trailing commas, nothing after the value but whitespace.
///
/// Every entry point lends its bytes to `read(_:)` as one buffer: the parser below walks raw memory (this file is one
/// of the few low-level ones that may), and nothing else in the library needs to.
public struct JSONReader {
    public static func parse(_ data: Data) throws -> JSON {
        try data.withUnsafeBytes { try read($0.assumingMemoryBound(to: UInt8.self)) }
    }

    public static func parse(_ text: String) throws -> JSON {
        var text = text
        return try text.withUTF8 { try read($0) }
    }

    public static func parse(_ bytes: [UInt8]) throws -> JSON {
        try bytes.withUnsafeBufferPointer { try read($0) }
    }

    /// JSON text lent as a span: a whole buffer, or a part of one (`span.extracting(range)`), read in place.
    public static func parse(_ bytes: Span<UInt8>) throws -> JSON {
        try bytes.withUnsafeBufferPointer { try read($0) }
    }

    /// Replaced by `parse(_:)` taking a `Span<UInt8>` (or `[UInt8]`, `Data`, `String`); kept until the callers in
    /// Generator have moved.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws -> JSON { try read(buffer) }

    /// The reader itself: every form above (and the library's own scanners) lends its bytes here.
    static func read(_ buffer: UnsafeBufferPointer<UInt8>) throws -> JSON {
        var p = Parser(buf: buffer)
        if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { p.pos = 3 }
        p.skipWhitespace()
        let value = try p.parseValue(depth: 0)
        p.skipWhitespace()
        if p.pos < buffer.count { throw p.error("unexpected data after the JSON value") }
        return value
    }
}

/// The parser walks a buffer pointer, not a `Span`: a span cannot be a stored property without the experimental
/// `Lifetimes` feature, and the buffer is only ever the one `JSONReader.read` was lent.
private struct Parser {
    let buf: UnsafeBufferPointer<UInt8>
    var pos = 0
    static let maxDepth = 512

    init(buf: UnsafeBufferPointer<UInt8>) { self.buf = buf }

    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let end = min(offset ?? pos, buf.count)
        var line = 1, lineStart = 0
        var i = 0
        while i < end {
            if buf[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += 1
        }
        // Column counts characters, not bytes (UTF-8 continuation bytes are skipped).
        var column = 1
        i = lineStart
        while i < end { if buf[i] & 0xC0 != 0x80 { column += 1 }; i += 1 }
        return JSONSyntaxError(line: line, column: column, message: message)
    }

    @inline(__always) mutating func skipWhitespace() {
        while pos < buf.count {
            let c = buf[pos]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { pos += 1 } else { return }
        }
    }

    mutating func parseValue(depth: Int) throws -> JSON {
        guard pos < buf.count else { throw error("unexpected end of input, expected a value") }
        if depth > Parser.maxDepth { throw error("nesting deeper than \(Parser.maxDepth) levels") }
        switch buf[pos] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "N"): throw error("NaN is not valid JSON")
        case UInt8(ascii: "I"): throw error("Infinity is not valid JSON")
        default: throw error("unexpected character \(describeByte(buf[pos])), expected a value")
        }
    }

    func describeByte(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(UnicodeScalar(b)))'" : String(format: "0x%02X", b)
    }

    mutating func expectWord(_ word: StaticString) throws {
        let n = word.utf8CodeUnitCount
        guard pos + n <= buf.count else { throw error("invalid literal") }
        let w = word.utf8Start
        for i in 0..<n where buf[pos + i] != w[i] { throw error("invalid literal") }
        pos += n
    }

    mutating func parseObject(depth: Int) throws -> JSON {
        pos += 1
        var members: [JSONObject.Member] = []
        var seen: Set<String>? = nil
        skipWhitespace()
        if pos < buf.count, buf[pos] == UInt8(ascii: "}") { pos += 1; return .object(JSONObject(members)) }
        while true {
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: "\"") else {
                throw error(pos < buf.count && buf[pos] == UInt8(ascii: "}") ? "trailing comma in object" : "expected a string key")
            }
            let keyStart = pos
            let key = try parseString()
            // Duplicate keys are ambiguous (parsers disagree on which wins): reject them.
            if members.count < 12 {
                if members.contains(where: { $0.key == key }) { throw error("duplicate key \"\(key)\"", at: keyStart) }
                if members.count == 11 { seen = Set(members.map(\.key)); seen!.insert(key) }
            } else {
                if !seen!.insert(key).inserted { throw error("duplicate key \"\(key)\"", at: keyStart) }
            }
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            pos += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            members.append(JSONObject.Member(key: key, value: value))
            skipWhitespace()
            guard pos < buf.count else { throw error("unexpected end of input in object") }
            if buf[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if buf[pos] == UInt8(ascii: "}") { pos += 1; return .object(JSONObject(members)) }
            throw error("expected ',' or '}' in object")
        }
    }

    mutating func parseArray(depth: Int) throws -> JSON {
        pos += 1
        var items: [JSON] = []
        skipWhitespace()
        if pos < buf.count, buf[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
        while true {
            skipWhitespace()
            if pos < buf.count, buf[pos] == UInt8(ascii: "]") { throw error("trailing comma in array") }
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard pos < buf.count else { throw error("unexpected end of input in array") }
            if buf[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if buf[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
            throw error("expected ',' or ']' in array")
        }
    }

    mutating func parseNumber() throws -> JSONNumber {
        let start = pos
        if buf[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < buf.count else { throw error("invalid number") }
        if buf[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < buf.count, isDigit(buf[pos]) { throw error("leading zeros are not allowed in numbers") }
        } else if isDigit(buf[pos]) {
            while pos < buf.count, isDigit(buf[pos]) { pos += 1 }
        } else if buf[pos] == UInt8(ascii: "I") {
            throw error("Infinity is not valid JSON")
        } else { throw error("invalid number") }
        if pos < buf.count, buf[pos] == UInt8(ascii: ".") {
            pos += 1
            guard pos < buf.count, isDigit(buf[pos]) else { throw error("expected a digit after '.'") }
            while pos < buf.count, isDigit(buf[pos]) { pos += 1 }
        }
        if pos < buf.count, buf[pos] == UInt8(ascii: "e") || buf[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < buf.count, buf[pos] == UInt8(ascii: "+") || buf[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < buf.count, isDigit(buf[pos]) else { throw error("expected a digit in the exponent") }
            while pos < buf.count, isDigit(buf[pos]) { pos += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buf[start..<pos]), as: UTF8.self)
        // Out-of-range literals such as 1e999 are kept as text; only their double view overflows.
        return JSONNumber(literal: text)
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    mutating func parseString() throws -> String {
        pos += 1  // opening quote
        let start = pos
        // Fast path: no escapes, ASCII or valid UTF-8.
        var hasEscape = false
        var scan = pos
        while scan < buf.count {
            let c = buf[scan]
            if c == UInt8(ascii: "\"") { break }
            if c == UInt8(ascii: "\\") { hasEscape = true; break }
            if c < 0x20 { pos = scan; throw error("unescaped control character in string") }
            if c >= 0x80 {
                pos = scan
                scan = try validateUTF8Sequence(at: scan)
                continue
            }
            scan += 1
        }
        if !hasEscape {
            guard scan < buf.count else { pos = scan; throw error("unterminated string") }
            pos = scan + 1
            return String(decoding: UnsafeBufferPointer(rebasing: buf[start..<scan]), as: UTF8.self)
        }
        var out = [UInt8]()
        out.reserveCapacity(scan - start + 16)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<scan]))
        pos = scan
        while true {
            guard pos < buf.count else { throw error("unterminated string") }
            let c = buf[pos]
            if c == UInt8(ascii: "\"") { pos += 1; break }
            if c < 0x20 { throw error("unescaped control character in string") }
            if c >= 0x80 {
                let end = try validateUTF8Sequence(at: pos)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[pos..<end]))
                pos = end
                continue
            }
            if c != UInt8(ascii: "\\") { out.append(c); pos += 1; continue }
            pos += 1
            guard pos < buf.count else { throw error("unterminated escape") }
            let e = buf[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard pos + 1 < buf.count, buf[pos] == UInt8(ascii: "\\"), buf[pos + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    pos += 2
                    let low = try readHex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw error("invalid low surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw error("unpaired surrogate in \\u escape")
                }
                appendUTF8(UnicodeScalar(scalar)!, to: &out)
            default:
                pos -= 1
                throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    mutating func readHex4() throws -> UInt32 {
        guard pos + 4 <= buf.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buf[pos]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    /// Validates one multi-byte UTF-8 sequence starting at `i`; returns the index after it.
    func validateUTF8Sequence(at i: Int) throws -> Int {
        let b0 = buf[i]
        let len: Int
        let minScalar: UInt32
        var scalar: UInt32
        switch b0 {
        case 0xC2...0xDF: len = 2; scalar = UInt32(b0 & 0x1F); minScalar = 0x80
        case 0xE0...0xEF: len = 3; scalar = UInt32(b0 & 0x0F); minScalar = 0x800
        case 0xF0...0xF4: len = 4; scalar = UInt32(b0 & 0x07); minScalar = 0x10000
        default: throw error("invalid UTF-8 byte \(String(format: "0x%02X", b0))", at: i)
        }
        guard i + len <= buf.count else { throw error("truncated UTF-8 sequence", at: i) }
        for k in 1..<len {
            let b = buf[i + k]
            guard b & 0xC0 == 0x80 else { throw error("invalid UTF-8 continuation byte", at: i) }
            scalar = scalar << 6 | UInt32(b & 0x3F)
        }
        if scalar < minScalar || scalar > 0x10FFFF || (scalar >= 0xD800 && scalar < 0xE000) {
            throw error("invalid UTF-8 sequence", at: i)
        }
        return i + len
    }

    func appendUTF8(_ s: UnicodeScalar, to out: inout [UInt8]) {
        UTF8.encode(s) { out.append($0) }
    }
}
