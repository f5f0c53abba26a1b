import Foundation

/// A value the writer refuses (NaN or ±Infinity), with the JSON Pointer of the field holding it. Nothing the build
/// computes should ever be one, so this is an internal error: the build reports it with the file's path and writes
/// nothing.
public struct JSONWriteError: Error, CustomStringConvertible {
    public let path: String
    public let message: String
    public var description: String { "field \(path): \(message)" }
}

/// Deterministic byte writer: members in declared order, shortest round-trip doubles,
/// whole numbers without ".0", "/" never escaped, control characters as \uXXXX (with the
/// usual short forms for \b \f \n \r \t), compact by default or pretty with 2-space indents.
public struct JSONWriter {
    public var pretty: Bool
    public init(pretty: Bool = false) { self.pretty = pretty }

    public func data(_ value: JSON) throws -> Data { Data(try bytes(value)) }

    public func bytes(_ value: JSON) throws -> [UInt8] { try withSink(value) { $0.array } }

    /// Serialises and lends the bytes to `body` without copying them into an array (for callers that hash and write
    /// them and keep nothing).
    public func withSpan<R>(_ value: JSON, _ body: (Span<UInt8>) throws -> R) throws -> R {
        try withSink(value) { try $0.withSpan(body) }
    }

    /// Replaced by `withSpan(_:_:)`; kept until the callers in Generator have moved.
    public func withBytes<R>(_ value: JSON, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try withSink(value) { try body(UnsafeRawBufferPointer(start: $0.base, count: $0.count)) }
    }

    public func string(_ value: JSON) throws -> String { String(decoding: try bytes(value), as: UTF8.self) }

    public func write(_ value: JSON, into out: inout [UInt8]) throws { try withSink(value) { $0.append(to: &out) } }

    /// Serialises `value` into a buffer of its own, lent to `body` and released after.
    private func withSink<R>(_ value: JSON, _ body: (ByteSink) throws -> R) throws -> R {
        var sink = ByteSink(capacity: 256)
        defer { sink.release() }
        try write(value, &sink)
        return try body(sink)
    }

    func write(_ value: JSON, _ sink: inout ByteSink) throws {
        do {
            try emit(value, &sink, 0)
            if pretty { sink.byte(0x0A) }
        } catch let e as PathError {
            throw JSONWriteError(path: "/" + e.components.reversed().joined(separator: "/"), message: e.message)
        }
    }

    struct PathError: Error { var components: [String]; let message: String }

