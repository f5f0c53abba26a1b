import Foundation

/// Reading JSON text in place, without parsing it into values: for scanners over text our own writer made (a release's
/// byte diff, a search index's maps edited for a rebuild).
public enum JSONText {
    /// One past the closing quote of the string whose opening quote is at `i`, or nil. Jumps from quote to quote with
    /// memchr (strings are most of the bytes): a quote ends the string unless an odd number of backslashes precede it.
    public static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from i: Int) -> Int? {
        guard i < bytes.count, bytes[i] == 0x22, let base = bytes.baseAddress else { return nil }
        var j = i + 1
        while j < bytes.count {
            guard let p = memchr(base + j, 0x22, bytes.count - j) else { return nil }
            let q = base.distance(to: UnsafePointer(p.assumingMemoryBound(to: UInt8.self)))
            var k = q
            while k > i + 1, bytes[k - 1] == 0x5C { k -= 1 }
            if (q - k) % 2 == 0 { return q + 1 }
            j = q + 1
        }
        return nil
    }

    /// The string a string literal's text (quotes included) stands for, or nil when it is not one. Without a backslash
    /// or control character its bytes between the quotes are the string (no parse: a keyword map has 100,000 keys).
    public static func string(_ literal: UnsafeBufferPointer<UInt8>) -> String? {
        guard literal.count >= 2, literal[0] == 0x22, literal[literal.count - 1] == 0x22 else { return nil }
        let inner = UnsafeBufferPointer(rebasing: literal[1..<(literal.count - 1)])
        if inner.isEmpty { return "" }
        if memchr(inner.baseAddress!, 0x5C, inner.count) == nil, !inner.contains(where: { $0 < 0x20 }),
           let s = String(validating: inner, as: UTF8.self) { return s }
        return (try? JSONReader.parse(literal))?.stringValue
    }
}
