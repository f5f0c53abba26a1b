import Foundation

/// A map from tokens (short runs of UTF-8 bytes) to values, looked up by the bytes themselves: no `String` is made
/// to ask, and the hash is a cheap multiply over eight bytes at a time instead of `String`'s SipHash with its
/// Unicode-aware equality. A catalog's names repeat the same few thousand tokens hundreds of thousands of times, so
/// these lookups are most of what per-token memoisation costs. Open addressing, linear probing; it only grows.
/// The hash decides only where a key sits, never what a lookup answers, so nothing built from it depends on it.
///
/// Keys are lent as spans; the lookups themselves read them through a pointer (a word at a time, `memcmp`), which
/// this file and `Fragments.swift` are the Indexer's only places to do.
public struct TokenTable<Value> {
    /// Entry number + 1 per slot (0: empty); the slot count is a power of two, at most half full.
    @usableFromInline var slots: [Int32] = Array(repeating: 0, count: 64)
    @usableFromInline var hashes: [UInt64] = []
    /// Keys back to back: entry k's key is `keyBytes[keyStarts[k]..<keyStarts[k + 1]]`.
    @usableFromInline var keyBytes: [UInt8] = []
    @usableFromInline var keyStarts: [Int] = [0]
    public private(set) var values: [Value] = []

    public init() {}

    /// A table of no slots, only to hold a place (a swap target); inserting into it is not allowed.
    static var empty: TokenTable { TokenTable(slots: []) }
    private init(slots: [Int32]) { self.slots = slots; keyStarts = [] }   // (allocates nothing)

    public var count: Int { values.count }

    /// The entry number of `key`, if present. (Lookups are inlinable, so a caller in another module gets them
    /// specialised for its value type: through generic metadata, reading a 100,000-file release index spent twice as
    /// long in them.)
    @inlinable
    public func find(_ key: Span<UInt8>) -> Int? { key.withUnsafeBufferPointer { lookUp($0) } }

    /// Adds `key` (which must not be present) with `value`; returns its entry number.
    @discardableResult
    public mutating func insert(_ key: Span<UInt8>, _ value: Value) -> Int { key.withUnsafeBufferPointer { add($0, value) } }

    /// Replaced by `find(_:)` taking a `Span<UInt8>`; kept until the callers in Generator have moved.
    @inlinable
    public func find(_ key: UnsafeBufferPointer<UInt8>) -> Int? { lookUp(key) }

    /// Replaced by `insert(_:_:)` taking a `Span<UInt8>`; kept until the callers in Generator have moved.
    @discardableResult
    public mutating func insert(_ key: UnsafeBufferPointer<UInt8>, _ value: Value) -> Int { add(key, value) }

    @inlinable
    func lookUp(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let h = ByteHash.hash(key)
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while true {
            let e = Int(slots[s]) - 1
            if e < 0 { return nil }
            if hashes[e] == h && equal(e, key) { return e }
            s = (s + 1) & mask
        }
    }

    private mutating func add(_ key: UnsafeBufferPointer<UInt8>, _ value: Value) -> Int {
        if (values.count + 1) * 2 > slots.count { grow() }
        let h = ByteHash.hash(key)
        let e = values.count
        hashes.append(h)
        keyBytes.append(contentsOf: key)
        keyStarts.append(keyBytes.count)
        values.append(value)
        place(e, h)
        return e
    }

    private mutating func place(_ e: Int, _ h: UInt64) {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = Int32(e + 1)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for e in values.indices { place(e, hashes[e]) }
    }

    @inlinable
    func equal(_ e: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = keyStarts[e], len = keyStarts[e + 1] - start
        guard len == key.count else { return false }
        return keyBytes.withUnsafeBufferPointer { stored in
            len == 0 || memcmp(stored.baseAddress! + start, key.baseAddress!, len) == 0
        }
    }
}

/// Arrays only: sendable when its values are (a release's entries by path are read from several threads).
extension TokenTable: Sendable where Value: Sendable {}

/// A fast 64-bit hash of bytes, for table slots and cache-busting file names (not for security, not for anything an
/// attacker chooses to collide).
public enum ByteHash {
    /// Eight bytes at a time, each word mixed by a multiply and a shift (the finaliser of SplitMix64).
    public static func of(_ key: Span<UInt8>) -> UInt64 { key.withUnsafeBufferPointer { hash($0) } }

    /// The hash of the bytes of an array.
    public static func of(_ key: [UInt8]) -> UInt64 { key.withUnsafeBufferPointer { hash($0) } }

    /// Replaced by `of(_:)` taking a `Span<UInt8>` or `[UInt8]`; kept until the callers in Generator have moved.
    public static func of(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 { hash(key) }

    /// (Unaligned eight-byte loads through a pointer: a word at a time is what makes this hash cheaper than `Hasher`.)
    @inlinable
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        guard let p = key.baseAddress else { return h }
        @inline(__always) func mix(_ w: UInt64) {
            h = (h ^ w) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
        }
        var i = 0
        while key.count - i >= 8 {
            mix(UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)))   // (same names on any CPU)
            i += 8
        }
        if i < key.count {
            var w: UInt64 = 0
            for k in i..<key.count { w |= UInt64(p[k]) << UInt64(8 * (k - i)) }
            mix(w)
        }
        return (h ^ (h >> 29)) &* 0x94D0_49BB_1331_11EB
    }
}
