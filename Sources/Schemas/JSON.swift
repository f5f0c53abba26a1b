import Foundation

/// A JSON value. Objects keep their members in declared order (the writer emits them in
/// that order); numbers keep their precision (see `JSONNumber`).
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    // Convenience constructors used by every emitter.
    public static func int(_ v: Int) -> JSON { .number(JSONNumber(v)) }
    public static func double(_ v: Double) -> JSON { .number(JSONNumber(v)) }
    public static func optional(_ v: String?) -> JSON { v.map(JSON.string) ?? .null }
    public static func optional(_ v: Double?) -> JSON { v.map(JSON.double) ?? .null }
    public static func optional(_ v: Int?) -> JSON { v.map(JSON.int) ?? .null }
    public static func strings(_ v: [String]) -> JSON { .array(v.map(JSON.string)) }
    /// An object built from ordered key/value pairs.
    public static func obj(_ pairs: KeyValuePairs<String, JSON>) -> JSON {
        .object(JSONObject(pairs.map { JSONObject.Member(key: $0.key, value: $0.value) }))
    }

    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    public subscript(index: Int) -> JSON? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var numberValue: JSONNumber? { if case .number(let n) = self { return n }; return nil }
    public var doubleValue: Double? { numberValue?.double }
    public var intValue: Int? { numberValue?.int }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// The JSON type name as JSON Schema spells it ("integer" for whole numbers).
    /// JSON equality: numbers by value (1.0 == 1), objects whatever their key order, and strings by Unicode code
    /// points (Swift's String == would equate canonically equivalent strings, which JSON does not).
    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        default: return false
        }
    }

    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let n): return n.isInteger ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// A JSON object: members in insertion order. Lookup is linear for small objects and
/// goes through a lazily built hash index for large ones.
public struct JSONObject: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSON
        public init(key: String, value: JSON) { self.key = key; self.value = value }
    }
    public private(set) var members: [Member]

    public init(_ members: [Member] = []) { self.members = members }
    public init(_ pairs: [(String, JSON)]) { self.members = pairs.map { Member(key: $0.0, value: $0.1) } }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    public subscript(key: String) -> JSON? {
        get {
            for m in members where m.key == key { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let v = newValue { members[i].value = v } else { members.remove(at: i) }
            } else if let v = newValue {
                members.append(Member(key: key, value: v))
            }
        }
    }

    public mutating func append(_ key: String, _ value: JSON) { members.append(Member(key: key, value: value)) }

    /// Objects are equal when they have the same keys with equal values, whatever the order
    /// (JSON semantics; byte identity is the writer's business).
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        if a.members.map(\.key) == b.members.map(\.key) {
            return zip(a.members, b.members).allSatisfy { $0.value == $1.value }
        }
        var lookup = [String: JSON](minimumCapacity: b.members.count)
        for m in b.members { lookup[m.key] = m.value }
        return a.members.allSatisfy { lookup[$0.key] == $0.value }
    }
}

/// A JSON number that keeps its precision: integers stay integers, doubles are written
/// in the shortest form that round-trips, and numbers read from text keep their text
/// (so `12345678901234567890` or `0.1` survive a read/write cycle unchanged).
public struct JSONNumber: Sendable, CustomStringConvertible {
    enum Storage: Sendable { case int(Int), double(Double), text(String) }
    let storage: Storage

    public init(_ v: Int) { storage = .int(v) }
    public init(_ v: Double) {
        // Whole doubles within the exactly representable range are stored as integers,
        // so 349.0 is written "349" and compares equal to 349.
        if v.isFinite, v == v.rounded(), abs(v) < 9.007199254740992e15 { storage = .int(Int(v)) }
        else { storage = .double(v) }
    }
    /// `text` must be a valid JSON number literal (the reader guarantees it).
    public init(literal text: String) {
        if let i = Int(text) { storage = .int(i) } else { storage = .text(text) }
    }
    /// An exact decimal, written from its decimal text (never through a binary double).
    public init(_ d: Decimal) {
        var d = d
        var rounded = Decimal()
        NSDecimalRound(&rounded, &d, 0, .plain)
        if rounded == d, let i = Int(exactly: NSDecimalNumber(decimal: d).int64Value), Decimal(i) == d { storage = .int(i) }
        else { storage = .text(JSONNumber.canonicalDecimalText(d)) }
    }

    static func canonicalDecimalText(_ d: Decimal) -> String {
        // Decimal.description gives plain notation ("499000.1", "-0.005"), locale-free.
        return d.description
    }

    public var isFinite: Bool {
        if case .double(let d) = storage { return d.isFinite }
        return true
    }

    public var double: Double {
        switch storage {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .text(let t): return Double(t) ?? .nan
        }
    }

    /// The value as Int when it is a whole number that fits.
    public var int: Int? {
        switch storage {
        case .int(let i): return i
        case .double(let d): return d == d.rounded() && abs(d) < 9.2e18 ? Int(d) : nil
        case .text:
            let dec = decimal
            var r = Decimal(), m = dec
            NSDecimalRound(&r, &m, 0, .plain)
            guard r == dec else { return nil }
            return Int(exactly: NSDecimalNumber(decimal: dec).int64Value).flatMap { Decimal($0) == dec ? $0 : nil }
        }
    }