    private func emit(_ value: JSON, _ out: inout ByteSink, _ depth: Int) throws {
        switch value {
        case .null: out.ascii("null")
        case .bool(let b): out.ascii(b ? "true" : "false")
        case .number(let n): try JSONWriter.writeNumber(n, &out)
        case .string(let s): JSONWriter.writeString(s, &out)
        case .array(let items):
            out.byte(UInt8(ascii: "["))
            if items.isEmpty { out.byte(UInt8(ascii: "]")); return }
            var i = 0
            for item in items {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                if pretty { newline(&out, depth + 1) }
                do { try emit(item, &out, depth + 1) } catch var e as PathError {
                    e.components.append(String(i)); throw e
                }
                i += 1
            }
            if pretty { newline(&out, depth) }
            out.byte(UInt8(ascii: "]"))
        case .object(let obj):
            out.byte(UInt8(ascii: "{"))
            if obj.isEmpty { out.byte(UInt8(ascii: "}")); return }
            var first = true
            for m in obj.members {
                if !first { out.byte(UInt8(ascii: ",")) }
                first = false
                if pretty { newline(&out, depth + 1) }
                JSONWriter.writeString(m.key, &out)
                out.byte(UInt8(ascii: ":"))
                if pretty { out.byte(0x20) }
                do { try emit(m.value, &out, depth + 1) } catch var e as PathError {
                    e.components.append(m.key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1"))
                    throw e
                }
            }
            if pretty { newline(&out, depth) }
            out.byte(UInt8(ascii: "}"))
        }
    }

    @inline(__always) private func newline(_ out: inout ByteSink, _ depth: Int) {
        out.byte(0x0A)
        for _ in 0..<(depth * 2) { out.byte(0x20) }
    }

    static func writeNumber(_ n: JSONNumber, _ out: inout ByteSink) throws {
        switch n.storage {
        case .int(let i): writeInt(i, &out)
        case .double(let d):
            guard d.isFinite else { throw PathError(components: [], message: nonFinite(d.description)) }
            writeDouble(d, &out)
        case .text(let t):
            // Text comes from the reader (a literal) or from a Decimal, whose NaN reads "NaN": checked, never trusted.
            if let why = literalProblem(t) { throw PathError(components: [], message: why) }
            out.string(t)
        }
    }

    /// `JSONNumber.format(d)`: most doubles print with neither a ".0" nor an exponent and are written as printed (no
    /// array and no second string per number: a sort chunk of 100,000 prices writes thousands).
    static func writeDouble(_ d: Double, _ out: inout ByteSink) {
        let text = d.description, u = text.utf8
        let plain = !u.contains(UInt8(ascii: "e")) && !(u.count >= 2 && u.last == UInt8(ascii: "0") && u.dropLast().last == UInt8(ascii: "."))
        out.string(plain ? text : JSONNumber.format(d))
    }

    static func nonFinite(_ value: String) -> String {
        "\(value) is not a finite number and JSON has no spelling for it (an internal error: a computed value overflowed or is undefined)"
    }

    /// Why `t` must not be written as a number: not a JSON number literal, or one beyond Double's range (readers would
    /// take `1e400` as infinity). nil when it is fine; a single pass over the bytes, Double parsed only near the limit.
    static func literalProblem(_ t: String) -> String? {
        var t = t
        return t.withUTF8 { b -> String? in
            let n = b.count
            var i = 0
            if i < n, b[i] == UInt8(ascii: "-") { i += 1 }
            let intStart = i
            while i < n, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            let intDigits = i - intStart
            var ok = intDigits > 0 && (intDigits == 1 || b[intStart] != 0x30)
            var magnitude = intDigits   // digits before the point (leading zeros only in "0")
            if ok, i < n, b[i] == UInt8(ascii: ".") {
                i += 1
                let f = i
                while i < n, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
                ok = i > f
            }
            var exponent = 0
            if ok, i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                i += 1
                var sign = 1
                if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { sign = b[i] == UInt8(ascii: "-") ? -1 : 1; i += 1 }
                let e = i
                while i < n, b[i] >= 0x30, b[i] <= 0x39 { exponent = min(exponent * 10 + Int(b[i] - 0x30), 1_000_000); i += 1 }
                ok = i > e
                exponent *= sign
            }
            let excerpt = String(decoding: b.prefix(40), as: UTF8.self) + (n > 40 ? "…" : "")
            guard ok, i == n else { return "\(excerpt.debugDescription) is not a JSON number (an internal error)" }
            if intDigits == 1, b[intStart] == 0x30 { magnitude = 0 }
            if magnitude + exponent > 308, let d = Double(String(decoding: b, as: UTF8.self)), !d.isFinite {
                return "\(excerpt) is beyond the range of a double: readers would take it as infinity (an internal error)"
            }
            return nil
        }
    }

