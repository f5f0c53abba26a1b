import Foundation

/// Reading JSON text in place, without parsing it into values: for scanners over text our own writer made (a release's
/// byte diff, a search index's maps edited for a rebuild).
///
/// The scans run over a buffer pointer (memchr finds the quotes); the span and array forms lend theirs once, here.
public enum JSONText {
    /// One past the closing quote of the string whose opening quote is at `i`, or nil. Jumps from quote to quote with
    /// memchr (strings are most of the bytes): a quote ends the string unless an odd number of backslashes precede it.
    public static func stringEnd(_ bytes: Span<UInt8>, from i: Int) -> Int? {
        bytes.withUnsafeBufferPointer { stringEnd(in: $0, from: i) }
    }

    /// `stringEnd(_:from:)` over an array.
    public static func stringEnd(_ bytes: [UInt8], from i: Int) -> Int? {
        bytes.withUnsafeBufferPointer { stringEnd(in: $0, from: i) }
    }

    /// Replaced by `stringEnd(_:from:)` taking a `Span<UInt8>` or `[UInt8]`; kept until the callers in Generator have
    /// moved.
    public static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from i: Int) -> Int? { stringEnd(in: bytes, from: i) }

    static func stringEnd(in bytes: UnsafeBufferPointer<UInt8>, from i: Int) -> Int? {
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
    public static func string(_ literal: Span<UInt8>) -> String? {
        literal.withUnsafeBufferPointer { string(in: $0) }
    }

    /// Replaced by `string(_:)` taking a `Span<UInt8>`; kept until the callers in Generator have moved.
    public static func string(_ literal: UnsafeBufferPointer<UInt8>) -> String? { string(in: literal) }

    static func string(in literal: UnsafeBufferPointer<UInt8>) -> String? {
        guard literal.count >= 2, literal[0] == 0x22, literal[literal.count - 1] == 0x22 else { return nil }
        let inner = UnsafeBufferPointer(rebasing: literal[1..<(literal.count - 1)])
        if inner.isEmpty { return "" }
        if memchr(inner.baseAddress!, 0x5C, inner.count) == nil, !inner.contains(where: { $0 < 0x20 }),
           let s = String(validating: inner, as: UTF8.self) { return s }
        return (try? JSONReader.read(literal))?.stringValue
    }
}

extension String {
    /// Lends the string's UTF-8 as a span (`utf8Span` needs macOS 26): the one place the library turns a string's
    /// bytes into a span, for matchers and tables that read bytes.
    /// (Inlinable: a generic call across modules, unspecialised, cost more than the lookups it lends to.)
    @inlinable
    package func withUTF8Span<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
        var s = self
        return try s.withUTF8 { try body($0.span) }
    }

    /// The string of the UTF-8 in a span (ill-formed sequences repaired, as `String(decoding:as:)` does).
    package init(decodingUTF8 utf8: Span<UInt8>) {
        self = utf8.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }
}
