import Crypto

/// Fixed-width integers written into byte arrays, for the generator's own binary files (the build cache, the products
/// snapshot): little-endian numbers, big-endian fingerprint words.
extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ v: T) {
        for k in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: v >> (8 * k))) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ v: T) {
        for k in (0..<(T.bitWidth / 8)).reversed() { append(UInt8(truncatingIfNeeded: v >> (8 * k))) }
    }

    /// A fingerprint's 32 bytes, as `Fingerprint.bytes` gives them (without an array per fingerprint).
    mutating func append(_ f: Fingerprint) {
        appendBigEndian(f.a); appendBigEndian(f.b); appendBigEndian(f.c); appendBigEndian(f.d)
    }
}

extension ContiguousArray where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ v: T) {
        for k in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: v >> (8 * k))) }
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
        guard count == other.count else { return false }
        for i in 0..<count where self[i] != other[i] { return false }
        return true
    }

    /// Byte order: the first byte that differs, else the shorter first (the order of `memcmp`, then length).
    func lexicographicallyPrecedes(_ other: Span<UInt8>) -> Bool {
        let n = Swift.min(count, other.count)
        for i in 0..<n where self[i] != other[i] { return self[i] < other[i] }
        return count < other.count
    }

    /// The index of the first `byte` at or after `start`; nil when there is none. Eight bytes are tested at a time
    /// (a 16 MB block of JSON Lines is scanned for its newlines).
    func firstIndex(of byte: UInt8, from start: Int = 0) -> Int? {
        var i = Swift.max(start, 0)
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        while count - i >= 8 {
            let word = extracting(i..<(i + 8)).littleEndian(at: 0, as: UInt64.self) ^ pattern
            // A zero byte of `word` is a match; the lowest flagged byte is the first one.
            let zero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if zero != 0 { return i + zero.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < count { if self[i] == byte { return i }; i += 1 }
        return nil
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
