import Foundation

/// Native matchers for patterns that output schemas apply to many distinct strings (a path per product, a hash per
/// file), where ICU's matcher costs microseconds a call and a memo of verdicts cannot help. Each matcher accepts
/// exactly the strings its pattern matches (tests compare them with ICU on every short string over an alphabet that
/// covers each branch, and on real paths); any other pattern goes through ICU.
enum KnownPatterns {
    typealias Matcher = @Sendable (UnsafeBufferPointer<UInt8>) -> Bool

    static func matcher(for source: String) -> Matcher? {
        switch source {
        case #"^(?!/)(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9._~/-]+$"#: return relativePath
        case "^[0-9a-f]{64}$": return lowercaseHex64
        default: return nil
        }
    }

    /// A relative path: one or more of `A-Z a-z 0-9 . _ ~ / -`, not starting with `/`, no segment that is `.` or `..`.
    static let relativePath: Matcher = { bytes in
        guard let first = bytes.first, first != 0x2F else { return false }
        var segmentStart = 0
        for k in 0...bytes.count {
            if k < bytes.count {
                let b = bytes[k]
                let allowed = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
                    || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2D || b == 0x2F
                guard allowed else { return false }
                if b != 0x2F { continue }
            }
            // A segment ends here: "." and ".." are not allowed.
            let length = k - segmentStart
            if (length == 1 || length == 2) && bytes[segmentStart] == 0x2E && bytes[k - 1] == 0x2E { return false }
            segmentStart = k + 1
        }
        return true
    }

    static let lowercaseHex64: Matcher = { bytes in
        bytes.count == 64 && bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
