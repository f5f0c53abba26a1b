import Foundation

/// A JSON value as the tree writes it: objects keep their members in order and numbers keep their text, so a file
/// read, patched and written again comes out byte for byte as the generator wrote the new release (its sha256 then
/// matches the index). JSONSerialization keeps neither, hence this small reader and writer of its own.
public indirect enum TreeJSON: Sendable {
    case null
    case bool(Bool)
    /// The number's literal text (already checked to be a JSON number).
    case number(String)
    case string(String)
    case array([TreeJSON])
    case object([Member])

    public struct Member: Sendable {
        public var key: String
        public var value: TreeJSON
        public init(_ key: String, _ value: TreeJSON) { self.key = key; self.value = value }
    }

    public subscript(key: String) -> TreeJSON? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    public var string: String? { if case .string(let s) = self { return s }; return nil }
    public var array: [TreeJSON]? { if case .array(let a) = self { return a }; return nil }
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// A whole number written without fraction or exponent (versions, sizes).
    public var int: Int? { if case .number(let t) = self { return Int(t) }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    // MARK: Equality (the JSON Patch `test` operation)

    /// JSON equality: numbers by value, objects whatever their member order, strings by code points.
    public func isEqual(to other: TreeJSON) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)):
            if a == b { return true }
            if let x = Decimal(string: a, locale: Self.posix), let y = Decimal(string: b, locale: Self.posix), !x.isNaN, !y.isNaN { return x == y }
            return Double(a) == Double(b)
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.isEqual(to: $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { m in b.first { $0.key == m.key }.map { $0.value.isEqual(to: m.value) } ?? false }
        default: return false
        }
    }
    private static let posix = Locale(identifier: "en_US_POSIX")

    // MARK: Reading

    public struct SyntaxError: Error, CustomStringConvertible, Sendable {
        public let offset: Int
        public let message: String
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    /// Strict RFC 8259: UTF-8, no duplicate keys, nothing after the value, at most 512 levels deep.
    public static func parse(_ bytes: [UInt8]) throws -> TreeJSON { try parse(bytes, duplicateKeys: false) }

    /// `duplicateKeys`: keep every member of an object that repeats a key (only tests read such text).
    static func parse(_ bytes: [UInt8], duplicateKeys: Bool) throws -> TreeJSON {
        var p = Parser(buf: bytes, duplicateKeys: duplicateKeys)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { p.pos = 3 }
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.pos == bytes.count else { throw p.error("unexpected text after the value") }
        return v
    }

    /// Reads the text from `pos` on. (An array, not a buffer pointer: its bounds are checked, and the scans that cost
    /// most run over slices, whose checks the compiler drops.)
    private struct Parser {
        let buf: [UInt8]
        let duplicateKeys: Bool
        var pos = 0

        func error(_ m: String) -> SyntaxError { SyntaxError(offset: pos, message: m) }

        mutating func skipSpace() {
            while pos < buf.count, buf[pos] == 0x20 || buf[pos] == 0x0A || buf[pos] == 0x0D || buf[pos] == 0x09 { pos += 1 }
        }

        mutating func value(depth: Int) throws -> TreeJSON {
            guard depth < 512 else { throw error("nested more than 512 levels deep") }
            guard pos < buf.count else { throw error("unexpected end of input") }
            switch buf[pos] {
            case UInt8(ascii: "{"):
                pos += 1
                var members: [Member] = []
                var keys = Set<String>()
                skipSpace()
                if pos < buf.count, buf[pos] == UInt8(ascii: "}") { pos += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard pos < buf.count, buf[pos] == UInt8(ascii: "\"") else { throw error("expected a key") }
                    let key = try string()
                    guard keys.insert(key).inserted || duplicateKeys else { throw error("duplicate key \"\(TreePath.shown(key, limit: 40))\"") }
                    skipSpace()
                    guard pos < buf.count, buf[pos] == UInt8(ascii: ":") else { throw error("expected ':'") }
                    pos += 1
                    skipSpace()
                    members.append(Member(key, try value(depth: depth + 1)))
                    skipSpace()
                    guard pos < buf.count else { throw error("unexpected end of input in an object") }
                    if buf[pos] == UInt8(ascii: ",") { pos += 1; continue }
                    if buf[pos] == UInt8(ascii: "}") { pos += 1; return .object(members) }
                    throw error("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                pos += 1
                var items: [TreeJSON] = []
                skipSpace()
                if pos < buf.count, buf[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard pos < buf.count else { throw error("unexpected end of input in an array") }
                    if buf[pos] == UInt8(ascii: ",") { pos += 1; continue }
                    if buf[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
                    throw error("expected ',' or ']'")
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try word("true"); return .bool(true)
            case UInt8(ascii: "f"): try word("false"); return .bool(false)
            case UInt8(ascii: "n"): try word("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func word(_ w: String) throws {
            let bytes = Array(w.utf8)
            guard pos + bytes.count <= buf.count, Array(buf[pos..<(pos + bytes.count)]) == bytes else { throw error("invalid literal") }
            pos += bytes.count
        }

        mutating func number() throws -> String {
            let start = pos
            func digits() -> Int { let s = pos; while pos < buf.count, buf[pos] >= 0x30, buf[pos] <= 0x39 { pos += 1 }; return pos - s }
            if pos < buf.count, buf[pos] == UInt8(ascii: "-") { pos += 1 }
            let intStart = pos
            let n = digits()
            guard n > 0 else { throw error("invalid value") }
            if n > 1, buf[intStart] == 0x30 { throw error("leading zero in a number") }
            if pos < buf.count, buf[pos] == UInt8(ascii: ".") {
                pos += 1
                guard digits() > 0 else { throw error("expected a digit after '.'") }
            }
            if pos < buf.count, buf[pos] == UInt8(ascii: "e") || buf[pos] == UInt8(ascii: "E") {
                pos += 1
                if pos < buf.count, buf[pos] == UInt8(ascii: "+") || buf[pos] == UInt8(ascii: "-") { pos += 1 }
                guard digits() > 0 else { throw error("expected a digit in the exponent") }
            }
            return String(decoding: buf[start..<pos], as: UTF8.self)
        }

        mutating func string() throws -> String {
            pos += 1
            var out: [UInt8] = []
            var runStart = pos
            while true {
                // The run of plain characters up to the next quote, backslash or control character.
                pos = buf[pos...].firstIndex { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 } ?? buf.count
                guard pos < buf.count else { throw error("unterminated string") }
                let c = buf[pos]
                if c == UInt8(ascii: "\"") { break }
                if c < 0x20 { throw error("unescaped control character in a string") }
                out.append(contentsOf: buf[runStart..<pos])
                pos += 1
                guard pos < buf.count else { throw error("unterminated escape") }
                let e = buf[pos]
                pos += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard pos + 1 < buf.count, buf[pos] == UInt8(ascii: "\\"), buf[pos + 1] == UInt8(ascii: "u") else { throw error("unpaired surrogate") }
                        pos += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) { throw error("unpaired surrogate") }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default: pos -= 1; throw error("invalid escape")
                }
                runStart = pos
            }
            let run = buf[runStart..<pos]
            pos += 1
            // (String(validating:) needs the Swift 6 runtime: apps on older systems use this library too.)
            let s: String
            if out.isEmpty {
                // No escape (most strings): the string is its bytes as they are, with no copy to gather them.
                s = String(decoding: run, as: UTF8.self)
                guard s.utf8.elementsEqual(run) else { throw error("a string that is not UTF-8") }
            } else {
                out.append(contentsOf: run)
                s = String(decoding: out, as: UTF8.self)
                guard s.utf8.elementsEqual(out) else { throw error("a string that is not UTF-8") }
            }
            return s
        }

        mutating func hex4() throws -> UInt32 {
            guard pos + 4 <= buf.count else { throw error("truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = buf[pos]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw error("invalid \\u escape")
                }
                v = v * 16 + d
                pos += 1
            }
            return v
        }
    }

    // MARK: Writing

    /// Compact text exactly as the generator writes it: members in order, numbers as their text, "/" not escaped,
    /// `"` `\` and control characters escaped (short forms for \b \f \n \r \t, else \u00xx in lowercase hex).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        write(&out)
        return out
    }

    private func write(_ out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let t): out += Array(t.utf8)
        case .string(let s): Self.write(string: s, &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, v) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(&out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, m) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(string: m.key, &out)
                out.append(UInt8(ascii: ":"))
                m.value.write(&out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func write(string s: String, _ out: inout [UInt8]) {
        out.append(0x22)
        for c in s.utf8 {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case ..<0x20: out += Array("\\u00".utf8) + [hex[Int(c >> 4)], hex[Int(c & 0xF)]]
            default: out.append(c)
            }
        }
        out.append(0x22)
    }
}
