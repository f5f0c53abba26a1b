import Foundation

/// Dates and date-times of collection fields, parsed by hand and moved to UTC with day arithmetic that is exact for
/// any year.
extension CollectionValues {
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
