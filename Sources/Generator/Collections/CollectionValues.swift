import Foundation
import Schemas

/// Converts one input value to its declared type. Input is either JSON (from JSON / JSON Lines sources) or text
/// (CSV cells); the result is the JSON written to the tree. A value that does not fit throws a message naming the
/// expected type; the caller adds file, line and field.
enum CollectionValues {
    struct Mismatch: Error { let message: String }

    /// `raw` as the field's declared type; a `Mismatch` naming the expected type when it does not fit.
    static func convert(_ raw: JSON, _ f: CollectionDeclaration.Field) throws -> JSON {
        switch f.type {
        case .string: return try string(raw)
        case .enumeration: return try enumeration(raw, values: f.values)
        case .url: return try url(raw)
        case .boolean: return try boolean(raw)
        case .integer: return try integer(raw, f)
        case .decimal: return try decimalNumber(raw, f)
        case .number, .latitude, .longitude: return try number(raw, f)
        case .date: return try date(raw)
        case .dateTime: return try dateTime(raw, zone: f.timeZone)
        case .stringArray: return try stringArray(raw, separator: f.separator)
        }
    }

    static func string(_ raw: JSON) throws -> JSON {
        guard case .string(let s) = raw else { throw Mismatch(message: "expected a string, found \(raw.typeName)") }
        return .string(s)
    }

    static func enumeration(_ raw: JSON, values: [String]) throws -> JSON {
        guard case .string(let s) = raw else { throw Mismatch(message: "expected one of \(values.joined(separator: ", ")), found \(raw.typeName)") }
        guard values.contains(s) else { throw Mismatch(message: "expected one of \(values.joined(separator: ", ")), found \(Excerpt.quote(s))") }
        return .string(s)
    }

    static func url(_ raw: JSON) throws -> JSON {
        guard case .string(let s) = raw, isAbsoluteURL(s) else { throw Mismatch(message: "expected an absolute http(s) URL, found \(describe(raw))") }
        return .string(s)
    }

