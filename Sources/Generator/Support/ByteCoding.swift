import Foundation
import Crypto

/// Fixed-width integers written into byte arrays, for the generator's own binary files (the build cache, the products
/// snapshot): little-endian numbers, big-endian fingerprint words.
///
/// (Each number's bytes are appended at once, from its value's own bytes: a byte at a time, writing the 100k-product
/// build cache took 0.03 s longer, on the path of a one-price-changed build — Benchmarks/catalog/small-changes.sh.)
extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ v: T) {
        Swift.withUnsafeBytes(of: v.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ v: T) {
        Swift.withUnsafeBytes(of: v.bigEndian) { append(contentsOf: $0) }
    }

    /// A fingerprint's 32 bytes, as `Fingerprint.bytes` gives them (without an array per fingerprint).
    mutating func append(_ f: Fingerprint) {
        appendBigEndian(f.a); appendBigEndian(f.b); appendBigEndian(f.c); appendBigEndian(f.d)
    }
}

extension ContiguousArray where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ v: T) {
        Swift.withUnsafeBytes(of: v.littleEndian) { append(contentsOf: $0) }
    }

    /// The bytes of a span, appended (the loop over the span compiles to a vector copy).
    mutating func append(_ bytes: Span<UInt8>) {
        let start = count
        append(contentsOf: repeatElement(0, count: bytes.count))
        var out = mutableSpan
        for i in 0..<bytes.count { out[start &+ i] = bytes[i] }
    }
}

/// Byte text read in place: the scans and comparisons the catalog makes on a million products' text, written as
/// plain loops over the span that the optimiser turns into vector code (no pointers).
extension Span where Element == UInt8 {
    /// Whether every byte is ASCII (below 0x80).
    var isASCII: Bool {
        var high: UInt8 = 0
        for i in 0..<count { high |= self[i] }
        return high < 0x80
    }

    /// Whether the two hold the same bytes.
    func elementsEqual(_ other: Span<UInt8>) -> Bool {
        count == other.count && compare(other, count) == 0
    }

    /// Byte order: the first byte that differs, else the shorter first (the order of `memcmp`, then length).
    func lexicographicallyPrecedes(_ other: Span<UInt8>) -> Bool {
        let n = Swift.min(count, other.count), c = compare(other, n)
        return c != 0 ? c < 0 : count < other.count
    }

    /// `memcmp` of the first `n` bytes (at most either's count): a loop a byte at a time made the sorts of 100k
    /// products by id and by name 0.03 s slower (a one-price-changed build, Benchmarks/catalog/small-changes.sh).
    private func compare(_ other: Span<UInt8>, _ n: Int) -> Int32 {
        guard n > 0 else { return 0 }
        return withUnsafeBufferPointer { a in other.withUnsafeBufferPointer { b in memcmp(a.baseAddress!, b.baseAddress!, n) } }
    }

    /// The index of the first `byte` at or after `start`; nil when there is none.
    func firstIndex(of byte: UInt8, from start: Int = 0) -> Int? {
        let from = Swift.max(start, 0)
        guard from < count else { return nil }
        // libc's vectorised memchr: a loop eight bytes at a time made the newline scan of a one-price-changed build at
        // 100k products (Benchmarks/catalog/small-changes.sh) 0.08 s slower.
        return withUnsafeBufferPointer { buffer in
            memchr(buffer.baseAddress! + from, Int32(byte), count - from).map { buffer.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// The little-endian integer at `offset` (the loads merge into one).
    func littleEndian<T: FixedWidthInteger>(at offset: Int, as: T.Type = T.self) -> T {
        let b = extracting(offset..<(offset + T.bitWidth / 8))
        var v: T = 0
        for k in 0..<b.count { v |= T(truncatingIfNeeded: b[k]) << (8 * k) }
        return v
    }

    /// The big-endian integer at `offset`.
    func bigEndian<T: FixedWidthInteger>(at offset: Int, as: T.Type = T.self) -> T {
        let b = extracting(offset..<(offset + T.bitWidth / 8))
        var v: T = 0
        for k in 0..<b.count { v = v << 8 | T(truncatingIfNeeded: b[k]) }
        return v
    }
}

extension Fingerprint {
    /// From a SHA-256 digest, without an array on the way (two per product: 2 million in a build of a million
    /// products; the digest's own iterator makes an array each).
    init(digest: SHA256.Digest) {
        var w: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            func word(_ k: Int) -> UInt64 { (0..<8).reduce(0) { $0 << 8 | UInt64(raw[k * 8 + $1]) } }
            w = (word(0), word(1), word(2), word(3))
        }
        self.init(a: w.0, b: w.1, c: w.2, d: w.3)
    }
}
