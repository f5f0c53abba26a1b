import Foundation
import Schemas

/// Money as the build reads it: an exact decimal, never a binary double, and never a guess.
///
/// Text (CSV cells, price strings): an optional `-`, an optional `$`, then digits with an optional `.` and fraction.
/// A comma is read only as a thousands separator between groups of three digits before the point: `1,299.00` is
/// 1299. Text a reader could take two ways is an error: `12,99` and `,99` (a decimal comma?), `1,2345`, `1,,000` and
/// `1234,567` (misplaced separators), `1.234,56`, `1 299`, `(12.00)`, `1.2E+05` (a spreadsheet's rounded display) and
/// other currencies' symbols.
///
/// An amount must be one `Decimal` carries exactly: at most 38 significant digits, no digit past the 128th decimal
/// place, and below 10^165. Anything else is an input error rather than a rounded or NaN value.
enum Money {
    /// What is wrong with a value; the caller adds file, line and field.
    struct Problem: Error, CustomStringConvertible, Equatable {
        let message: String
        var description: String { message }
    }

    static let maxSignificantDigits = 38
    static let maxDecimalPlaces = 128
    /// Amounts are below 10^165 (Decimal's largest is about 3.4 × 10^165).
    static let maxWholeDigits = 165

    /// Money text → exact amount. Surrounding spaces are ignored; callers decide what counts as missing before this.
    static func parse(_ text: String) throws -> Decimal {
        let n = try digits(text, currency: true, exponent: false)
        return try decimal(n, text)
    }

    /// A JSON number used as money (a price in JSON Lines), kept as its literal: checked to be one an exact decimal
    /// carries; true when it is below zero. No Decimal is made (100,000 prices are checked per build), and a plain
    /// literal of at most 38 characters cannot break a limit, so it is not even taken apart.
    static func check(_ number: JSONNumber) throws -> Bool {
        let text = number.description
        // -?digits(.digits)? in one pass: digits around at most one point (NaN, inf and exponents take the long way).
        let u = text.utf8
        let body = u.first == UInt8(ascii: "-") ? u.dropFirst() : u[...]
        let plain = body.first.map(isDigit) == true && body.last.map(isDigit) == true
            && body.allSatisfy { isDigit($0) || $0 == UInt8(ascii: ".") } && body.lazy.filter { $0 == UInt8(ascii: ".") }.count <= 1
        if u.count <= maxSignificantDigits, plain {
            return text.hasPrefix("-") && text.utf8.contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
        }
        return try normal(number).negative
    }

    /// A JSON number (a configured amount or bound) as the exact Decimal of its literal, or why there is none.
    static func decimal(_ number: JSONNumber) throws -> Decimal {
        try decimal(normal(number), number.description)
    }

    static func normal(_ number: JSONNumber) throws -> Normal {
        let text = number.description
        guard let n = Normal(literal: text) else { throw Problem(message: "\(quote(text)) is not a finite number") }
        try checkLimits(n, text)
        return n
    }

    /// A plain number in text (no currency; an exponent allowed) with the same comma rule, as a Double: for quantities
    /// such as acreage that are not money but are written in the same cells.
    static func quantity(_ text: String) throws -> Double {
        let n = try digits(text, currency: false, exponent: true)
        guard let d = Double(n.plainText), d.isFinite else { throw Problem(message: "\(quote(text)) is out of range") }
        return d
    }

    // MARK: Reading

    /// A value as sign, significant digits (no leading or trailing zeros; none for zero) and the power of ten of the
    /// last digit: 12.50 is (false, "125", -1).
    struct Normal: Equatable {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0

        init(negative: Bool, whole: some Collection<UInt8>, fraction: some Collection<UInt8>, exponent: Int = 0) {
            var all = Array(whole); all += fraction
            var e = exponent - fraction.count
            while let last = all.last, last == 0x30 { all.removeLast(); e += 1 }
            let first = all.firstIndex { $0 != 0x30 } ?? all.endIndex
            digits = Array(all[first...])
            self.exponent = digits.isEmpty ? 0 : e
            self.negative = negative && !digits.isEmpty
        }