    /// Exact decimal value (for integers and literal text; doubles go through their shortest text).
    public var decimal: Decimal {
        switch storage {
        case .int(let i): return Decimal(i)
        case .double: return Decimal(string: description, locale: JSONNumber.posix) ?? JSONNumber.decimalOrNaN(double)
        case .text(let t): return Decimal(string: t, locale: JSONNumber.posix) ?? JSONNumber.decimalOrNaN(double)
        }
    }
    private static let posix = Locale(identifier: "en_US_POSIX")
    /// Beyond Decimal's range (e.g. 1e400) there is no Decimal value: NaN, which callers check (Decimal(.infinity) traps).
    private static func decimalOrNaN(_ d: Double) -> Decimal { d.isFinite ? Decimal(d) : .nan }

    /// True when the value is mathematically a whole number (1.0 is an integer in JSON Schema).
    public var isInteger: Bool {
        switch storage {
        case .int: return true
        case .double(let d): return d.isFinite && d == d.rounded()
        case .text(let t):
            if !t.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return true }
            // Whole when the last significant digit is at or above the units place (exact at any magnitude).
            let n = Normalized(t)
            return n.digits.isEmpty || n.digits.count - 1 <= n.exponent
        }
    }

    /// The JSON text of this number.
    public var description: String {
        switch storage {
        case .int(let i): return String(i)
        case .double(let d): return JSONNumber.format(d)
        case .text(let t): return t
        }
    }

    /// Shortest round-trip text of a finite double, without a trailing ".0".
    static func format(_ d: Double) -> String {
        // Swift prints the shortest representation that round-trips; ".0" is dropped, also before an exponent.
        // (Edited as bytes: Character searches cost more than the printing.)
        var b = Array(d.description.utf8)
        if let e = b.firstIndex(of: UInt8(ascii: "e")) {
            if e >= 2, b[e - 1] == UInt8(ascii: "0"), b[e - 2] == UInt8(ascii: ".") { b.removeSubrange(e - 2..<e) }
        } else if b.count >= 2, b[b.count - 1] == UInt8(ascii: "0"), b[b.count - 2] == UInt8(ascii: ".") {
            b.removeLast(2)
        }
        return String(decoding: b, as: UTF8.self)
    }
}

extension JSONNumber: Equatable, Comparable {
    public static func == (a: JSONNumber, b: JSONNumber) -> Bool {
        switch (a.storage, b.storage) {
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        default:
            if case .text = a.storage {} else if case .text = b.storage {} else { return a.double == b.double }
            return exactOrder(a, b) == 0
        }
    }
    public static func < (a: JSONNumber, b: JSONNumber) -> Bool {
        switch (a.storage, b.storage) {
        case (.int(let x), .int(let y)): return x < y
        case (.text, _), (_, .text):
            // Rounding to the nearest double never reverses an order, so two different doubles order their exact
            // values the same way; only a tie (or a value beyond Double) needs the exact, slower order of the digits.
            let x = a.double, y = b.double
            if x.isFinite, y.isFinite, x != y { return x < y }
            return exactOrder(a, b) < 0
        default: return a.double < b.double
        }
    }

    /// Exact order of two numbers from their JSON text (any magnitude, no Decimal or Double range): −1, 0 or 1.
    static func exactOrder(_ a: JSONNumber, _ b: JSONNumber) -> Int {
        let x = Normalized(a.description), y = Normalized(b.description)
        if x.negative != y.negative { return x.negative ? -1 : 1 }
        let magnitude = Normalized.compareMagnitude(x, y)
        return x.negative ? -magnitude : magnitude
    }

    /// A number literal as sign, significant digits (no leading or trailing zeros) and the power of ten of the first
    /// digit; zero has no digits.
    struct Normalized {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0

        init(_ text: String) {
            var bytes = Array(text.utf8)[...]
            if bytes.first == UInt8(ascii: "-") { negative = true; bytes = bytes.dropFirst() }
            var mantissa: [UInt8] = [], pointAt: Int?, exp = 0
            var i = bytes.startIndex
            while i < bytes.endIndex, bytes[i] != UInt8(ascii: "e"), bytes[i] != UInt8(ascii: "E") {
                if bytes[i] == UInt8(ascii: ".") { pointAt = mantissa.count } else { mantissa.append(bytes[i]) }
                i += 1
            }
            if i < bytes.endIndex { exp = Int(String(decoding: bytes[(i + 1)...], as: UTF8.self).replacingOccurrences(of: "+", with: "")) ?? 0 }
            let intDigits = pointAt ?? mantissa.count
            guard let first = mantissa.firstIndex(where: { $0 != UInt8(ascii: "0") }) else { negative = false; return }
            let last = mantissa.lastIndex(where: { $0 != UInt8(ascii: "0") })!
            digits = Array(mantissa[first...last])
            exponent = intDigits - first - 1 + exp
        }

        static func compareMagnitude(_ x: Normalized, _ y: Normalized) -> Int {
            if x.digits.isEmpty || y.digits.isEmpty { return x.digits.isEmpty ? (y.digits.isEmpty ? 0 : -1) : 1 }
            if x.exponent != y.exponent { return x.exponent < y.exponent ? -1 : 1 }
            for (p, q) in zip(x.digits, y.digits) where p != q { return p < q ? -1 : 1 }
            return x.digits.count == y.digits.count ? 0 : (x.digits.count < y.digits.count ? -1 : 1)
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// Dictionary literals keep their written order.
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}
