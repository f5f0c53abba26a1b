import Foundation

/// An earlier version of a file made of fragments, and the fragments of the new version as they are written.
///
/// A large file that lists everything (a search index lists every product) is written as a sequence of fragments,
/// each named by a key that changes whenever anything the fragment's bytes depend on changes (a fingerprint). The
/// next build finds a fragment whose key it still has in the earlier file and copies its bytes instead of rendering
/// it: a price change re-renders one entry of a 90 MB index, not the index. Keys are the caller's (any `Hashable`),
/// so this module knows nothing of how they are made.
public final class FragmentReuse<Key: Hashable & Sendable>: @unchecked Sendable {
    /// The earlier file's bytes (kept alive by `owner`) and where each of its fragments lies.
    private let old: UnsafeRawBufferPointer
    private let oldRanges: [Key: Range<Int>]
    private let owner: AnyObject?
    /// The new file's fragments, in the order written.
    public private(set) var written: [(key: Key, range: Range<Int>)] = []
    /// Fragments copied from the earlier file, and fragments rendered anew.
    public private(set) var copied = 0, rendered = 0
    private let lock = NSLock()

    /// The earlier file's order of its items (positions in the writer's list), when the writer recorded one: a file
    /// whose order is costly to work out keeps it while the text that decides it has not changed.
    public let earlierOrder: [Int32]
    /// The order this file's writer recorded, for the next build.
    public var order: [Int32] = []

    /// Nothing to reuse: fragments are only recorded (a first build).
    public convenience init() { self.init(old: UnsafeRawBufferPointer(start: nil, count: 0), ranges: [], owner: nil) }

    /// `old`: the earlier file's bytes, valid as long as `owner` lives; `ranges`: its fragments; `order`: its items' order.
    public init(old: UnsafeRawBufferPointer, ranges: [(key: Key, range: Range<Int>)], order: [Int32] = [], owner: AnyObject?) {
        self.old = old; self.owner = owner; self.earlierOrder = order
        var table: [Key: Range<Int>] = [:]
        table.reserveCapacity(ranges.count)
        // A range outside the bytes (a cache that does not describe this file) is never used.
        for (k, r) in ranges where r.lowerBound >= 0 && r.upperBound <= old.count { table[k] = r }
        self.oldRanges = table
    }

    /// The earlier bytes of the fragment named `key`, if it had one.
    public func bytes(_ key: Key) -> UnsafeRawBufferPointer? {
        guard let r = oldRanges[key] else { return nil }
        return UnsafeRawBufferPointer(rebasing: old[r])
    }

    public var isEmpty: Bool { oldRanges.isEmpty }

    /// Records where a fragment was written in the new file (`copied`: taken from the earlier file).
    public func wrote(_ key: Key, _ range: Range<Int>, copied wasCopied: Bool) {
        lock.lock()
        written.append((key, range))
        if wasCopied { copied += 1 } else { rendered += 1 }
        lock.unlock()
    }

    /// Ranges of the new file that were rendered, not copied, in file order (to check them against their schema).
    public private(set) var renderedRanges: [(name: String, range: Range<Int>)] = []

    func wroteRendered(_ name: String, _ range: Range<Int>) {
        lock.lock(); renderedRanges.append((name, range)); lock.unlock()
    }
}
