import Foundation
import Schemas

/// An earlier version of a file made of fragments, and the fragments of the new version as they are written.
///
/// A large file that lists everything (a search index lists every product) is written as a sequence of fragments,
/// each named by a key that changes whenever anything the fragment's bytes depend on changes (a fingerprint). The
/// next build finds a fragment whose key it still has in the earlier file and copies its bytes instead of rendering
/// it: a price change re-renders one entry of a 90 MB index, not the index. Keys are the caller's (`FragmentKey`),
/// so this module knows nothing of how they are made.
///
/// (Sendable, unchecked by the compiler: what several threads record is behind a lock; the window is used by the one
/// writer of the file. `Mutex`, which the compiler could check, needs macOS 15.)
public final class FragmentReuse: @unchecked Sendable {
    public typealias Key = FragmentKey
    /// Reads exactly `count` bytes of the earlier file from `offset` into `buffer[..<count]` (at least that long);
    /// false when it cannot (the file changed under the build).
    public typealias Reader = (_ offset: Int, _ count: Int, _ buffer: inout [UInt8]) -> Bool

    /// The earlier file, read on demand (fragments are copied in file order: a window of it is kept, never the whole).
    private let read: Reader?
    /// The earlier file's fragments: their keys, numbered, and each one's range by number.
    private let oldKeys: FragmentTable
    private let oldRanges: [Range<Int>]
    /// The earlier file's last fragment (a writer that ends with a fragment of its own, like the seed indexes' maps,
    /// finds it here when its key has changed).
    public let earlierLast: Range<Int>?
    /// Up to `windowSize` bytes of the earlier file, from `windowRange.lowerBound` (made on first use, then refilled).
    private var window: [UInt8] = []
    static let windowSize = 1 << 20
    private var windowRange = 0..<0
    /// The new file's fragments, in the order written.
    public private(set) var written: [(key: Key, range: Range<Int>)] = []
    /// Fragments copied from the earlier file, and fragments rendered anew.
    public private(set) var copied = 0, rendered = 0
    /// Where each copied fragment was in the earlier file and is in the new one (the same bytes: a diff of the two
    /// files need not compare them).
    public private(set) var same: [(old: Range<Int>, new: Range<Int>)] = []
    private let lock = NSLock()

    /// The earlier file's order of its items (positions in the writer's list), when the writer recorded one: a file
    /// whose order is costly to work out keeps it while the text that decides it has not changed.
    public let earlierOrder: [Int32]
    /// The order this file's writer recorded, for the next build.
    public var order: [Int32] = []

    /// Nothing to reuse: fragments are only recorded (a first build).
    public convenience init() { self.init(size: 0, ranges: [], read: nil) }

    /// `size`: the earlier file's length; `ranges`: its fragments; `order`: its items' order; `read`: its bytes.
    public init(size: Int, ranges: [(key: Key, range: Range<Int>)], order: [Int32] = [], read: Reader?) {
        self.read = read; self.earlierOrder = order
        var table = FragmentTable(capacity: read == nil ? 0 : ranges.count)
        var found: [Range<Int>] = []
        found.reserveCapacity(read == nil ? 0 : ranges.count)
        // A range outside the file (a cache that does not describe this file) is never used; of two with one key, the
        // later counts.
        if read != nil {
            for (k, r) in ranges where r.lowerBound >= 0 && r.upperBound <= size {
                let (n, added) = table.insert(k)
                if added { found.append(r) } else { found[n] = r }
            }
        }
        self.oldKeys = table; self.oldRanges = found
        self.earlierLast = ranges.last.flatMap { last in table.find(last.key).flatMap { found[$0] == last.range ? last.range : nil } }
    }

    /// The earlier range of the fragment named `key`.
    @inline(__always) private func earlier(_ key: Key) -> Range<Int>? { oldKeys.find(key).map { oldRanges[$0] } }

    /// Whether the earlier file had a fragment named `key`.
    public func has(_ key: Key) -> Bool { oldKeys.find(key) != nil }

    /// The earlier file's fragments whose keys are not among `keys` (nor the last one): what the new file drops.
    public func earlierRanges(notIn keys: Set<Key>) -> [Range<Int>] {
        inFileOrder().filter { !keys.contains(oldKeys.keys[$0]) && oldRanges[$0] != earlierLast }.map { oldRanges[$0] }
    }

    /// The number of the earlier file's fragments.
    public var earlierCount: Int { oldKeys.count }

    /// The keys of the earlier file's fragments in file order, the last one aside.
    public func earlierKeys() -> [Key] {
        inFileOrder().filter { oldRanges[$0] != earlierLast }.map { oldKeys.keys[$0] }
    }