        /// A JSON number literal (`-?int(.frac)?([eE][+-]?digits)?`); nil for anything else.
        init?(literal t: String) {
            var b = Array(t.utf8)[...]
            var negative = false
            if b.first == UInt8(ascii: "-") { negative = true; b = b.dropFirst() }
            let e = b.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            let mantissa = b[..<(e ?? b.endIndex)]
            var exponent = 0
            if let e {
                var x = b[(e + 1)...]
                var sign = 1
                if x.first == UInt8(ascii: "-") || x.first == UInt8(ascii: "+") { sign = x.first == UInt8(ascii: "-") ? -1 : 1; x = x.dropFirst() }
                // An exponent of more than six digits is not money; stop before Int overflow or a huge digit string.
                guard !x.isEmpty, x.count <= 6, x.allSatisfy(Money.isDigit), let v = Int(String(decoding: x, as: UTF8.self)) else { return nil }
                exponent = sign * v
            }
            let parts = mantissa.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard parts.count <= 2, !parts[0].isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Money.isDigit) }) else { return nil }
            self.init(negative: negative, whole: parts[0], fraction: parts.count == 2 ? parts[1] : [], exponent: exponent)
        }

        /// Plain decimal text: `-1234.5`, `0`, `1000` (no exponent).
        var plainText: String {
            if digits.isEmpty { return "0" }
            var s = negative ? "-" : ""
            if exponent >= 0 {
                s += String(decoding: digits, as: UTF8.self) + String(repeating: "0", count: exponent)
            } else if -exponent >= digits.count {
                s += "0." + String(repeating: "0", count: -exponent - digits.count) + String(decoding: digits, as: UTF8.self)
            } else {
                let point = digits.count + exponent
                s += String(decoding: digits[..<point], as: UTF8.self) + "." + String(decoding: digits[point...], as: UTF8.self)
            }
            return s
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// Text → normal form, under the comma rule; `currency` allows a `$`, `exponent` allows `e±n` after the digits.
    static func digits(_ text: String, currency: Bool, exponent allowExponent: Bool) throws -> Normal {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func fail(_ why: String) -> Problem { Problem(message: "\(quote(text)) \(why)") }
        if t.isEmpty { throw Problem(message: "is empty") }
        if t.hasPrefix("("), t.hasSuffix(")") { throw fail("is in parentheses (an accounting negative?); write a minus sign instead") }
        var s = Substring(t)
        var negative = false, dollar = false
        // Prefix: `-`, `$`, `-$` or `$-`, then optional spaces after the `$`.
        while let c = s.first, c == "-" || (c == "$" && currency) {
            if c == "-" { if negative { break }; negative = true } else { if dollar { break }; dollar = true }
            s = s.dropFirst()
            if dollar { s = s.drop { $0 == " " } }
        }
        var body = s, exponentText: Substring = ""
        if allowExponent, let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponentText = body[body.index(after: e)...]; body = body[..<e]
        }
        let notMoney = currency ? "is not an amount of money (expected a number such as 1299.00 or $1,299.00)" : "is not a number"
        let other = body.unicodeScalars.filter { !($0.isASCII && (isDigit(UInt8($0.value)) || $0 == "," || $0 == ".")) }
        if !other.isEmpty {
            // The most telling reason first: another currency, scientific notation, any other text, a space.
            if other.contains(where: { $0 != "$" && $0.properties.generalCategory == .currencySymbol }) {
                throw fail(currency ? "is not in dollars (only $ amounts are read)" : "is not a plain number")
            }
            if body.first?.isASCIIDigit == true, body.range(of: #"^[\d.,]+[eE][+-]?\d+$"#, options: .regularExpression) != nil {
                throw fail("is in scientific notation (a spreadsheet's rounded display?); write the amount in full")
            }
            if other.allSatisfy(\.properties.isWhitespace) { throw fail("has a space inside the number; write it without (1299.00 or 1,299.00)") }
            throw fail(notMoney)
        }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 2 { throw fail("has more than one decimal point") }
        let whole = parts[0], fraction = parts.count == 2 ? parts[1] : ""
        if fraction.contains(",") { throw fail("has an ambiguous decimal comma; write 1234.56 (a point before the cents)") }
        if whole.contains(",") {
            let groups = whole.split(separator: ",", omittingEmptySubsequences: false)
            let grouped = (1...3).contains(groups[0].count) && groups.dropFirst().allSatisfy { $0.count == 3 }
            if !grouped {
                if groups.count == 2, parts.count == 1, (1...2).contains(groups[1].count) {
                    throw fail("has an ambiguous decimal comma; write \(groups[0].isEmpty ? "0" : String(groups[0])).\(groups[1]) for a decimal, or group thousands in threes (1,299)")
                }
                throw fail("has a misplaced thousands separator (commas go between groups of three digits: 1,299 or 12,345.67)")
            }
        }
        let wholeDigits = whole.utf8.filter { $0 != UInt8(ascii: ",") }
        if wholeDigits.isEmpty || (parts.count == 2 && fraction.isEmpty) { throw fail(notMoney) }
        var exponent = 0
        if !exponentText.isEmpty || body.endIndex != s.endIndex {
            var x = exponentText
            var sign = 1
            if let f = x.first, f == "-" || f == "+" { sign = f == "-" ? -1 : 1; x = x.dropFirst() }
            guard !x.isEmpty, x.count <= 4, x.utf8.allSatisfy(isDigit), let v = Int(x) else { throw fail(notMoney) }
            exponent = sign * v
        }
        return Normal(negative: negative, whole: wholeDigits, fraction: Array(fraction.utf8), exponent: exponent)
    }

    /// The exact Decimal of a normal form, or why there is none.
    static func decimal(_ n: Normal, _ original: String) throws -> Decimal {
        try checkLimits(n, original)
        if n.digits.isEmpty { return 0 }
        // Decimal reads exponents up to 127 from text; a larger one moves into the significand as zeros (at most 38 digits).
        var digits = n.digits, e = n.exponent
        if e > 127 { digits += [UInt8](repeating: 0x30, count: e - 127); e = 127 }
        let text = (n.negative ? "-" : "") + String(decoding: digits, as: UTF8.self) + "e\(e)"
        // Checked back against the digits read: a Decimal that differs is an error, never a silently rounded amount.
        guard let d = Decimal(string: text, locale: posix), !d.isNaN, ExactDecimal(exactly: d) == ExactDecimal(n) else {
            throw Problem(message: "\(quote(original)) cannot be carried exactly")
        }
        return d
    }

    /// At most 38 significant digits, none past the 128th decimal place, below 10^165: what Decimal holds exactly.
    static func checkLimits(_ n: Normal, _ original: String) throws {
        if n.digits.count > maxSignificantDigits {
            throw Problem(message: "\(quote(original)) has \(n.digits.count) significant digits; money is carried exactly up to \(maxSignificantDigits)")
        }
        if n.exponent < -maxDecimalPlaces {
            throw Problem(message: "\(quote(original)) has digits past the \(maxDecimalPlaces)th decimal place, which money cannot carry exactly")
        }
        if n.digits.count + n.exponent > maxWholeDigits {
            throw Problem(message: "\(quote(original)) is too large to carry exactly (money must be below 10^\(maxWholeDigits))")
        }
    }

    static let posix = Locale(identifier: "en_US_POSIX")

    /// A short, escaped excerpt of input for messages: at most 40 characters, control characters as \u{…}.
    static func quote(_ s: String) -> String {
        var out = "\""
        for (i, c) in s.unicodeScalars.enumerated() {
            if i == 40 { out += "…"; break }
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if c.properties.generalCategory == .control || c.properties.generalCategory == .format || c.value == 0x2028 || c.value == 0x2029 {
                    out += "\\u{\(String(c.value, radix: 16))}"
                } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }
}
