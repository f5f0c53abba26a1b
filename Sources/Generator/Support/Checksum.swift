import Foundation

/// A fast 128-bit checksum of bytes (about five times the speed of SHA-256 with the CPU's SHA instructions), for the
/// build's own files: the cache's and the products snapshot's closing digest, and the large files of the tree the
/// cache vouches for. It finds damage (a torn write, a file edited or replaced since), not an attacker's forgery: a
/// file whose bytes someone could choose against it (the input, a file named by its content) is hashed with SHA-256.
///
/// Four 64-bit lanes take 32 bytes a step (multiply, rotate, multiply: the round of the xxHash family, whose
/// published odd constants it uses); the lanes are then folded twice, in two orders, into two 64-bit halves, each
/// with the length and the tail mixed in and a final avalanche.
struct Checksum: Sendable {
    private static let p1: UInt64 = 0x9E37_79B1_85EB_CA87, p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let p3: UInt64 = 0x1656_67B1_9E37_79F9, p4: UInt64 = 0x85EB_CA77_C2B2_AE63, p5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var v1 = p1 &+ p2, v2 = p2, v3: UInt64 = 0, v4 = 0 &- p1
    private var total = 0
    /// Bytes of a step not yet taken (fewer than 32).
    private var tail: [UInt8] = []

    init() {}

    @inline(__always) private static func round(_ acc: UInt64, _ w: UInt64) -> UInt64 {
        let a = acc &+ w &* p2
        return ((a << 31) | (a >> 33)) &* p1
    }

    /// The 64-bit little-endian word at `offset` (any bit pattern is a UInt64: the load is bounds-checked and safe).
    @inline(__always) private static func word(_ raw: RawSpan, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: raw.unsafeLoadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func update(_ bytes: Span<UInt8>) { update(bytes.bytes) }

    mutating func update(_ raw: RawSpan) {
        let n = raw.byteCount
        guard n > 0 else { return }
        total += n
        var at = 0
        if !tail.isEmpty {
            let take = min(32 - tail.count, n)
            for k in 0..<take { tail.append(raw.unsafeLoad(fromByteOffset: k, as: UInt8.self)) }
            at = take
            guard tail.count == 32 else { return }
            let whole = tail[...], t = whole.span.bytes
            v1 = Self.round(v1, Self.word(t, 0)); v2 = Self.round(v2, Self.word(t, 8))
            v3 = Self.round(v3, Self.word(t, 16)); v4 = Self.round(v4, Self.word(t, 24))
            tail.removeAll(keepingCapacity: true)
        }
        var a = v1, b = v2, c = v3, d = v4
        while n - at >= 32 {
            a = Self.round(a, Self.word(raw, at))
            b = Self.round(b, Self.word(raw, at + 8))
            c = Self.round(c, Self.word(raw, at + 16))
            d = Self.round(d, Self.word(raw, at + 24))
            at += 32
        }
        v1 = a; v2 = b; v3 = c; v4 = d
        for k in at..<n { tail.append(raw.unsafeLoad(fromByteOffset: k, as: UInt8.self)) }
    }

    mutating func update(_ bytes: [UInt8]) { update(bytes[...]) }   // (`ArraySlice.span` reaches back to macOS 13)
    mutating func update(_ bytes: ArraySlice<UInt8>) { update(bytes.span) }

    /// The 16 bytes of the checksum.
    func finalize() -> [UInt8] {
        func avalanche(_ x: UInt64) -> UInt64 {
            var h = x
            h ^= h >> 33; h &*= Self.p2; h ^= h >> 29; h &*= Self.p3; h ^= h >> 32
            return h
        }
        func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
        func merge(_ h: UInt64, _ v: UInt64) -> UInt64 { (h ^ Self.round(0, v)) &* Self.p1 &+ Self.p4 }
        // The tail's bytes (fewer than 32, zero beyond) in both halves, with the count of bytes that tells them apart.
        let padded = tail + [UInt8](repeating: 0, count: 32 - tail.count)
        let whole = padded[...], t = whole.span.bytes
        let tailWords = (Self.word(t, 0), Self.word(t, 8), Self.word(t, 16), Self.word(t, 24))
        var h1 = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
        h1 = merge(merge(merge(merge(h1, v1), v2), v3), v4)
        var h2 = rotl(v4, 1) &+ rotl(v3, 7) &+ rotl(v2, 12) &+ rotl(v1, 18) &+ Self.p5
        h2 = merge(merge(merge(merge(h2, v4), v3), v2), v1)
        for w in [tailWords.0, tailWords.1, tailWords.2, tailWords.3] {
            h1 = rotl(h1 ^ Self.round(0, w), 27) &* Self.p1 &+ Self.p4
            h2 = rotl(h2 ^ Self.round(Self.p5, w), 29) &* Self.p2 &+ Self.p3
        }
        h1 = avalanche(h1 ^ UInt64(total))
        h2 = avalanche(h2 &+ UInt64(total) &* Self.p5 ^ h1)
        var out: [UInt8] = []
        out.reserveCapacity(16)
        out.appendBigEndian(h1); out.appendBigEndian(h2)
        return out
    }

    /// The checksum of `bytes`.
    static func of(_ bytes: Span<UInt8>) -> [UInt8] { var c = Checksum(); c.update(bytes); return c.finalize() }
    static func of(_ bytes: [UInt8]) -> [UInt8] { of(bytes[...]) }
    static func of(_ bytes: ArraySlice<UInt8>) -> [UInt8] { of(bytes.span) }
    static func of(_ bytes: RawSpan) -> [UInt8] { var c = Checksum(); c.update(bytes); return c.finalize() }
}