    /// The earlier fragments' numbers by where they start (as the cache lists them: not sorted again then).
    private func inFileOrder() -> [Int] {
        let all = Array(oldRanges.indices)
        if all.dropFirst().allSatisfy({ oldRanges[$0 - 1].lowerBound < oldRanges[$0].lowerBound }) { return all }
        return all.sorted { oldRanges[$0].lowerBound < oldRanges[$1].lowerBound }
    }

    /// The earlier file's bytes in `r`. Throws when they cannot be read (the file changed under the build).
    public func earlierBytes(_ r: Range<Int>) throws -> [UInt8] {
        guard let read else { throw Unreadable() }
        var bytes = [UInt8](repeating: 0, count: r.count)
        guard r.isEmpty || read(r.lowerBound, r.count, &bytes) else { throw Unreadable() }
        return bytes
    }

    /// Appends the earlier bytes of the fragment named `key` to `out` as one value or run of members (see
    /// `JSONStream.raw`), and returns their length; nil when there was no such fragment. Throws when the earlier file
    /// cannot be read there (it changed under the build): what was appended is then not a file to keep.
    public func copy(_ key: Key, to out: JSONStream) throws -> Int? {
        guard let r = earlier(key) else { return nil }
        let start = try copy(r, to: out)
        lock.lock(); same.append((r, start..<(start + r.count))); lock.unlock()
        return r.count
    }

    /// Appends the earlier file's bytes in `r` to `out` as one value or run of values (read through the window, never
    /// held whole). Throws when the earlier file cannot be read there.
    public func copyEarlier(_ r: Range<Int>, to out: JSONStream) throws { _ = try copy(r, to: out) }

    /// Appends the earlier file's bytes in `r` to `out` as one value or run of values; returns where they start in `out`.
    private func copy(_ r: Range<Int>, to out: JSONStream) throws -> Int {
        guard let read else { throw Unreadable() }
        var at = r.lowerBound, first = true, start = out.count
        while at < r.upperBound || first {
            // Refill the window from `at` when the next bytes are not in it.
            if !windowRange.contains(at) {
                if window.isEmpty { window = [UInt8](repeating: 0, count: Self.windowSize) }
                let n = min(window.count, max(r.upperBound, at + 1) - at)
                guard n > 0, read(at, n, &window) else { throw Unreadable() }
                windowRange = at..<(at + n)
            }
            let end = min(r.upperBound, windowRange.upperBound)
            let held = window[...]
            let part = held.span.extracting((at - windowRange.lowerBound)..<(end - windowRange.lowerBound))
            if first { out.raw(part); start = out.count - part.count; first = false } else { out.append(part) }
            at = end
            if r.isEmpty { break }
        }
        return start
    }

    /// Fragments that lay side by side in the earlier file (one byte apart: the comma between two array elements),
    /// copied as one block.
    public struct Run {
        var keys: [(key: Key, offset: Int)] = []
        var range = 0..<0
        public init() {}
    }

    /// Adds the fragment named `key` to `run` when the earlier file had it right after the run (or the run is
    /// empty); false otherwise (the run is then to be copied first).
    public func extend(_ run: inout Run, with key: Key) -> Bool {
        guard let r = earlier(key) else { return false }
        if run.keys.isEmpty {
            run.range = r
        } else {
            guard r.lowerBound == run.range.upperBound + 1 else { return false }
            run.range = run.range.lowerBound..<r.upperBound
        }
        run.keys.append((key, r.lowerBound - run.range.lowerBound))
        return true
    }

    /// Appends the run's bytes to `out` as one run of values (see `JSONStream.raw`), records each fragment where it
    /// now is, and empties the run. Throws when the earlier file cannot be read there, or holds anything but a comma
    /// between two of the run's fragments (it is not the file the fragments describe).
    public func copy(_ run: inout Run, to out: JSONStream) throws {
        guard !run.keys.isEmpty else { return }
        let start = try copy(run.range, to: out)
        for (k, (key, offset)) in run.keys.enumerated() {
            let end = k + 1 < run.keys.count ? run.keys[k + 1].offset - 1 : run.range.count
            if k + 1 < run.keys.count, out.withSpan({ $0[start + end] }) != UInt8(ascii: ",") { throw Unreadable() }
            let old = run.range.lowerBound + offset
            lock.lock()
            written.append((key, (start + offset)..<(start + end)))
            copied += 1
            same.append((old..<(old + end - offset), (start + offset)..<(start + end)))
            lock.unlock()
        }
        run = Run()
    }

    public var isEmpty: Bool { oldKeys.count == 0 }