    /// A JSON boolean, or text: true/yes/1, false/no/0 (any case).
    static func boolean(_ raw: JSON) throws -> JSON {
        switch raw {
        case .bool(let b): return .bool(b)
        case .string(let s):
            switch s.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: break
            }
        default: break
        }
        throw Mismatch(message: "expected a boolean (true/false, yes/no, 1/0), found \(describe(raw))")
    }

    /// A whole number that fits an Int, within the declared bounds.
    static func integer(_ raw: JSON, _ f: CollectionDeclaration.Field) throws -> JSON {
        let d = try decimal(raw, what: "an integer")
        var r = Decimal(), m = d
        NSDecimalRound(&r, &m, 0, .plain)
        guard r == d, let i = Int(exactly: NSDecimalNumber(decimal: d).int64Value), Decimal(i) == d else {
            throw Mismatch(message: "expected an integer, found \(describe(raw))")
        }
        try checkRange(ExactDecimal(i), shown: String(i), f)
        return .int(i)
    }

    /// An exact decimal (see `decimal(_:what:)`), within the declared bounds.
    static func decimalNumber(_ raw: JSON, _ f: CollectionDeclaration.Field) throws -> JSON {
        let d = try decimal(raw, what: "a decimal number")
        let n = JSONNumber(d)
        try checkRange(ExactDecimal(n), shown: n.description, f)
        return .number(n)
    }

    /// A finite double (`number`, `latitude` within ±90, `longitude` within ±180); a `number` within the declared bounds.
    static func number(_ raw: JSON, _ f: CollectionDeclaration.Field) throws -> JSON {
        let n: Double
        switch raw {
        case .number(let x):
            // A literal such as 1e400 is valid JSON but no double: readers would take it as infinity.
            guard x.double.isFinite else { throw Mismatch(message: "expected a number, found \(x) (beyond the range of a double)") }
            n = x.double
        case .string(let s):
            guard let x = Double(s.trimmingCharacters(in: .whitespaces)), x.isFinite else { throw Mismatch(message: "expected a number, found \(describe(raw))") }
            n = x
        default: throw Mismatch(message: "expected a number, found \(describe(raw))")
        }
        if f.type == .latitude, !(-90...90).contains(n) { throw Mismatch(message: "latitude \(JSONNumber(n)) is outside -90…90") }
        if f.type == .longitude, !(-180...180).contains(n) { throw Mismatch(message: "longitude \(JSONNumber(n)) is outside -180…180") }
        if f.type == .number {
            // Compared exactly (a Decimal has no 1e300: it used to compare as 0).
            let v: JSONNumber
            if case .number(let x) = raw { v = x } else { v = JSONNumber(n) }
            try checkRange(ExactDecimal(v), shown: v.description, f)
        }
        // From JSON, keep the number's own text (no change through a double); from CSV, its shortest form.
        if case .number(let x) = raw { return .number(x) }
        return .double(n)
    }

    static func date(_ raw: JSON) throws -> JSON {
        guard case .string(let s) = raw, let (y, m, d) = parseDate(Substring(s)), s.count == 10 else {
            throw Mismatch(message: "expected a date YYYY-MM-DD, found \(describe(raw))")
        }
        return .string(String(format: "%04d-%02d-%02d", y, m, d))
    }

    static func dateTime(_ raw: JSON, zone: TimeZone) throws -> JSON {
        guard case .string(let s) = raw, let iso = normaliseDateTime(s, zone: zone) else {
            throw Mismatch(message: "expected a date-time (ISO-8601 with Z or an offset, optionally with fractional seconds, or YYYY-MM-DD HH:MM:SS), found \(describe(raw))")
        }
        return .string(iso)
    }

    /// A JSON array of strings, or a CSV cell split at `separator` (each part trimmed, empty parts dropped).
    static func stringArray(_ raw: JSON, separator: String) throws -> JSON {
        switch raw {
        case .array(let a):
            return .array(try a.map { v in
                guard case .string(let s) = v else { throw Mismatch(message: "expected an array of strings, found an element of type \(v.typeName)") }
                return .string(s)
            })
        case .string(let s):
            return .strings(s.components(separatedBy: separator).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        default: throw Mismatch(message: "expected an array of strings, found \(raw.typeName)")
        }
    }

    static func describe(_ v: JSON) -> String {
        switch v {
        case .string(let s): return Excerpt.quote(s)
        case .number(let n): return Excerpt.text(n.description)
        default: return v.typeName
        }
    }

    /// An exact decimal from a JSON number's text or a CSV cell (`1234.50`, `-3`, `2.5e3`), within what Decimal carries
    /// exactly (the limits of `Money`). No separators: this is a data column, not money text, so `1,234.50` is
    /// refused too, with the reason (`12,99` an ambiguous decimal comma). Never goes through a binary double.
    static func decimal(_ raw: JSON, what: String) throws -> Decimal {
        let text: String
        switch raw {
        case .number(let n): text = n.description
        case .string(let s): text = s.trimmingCharacters(in: .whitespaces)
        default: throw Mismatch(message: "expected \(what), found \(raw.typeName)")
        }
        guard let n = Money.Normal(literal: text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
            if text.contains(",") {
                // Say why, in the money rule's words; a well-grouped `1,234.50` is still refused here.
                do {
                    let n = try Money.digits(text, currency: false, exponent: true)
                    throw Mismatch(message: "expected \(what), found \(describe(raw)): separators are not read in this column; write \(n.plainText)")
                } catch let e as Money.Problem { throw Mismatch(message: "expected \(what), found \(e)") }
            }
            throw Mismatch(message: "expected \(what), found \(describe(raw))")
        }
        do { return try Money.decimal(n, text) } catch { throw Mismatch(message: "expected \(what), found \(error)") }
    }

    static func checkRange(_ value: ExactDecimal, shown: String, _ f: CollectionDeclaration.Field) throws {
        if let min = f.minimum, let m = ExactDecimal(exactly: min), value < m { throw Mismatch(message: "\(shown) is below the declared minimum \(min)") }
        if let max = f.maximum, let m = ExactDecimal(exactly: max), m < value { throw Mismatch(message: "\(shown) is above the declared maximum \(max)") }
    }

    static func isAbsoluteURL(_ s: String) -> Bool {
        guard !s.contains(where: { $0 == " " || $0.isNewline }), let c = URLComponents(string: s),
              let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = c.host, !host.isEmpty else { return false }
        return true
    }
}
