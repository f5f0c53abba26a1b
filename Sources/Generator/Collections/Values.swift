import Foundation
import Schemas

/// Converts one input value to its declared type. Input is either JSON (from JSON / JSON Lines sources) or text
/// (CSV cells); the result is the JSON written to the tree. A value that does not fit throws a message naming the
/// expected type; the caller adds file, line and field.
enum CollectionValues {
    struct Mismatch: Error { let message: String }

    static func convert(_ raw: JSON, _ f: CollectionDeclaration.Field) throws -> JSON {
        switch f.type {
        case .string:
            guard case .string(let s) = raw else { throw Mismatch(message: "expected a string, found \(raw.typeName)") }
            return .string(s)
        case .enumeration:
            guard case .string(let s) = raw else { throw Mismatch(message: "expected one of \(f.values.joined(separator: ", ")), found \(raw.typeName)") }
            guard f.values.contains(s) else { throw Mismatch(message: "expected one of \(f.values.joined(separator: ", ")), found \(Excerpt.quote(s))") }
            return .string(s)
        case .url:
            guard case .string(let s) = raw, isAbsoluteURL(s) else { throw Mismatch(message: "expected an absolute http(s) URL, found \(describe(raw))") }
            return .string(s)
        case .boolean:
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
        case .integer:
            let d = try decimal(raw, what: "an integer")
            var r = Decimal(), m = d
            NSDecimalRound(&r, &m, 0, .plain)
            guard r == d, let i = Int(exactly: NSDecimalNumber(decimal: d).int64Value), Decimal(i) == d else {
                throw Mismatch(message: "expected an integer, found \(describe(raw))")
            }
            try checkRange(d, f)
            return .int(i)
        case .decimal:
            let d = try decimal(raw, what: "a decimal number")
            try checkRange(d, f)
            return .number(JSONNumber(d))
        case .number, .latitude, .longitude:
            let n: Double
            switch raw {
            case .number(let x): n = x.double
            case .string(let s):
                guard let x = Double(s.trimmingCharacters(in: .whitespaces)), x.isFinite else { throw Mismatch(message: "expected a number, found \(describe(raw))") }
                n = x
            default: throw Mismatch(message: "expected a number, found \(describe(raw))")
            }
            if f.type == .latitude, !(-90...90).contains(n) { throw Mismatch(message: "latitude \(JSONNumber(n)) is outside -90…90") }
            if f.type == .longitude, !(-180...180).contains(n) { throw Mismatch(message: "longitude \(JSONNumber(n)) is outside -180…180") }
            if f.type == .number {
                let dn = Decimal(string: JSONNumber(n).description, locale: Locale(identifier: "en_US_POSIX")) ?? 0
                try checkRange(dn, f)
            }
            // From JSON, keep the number's own text (no change through a double); from CSV, its shortest form.
            if case .number(let x) = raw { return .number(x) }
            return .double(n)
        case .date:
            guard case .string(let s) = raw, let (y, m, d) = parseDate(Substring(s)), s.count == 10 else {
                throw Mismatch(message: "expected a date YYYY-MM-DD, found \(describe(raw))")
            }
            return .string(String(format: "%04d-%02d-%02d", y, m, d))
        case .dateTime:
            guard case .string(let s) = raw, let iso = normaliseDateTime(s, zone: f.timeZone) else {
                throw Mismatch(message: "expected a date-time (ISO-8601 with Z or an offset, optionally with fractional seconds, or YYYY-MM-DD HH:MM:SS), found \(describe(raw))")
            }
            return .string(iso)
        case .stringArray:
            switch raw {
            case .array(let a):
                return .array(try a.map { v in
                    guard case .string(let s) = v else { throw Mismatch(message: "expected an array of strings, found an element of type \(v.typeName)") }
                    return .string(s)
                })
            case .string(let s):
                return .strings(s.components(separatedBy: f.separator).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            default: throw Mismatch(message: "expected an array of strings, found \(raw.typeName)")
            }
        }
    }

    static func describe(_ v: JSON) -> String {
        switch v {
        case .string(let s): return Excerpt.quote(s)
        case .number(let n): return Excerpt.text(n.description)
        default: return v.typeName
        }
    }

    /// An exact decimal from a JSON number's text or a CSV cell (`1234.50`, `-3`, `1,234.50` is refused: ambiguous
    /// across locales). Never goes through a binary double.
    static func decimal(_ raw: JSON, what: String) throws -> Decimal {
        let text: String
        switch raw {
        case .number(let n): text = n.description
        case .string(let s): text = s.trimmingCharacters(in: .whitespaces)
        default: throw Mismatch(message: "expected \(what), found \(raw.typeName)")
        }
        guard isDecimalText(text) else { throw Mismatch(message: "expected \(what), found \(describe(raw))") }
        guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !d.isNaN else {
            throw Mismatch(message: "expected \(what), found \(describe(raw))")
        }
        return d
    }

    /// `-?digits(.digits)?(e±digits)?` with at most 38 significant digits (what Decimal holds exactly).
    static func isDecimalText(_ t: String) -> Bool {
        var u = Substring(t)
        if u.first == "-" || u.first == "+" { u = u.dropFirst() }
        var mantissa = u, exponent: Substring = ""
        if let e = u.firstIndex(where: { $0 == "e" || $0 == "E" }) { mantissa = u[..<e]; exponent = u[u.index(after: e)...] }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              parts.count == 1 || !parts[1].isEmpty else { return false }
        if !exponent.isEmpty {
            var ex = exponent
            if ex.first == "-" || ex.first == "+" { ex = ex.dropFirst() }
            guard !ex.isEmpty, ex.count <= 3, ex.allSatisfy(\.isASCIIDigit) else { return false }
        } else if u.contains(where: { $0 == "e" || $0 == "E" }) { return false }
        let digits = parts.joined().drop { $0 == "0" }
        return digits.count <= 38
    }

    static func checkRange(_ d: Decimal, _ f: CollectionDeclaration.Field) throws {
        if let min = f.minimum, d < min { throw Mismatch(message: "\(d) is below the declared minimum \(min)") }
        if let max = f.maximum, d > max { throw Mismatch(message: "\(d) is above the declared maximum \(max)") }
    }

    static func isAbsoluteURL(_ s: String) -> Bool {
        guard !s.contains(where: { $0 == " " || $0.isNewline }), let c = URLComponents(string: s),
              let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = c.host, !host.isEmpty else { return false }
        return true
    }

    // MARK: Dates

    static func parseDate(_ s: Substring) -> (Int, Int, Int)? {
        let p = s.split(separator: "-", omittingEmptySubsequences: false)
        guard p.count == 3, p[0].count == 4, p[1].count == 2, p[2].count == 2,
              let y = Int(p[0]), let m = Int(p[1]), let d = Int(p[2]), (1...12).contains(m), d >= 1, d <= daysIn(y, m) else { return nil }
        return (y, m, d)
    }

    static func daysIn(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (proleptic Gregorian), exact for any year.
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// Accepts `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM|±HHMM)` and `YYYY-MM-DD HH:MM:SS[.fff]` (in `zone`), and writes
    /// ISO-8601 UTC with a `Z`: `2025-12-24T17:30:00Z`, keeping fractional seconds only when they are not zero.
    static func normaliseDateTime(_ s: String, zone: TimeZone) -> String? {
        let chars = Array(s)
        guard chars.count >= 19, let (y, mo, d) = parseDate(Substring(String(chars[0..<10]))),
              chars[10] == "T" || chars[10] == " " || chars[10] == "t",
              chars[13] == ":", chars[16] == ":",
              let h = Int(String(chars[11..<13])), let mi = Int(String(chars[14..<16])), let sec = Int(String(chars[17..<19])),
              String(chars[11..<13]).allSatisfy(\.isASCIIDigit), String(chars[14..<16]).allSatisfy(\.isASCIIDigit),
              String(chars[17..<19]).allSatisfy(\.isASCIIDigit),
              h <= 23, mi <= 59, sec <= 59 else { return nil }
        var i = 19
        var fraction = ""
        if i < chars.count, chars[i] == "." {
            i += 1
            while i < chars.count, chars[i].isASCIIDigit { fraction.append(chars[i]); i += 1 }
            if fraction.isEmpty { return nil }
        }
        var offsetSeconds: Int
        if i == chars.count {
            // No offset: a wall-clock time in the declared zone (MySQL style), resolved with the zone's rules.
            let local = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec
            var guess = local - zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local)))
            guess = local - zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(guess)))
            offsetSeconds = local - guess
        } else if chars[i] == "Z" || chars[i] == "z" {
            guard i + 1 == chars.count else { return nil }
            offsetSeconds = 0
        } else if chars[i] == "+" || chars[i] == "-" {
            let sign = chars[i] == "-" ? -1 : 1
            let rest = String(chars[(i + 1)...]).replacingOccurrences(of: ":", with: "")
            guard rest.count == 4, rest.allSatisfy(\.isASCIIDigit), let oh = Int(rest.prefix(2)), let om = Int(rest.suffix(2)), oh <= 23, om <= 59 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        } else { return nil }
        let utc = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offsetSeconds
        let base = ISODate.format(epochSeconds: utc)
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? base : String(base.dropLast()) + "." + fraction + "Z"
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
