import Foundation

/// `format` checks, used when format assertion is on (draft 2020-12 treats format as an annotation by default).
enum Formats {
    static func check(_ format: String, _ s: String) -> Bool {
        switch format {
        case "date-time": return dateTime(s)
        case "date": return date(s)
        case "time": return time(s)
        case "duration": return duration(s)
        case "email", "idn-email": return email(s)
        case "hostname": return hostname(s, ascii: true)
        case "idn-hostname": return hostname(s, ascii: false)
        case "ipv4": return ipv4(s)
        case "ipv6": return ipv6(s)
        case "uri", "iri": return uri(s, absolute: true, iri: format == "iri")
        case "uri-reference", "iri-reference": return uri(s, absolute: false, iri: format == "iri-reference")
        case "uuid": return matches(s, "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        case "regex": return (try? NSRegularExpression(pattern: ECMARegex.translate(s))) != nil
        case "json-pointer": return jsonPointer(s)
        case "relative-json-pointer": return relativePointer(s)
        case "uri-template": return !s.contains(" ") && balancedBraces(s)
        default: return true   // unknown formats are annotations only
        }
    }

    static var cache: [String: NSRegularExpression] = [:]
    static let lock = NSLock()
    static func matches(_ s: String, _ pattern: String) -> Bool {
        lock.lock()
        let r = cache[pattern] ?? (try! NSRegularExpression(pattern: pattern))
        cache[pattern] = r
        lock.unlock()
        return r.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
    }

    static func date(_ s: String) -> Bool {
        guard matches(s, #"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"#) else { return false }
        let p = s.split(separator: "-").map { Int($0)! }
        guard (1...12).contains(p[1]), p[2] >= 1 else { return false }
        let leap = (p[0] % 4 == 0 && p[0] % 100 != 0) || p[0] % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][p[1] - 1]
        return p[2] <= days
    }

    static func time(_ s: String) -> Bool {
        guard matches(s, #"^([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([zZ]|[+-][0-9]{2}:[0-9]{2})$"#) else { return false }
        let c = Array(s)
        let h = Int(String(c[0...1]))!, m = Int(String(c[3...4]))!, sec = Int(String(c[6...7]))!
        guard h <= 23, m <= 59, sec <= 60 else { return false }
        var offH = 0, offM = 0, sign = 1
        if let i = s.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            sign = s[i] == "-" ? -1 : 1
            let off = s[s.index(after: i)...].split(separator: ":")
            offH = Int(off[0])!; offM = Int(off[1])!
            guard offH <= 23, offM <= 59 else { return false }
        }
        if sec == 60 {
            // A leap second is only at 23:59:60 UTC.
            let utcMinutes = ((h * 60 + m - sign * (offH * 60 + offM)) % 1440 + 1440) % 1440
            return utcMinutes == 23 * 60 + 59
        }
        return true
    }

    static func dateTime(_ s: String) -> Bool {
        guard let t = s.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return false }
        return date(String(s[..<t])) && time(String(s[s.index(after: t)...]))
    }