    static func writeInt(_ v: Int, _ out: inout ByteSink) {
        if v == 0 { out.byte(0x30); return }
        if v == Int.min { out.string(String(v)); return }
        var n = v
        out.reserve(20)
        if n < 0 { out.byte(UInt8(ascii: "-")); n = -n }
        var digits = 0, m = n
        while m > 0 { digits += 1; m /= 10 }
        var k = out.count + digits - 1
        while n > 0 { out.base[k] = UInt8(0x30 + n % 10); n /= 10; k -= 1 }
        out.count += digits
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, _ out: inout ByteSink) {
        if let done = s.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, &out) }) { return done }
        var copy = s
        copy.withUTF8 { writeEscaped($0, &out) }
    }

    static func writeEscaped(_ utf8: Span<UInt8>, _ out: inout ByteSink) {
        utf8.withUnsafeBufferPointer { writeEscaped($0, &out) }
    }

    /// Quotes and escapes UTF-8 bytes: runs without escapes are copied whole. (A pointer, to read eight bytes at a
    /// time.)
    static func writeEscaped(_ buf: UnsafeBufferPointer<UInt8>, _ out: inout ByteSink) {
        out.reserve(buf.count + 2)
        out.byte(0x22)
        var runStart = 0
        var i = 0
        let n = buf.count
        while i < n {
            // Eight bytes at a time while none needs escaping (a quote, a backslash or a control character).
            while n - i >= 8 {
                let w = UnsafeRawPointer(buf.baseAddress! + i).loadUnaligned(as: UInt64.self)
                let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
                let quote = w ^ 0x2222_2222_2222_2222, backslash = w ^ 0x5C5C_5C5C_5C5C_5C5C
                let special = ((w &- 0x2020_2020_2020_2020) & ~w & high)
                    | ((quote &- ones) & ~quote & high) | ((backslash &- ones) & ~backslash & high)
                if special != 0 { break }
                i += 8
            }
            guard i < n else { break }
            let c = buf[i]
            i += 1
            guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
            if runStart < i - 1 { out.bytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buf)[runStart..<(i - 1)])) }
            runStart = i
            switch c {
            case 0x22: out.byte(0x5C); out.byte(0x22)
            case 0x5C: out.byte(0x5C); out.byte(0x5C)
            case 0x08: out.byte(0x5C); out.byte(UInt8(ascii: "b"))
            case 0x0C: out.byte(0x5C); out.byte(UInt8(ascii: "f"))
            case 0x0A: out.byte(0x5C); out.byte(UInt8(ascii: "n"))
            case 0x0D: out.byte(0x5C); out.byte(UInt8(ascii: "r"))
            case 0x09: out.byte(0x5C); out.byte(UInt8(ascii: "t"))
            default:
                out.ascii("\\u00"); out.byte(hex[Int(c >> 4)]); out.byte(hex[Int(c & 0xF)])
            }
        }
        if runStart < buf.count { out.bytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buf)[runStart..<buf.count])) }
        out.byte(0x22)
    }
}

/// A growable byte buffer for the writer: appends without Array's per-call uniqueness and capacity bookkeeping.
/// Owned by one `bytes`/`write` call, which releases it. Spans and arrays are appended, and the text lent, through
/// the conversions here.
struct ByteSink {
    var base: UnsafeMutablePointer<UInt8>
    var count = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = malloc(self.capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always) mutating func reserve(_ n: Int) { if count + n > capacity { grow(count + n) } }

    mutating func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        base = realloc(base, c)!.assumingMemoryBound(to: UInt8.self)
        capacity = c
    }

    @inline(__always) mutating func byte(_ b: UInt8) {
        if count == capacity { grow(count + 1) }
        base[count] = b
        count += 1
    }

    @inline(__always) mutating func bytes(_ p: UnsafeRawBufferPointer) {
        guard let src = p.baseAddress, p.count > 0 else { return }
        reserve(p.count)
        memcpy(base + count, src, p.count)
        count += p.count
    }

    @inline(__always) mutating func bytes(_ s: Span<UInt8>) { s.withUnsafeBytes { bytes($0) } }
    @inline(__always) mutating func bytes(_ a: [UInt8]) { a.withUnsafeBytes { bytes($0) } }

    /// Lends the bytes written so far.
    func withSpan<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count).span)
    }

    /// A copy of the bytes written so far.
    var array: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

    /// Appends the bytes written so far to `out`.
    func append(to out: inout [UInt8]) { out.append(contentsOf: UnsafeBufferPointer(start: base, count: count)) }

    mutating func ascii(_ s: StaticString) { s.withUTF8Buffer { bytes(UnsafeRawBufferPointer($0)) } }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }

    func release() { free(base) }
}

extension JSON {
    /// Compact JSON text (for messages and tests).
    public var compactText: String { (try? JSONWriter().string(self)) ?? "<unwritable>" }
}