    /// The earlier file could not be read where its fragments were said to be (changed under the build).
    public struct Unreadable: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "the previous version of this file could not be read while it was being spliced" }
    }

    /// Records where a fragment was written in the new file (`copied`: taken from the earlier file).
    public func wrote(_ key: Key, _ range: Range<Int>, copied wasCopied: Bool) {
        lock.lock()
        written.append((key, range))
        if wasCopied { copied += 1 } else { rendered += 1 }
        lock.unlock()
    }

    /// Objects whose members a splice placed (the seed indexes' keyword maps, edited for an added product): where
    /// each one's members lie in the earlier file and in the new one, so that a diff of the two files takes them from
    /// here instead of scanning tens of MB of ids for the boundaries.
    public private(set) var objects: [(old: ObjectLayout, new: ObjectLayout)] = []

    func wroteObject(old: ObjectLayout, new: ObjectLayout) {
        lock.lock(); objects.append((old, new)); lock.unlock()
    }

    /// Ranges of the new file that were rendered, not copied, in file order (to check them against their schema).
    public private(set) var renderedRanges: [(name: String, range: Range<Int>)] = []

    func wroteRendered(_ name: String, _ range: Range<Int>) {
        lock.lock(); renderedRanges.append((name, range)); lock.unlock()
    }
}

/// Where an object's members lie in a text: the offset of its opening brace, and each member's key (the string
/// literal, quotes included) and value, in order. Written compactly: `{` key `:` value `,` … `}`.
public struct ObjectLayout: Sendable, Equatable {
    public var open: Int
    public var members: [Member]
    public struct Member: Sendable, Equatable {
        public var key: Range<Int>, value: Range<Int>
        public init(key: Range<Int>, value: Range<Int>) { self.key = key; self.value = value }
        /// The same member `d` bytes further on.
        public func shifted(by d: Int) -> Member { Member(key: (key.lowerBound + d)..<(key.upperBound + d), value: (value.lowerBound + d)..<(value.upperBound + d)) }
    }
    public init(open: Int, members: [Member]) { self.open = open; self.members = members }
    /// One past its closing brace.
    public var end: Int { (members.last?.value.upperBound ?? open + 1) + 1 }
    /// The same object `d` bytes further on.
    public func shifted(by d: Int) -> ObjectLayout { ObjectLayout(open: open + d, members: members.map { $0.shifted(by: d) }) }
}

/// The name of a fragment: 256 bits of a cryptographic digest (the caller's fingerprint of what the fragment's bytes
/// depend on). A concrete type, not a generic parameter: the tables of 100,000 keys are then compiled for it in this
/// module, where a generic one would be run unspecialised from the caller's.
public struct FragmentKey: Hashable, Sendable {
    public let a: UInt64, b: UInt64, c: UInt64, d: UInt64
    public init(a: UInt64, b: UInt64, c: UInt64, d: UInt64) { self.a = a; self.b = b; self.c = c; self.d = d }
    /// (Two words of a digest are as good a hash as four.)
    public func hash(into h: inout Hasher) { h.combine(a); h.combine(b) }
}

/// Fragment keys numbered in the order they were added (0, 1, …), found by open addressing on the keys' own words:
/// a digest's bits need no further hashing, and Swift's hasher (SipHash over two words, for each of 200,000 lookups
/// a build) cost more than the rest of a lookup. Linear probing, at most half full; it only grows. The slot a key
/// takes decides nothing but where it sits: no answer depends on it.
public struct FragmentTable: Sendable {
    /// Key number + 1 per slot (0: empty); a power of two of them.
    private var slots: [Int32]
    public private(set) var keys: [FragmentKey] = []

    public init(capacity: Int = 0) {
        var n = 16
        while n < capacity * 2 { n *= 2 }
        slots = Array(repeating: 0, count: n)
        keys.reserveCapacity(capacity)
    }

    public var count: Int { keys.count }

    @inline(__always) private func slot(_ key: FragmentKey, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key.a ^ (key.b &<< 1)) &* 0x9E37_79B9_7F4A_7C15 >> 20) & mask
    }

    /// The number of `key`, if it was added.
    public func find(_ key: FragmentKey) -> Int? {
        let mask = slots.count - 1
        var s = slot(key, mask: mask)
        while true {
            let e = Int(slots[s]) - 1
            if e < 0 { return nil }
            if keys[e] == key { return e }
            s = (s + 1) & mask
        }
    }

    /// Adds `key` unless it is there; its number either way, and whether it was added.
    @discardableResult
    public mutating func insert(_ key: FragmentKey) -> (number: Int, inserted: Bool) {
        if (keys.count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var s = slot(key, mask: mask)
        while true {
            let e = Int(slots[s]) - 1
            if e < 0 { break }
            if keys[e] == key { return (e, false) }
            s = (s + 1) & mask
        }
        slots[s] = Int32(keys.count + 1)
        keys.append(key)
        return (keys.count - 1, true)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (e, key) in keys.enumerated() {
            var s = slot(key, mask: mask)
            while slots[s] != 0 { s = (s + 1) & mask }
            slots[s] = Int32(e + 1)
        }
    }
}