    static func duration(_ s: String) -> Bool {
        matches(s, #"^P(?:(?:[0-9]+Y(?:[0-9]+M)?(?:[0-9]+D)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)(?:T(?:[0-9]+H(?:[0-9]+M)?(?:[0-9]+S)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?|T(?:[0-9]+H(?:[0-9]+M)?(?:[0-9]+S)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)|[0-9]+W)$"#)
    }

    static func email(_ s: String) -> Bool {
        guard let at = s.lastIndex(of: "@") else { return false }
        let local = s[..<at], domain = s[s.index(after: at)...]
        guard !local.isEmpty, !domain.isEmpty else { return false }
        if local.hasPrefix("\"") { guard local.hasSuffix("\""), local.count >= 2 else { return false } }
        else if local.hasPrefix(".") || local.hasSuffix(".") || local.contains("..") { return false }
        if domain.hasPrefix("[") { return domain.hasSuffix("]") && (ipv4(String(domain.dropFirst().dropLast())) || (domain.hasPrefix("[IPv6:") && ipv6(String(domain.dropFirst(6).dropLast())))) }
        return hostname(String(domain))
    }

    /// RFC 1123 host names (ASCII letters, digits, hyphens; labels of 1–63, 253 in all). IDNA rules for `xn--` labels
    /// and `idn-hostname` are not checked beyond that (a documented gap).
    static func hostname(_ s: String, ascii: Bool = true) -> Bool {
        if ascii && !s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x2E }) { return false }
        let h = s
        guard !h.isEmpty, h.utf8.count <= 253 else { return false }
        for label in h.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-") else { return false }
            if label.count >= 4, Array(label)[2...3] == ["-", "-"], !label.lowercased().hasPrefix("xn--") { return false }
            if !label.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { return false }
        }
        return true
    }

    static func ipv4(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in
            !p.isEmpty && p.count <= 3 && p.allSatisfy { ("0"..."9").contains($0) } && Int(p)! <= 255 && !(p.count > 1 && p.hasPrefix("0"))
        }
    }

    static func ipv6(_ s: String) -> Bool {
        guard !s.isEmpty, s.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        var groups = s
        var extra = 0
        if let lastColon = s.lastIndex(of: ":"), s[lastColon...].contains(".") {
            guard ipv4(String(s[s.index(after: lastColon)...])) else { return false }
            groups = String(s[...lastColon]) + "0:0"; extra = 0
        }
        let doubleColons = groups.components(separatedBy: "::").count - 1
        guard doubleColons <= 1 else { return false }
        let parts = groups.split(separator: ":", omittingEmptySubsequences: false)
        if doubleColons == 0 {
            return parts.count == 8 - extra && parts.allSatisfy { !$0.isEmpty && $0.count <= 4 }
        }
        let halves = groups.components(separatedBy: "::")
        let left = halves[0].isEmpty ? [] : halves[0].split(separator: ":", omittingEmptySubsequences: false)
        let right = halves[1].isEmpty ? [] : halves[1].split(separator: ":", omittingEmptySubsequences: false)
        return left.count + right.count <= 7 && (left + right).allSatisfy { !$0.isEmpty && $0.count <= 4 }
    }

    static func uri(_ s: String, absolute: Bool, iri: Bool) -> Bool {
        if s.contains(where: { $0 == " " || $0 == "\\" || $0 == "\"" || $0 == "<" || $0 == ">" || $0 == "^" || $0 == "`" || $0 == "{" || $0 == "}" || $0 == "|" }) { return false }
        if !iri && s.unicodeScalars.contains(where: { $0.value > 0x7E || $0.value < 0x21 }) { return false }
        // Percent signs must start %XX.
        let c = Array(s)
        for (i, ch) in c.enumerated() where ch == "%" {
            guard i + 2 < c.count, c[i + 1].isHexDigit, c[i + 2].isHexDigit else { return false }
        }
        let u = URIReference(s)
        if absolute && u.scheme == nil { return false }
        if let a = u.authority, a.contains("[") {
            guard let open = a.firstIndex(of: "["), let close = a.firstIndex(of: "]"), open < close else { return false }
            if !ipv6(String(a[a.index(after: open)..<close])) { return false }
        }
        if u.scheme == nil, let colon = u.path.firstIndex(of: ":"), !u.path[..<colon].contains("/") { return false }
        return true
    }

    static func jsonPointer(_ s: String) -> Bool {
        if s.isEmpty { return true }
        guard s.hasPrefix("/") else { return false }
        let c = Array(s)
        for (i, ch) in c.enumerated() where ch == "~" { guard i + 1 < c.count, c[i + 1] == "0" || c[i + 1] == "1" else { return false } }
        return true
    }

    static func relativePointer(_ s: String) -> Bool {
        let digits = s.prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty, !(digits.count > 1 && digits.hasPrefix("0")) else { return false }
        let rest = String(s.dropFirst(digits.count))
        return rest == "#" || jsonPointer(rest)
    }

    static func balancedBraces(_ s: String) -> Bool {
        var depth = 0
        for ch in s { if ch == "{" { depth += 1; if depth > 1 { return false } } else if ch == "}" { depth -= 1; if depth < 0 { return false } } }
        return depth == 0
    }
}
