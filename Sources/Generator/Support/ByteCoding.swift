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
