import Foundation

/// Parallel work over `0..<count` in contiguous chunks. Chunk boundaries depend on the thread count, so results are
/// kept by index or merged in chunk order; either way the output never depends on it.
enum Chunks {
    static func count(_ n: Int, threads: Int) -> Int { max(1, min(n, max(1, threads) * 8)) }

    /// `f` of every index, computed in parallel, in index order.
    static func map<T>(_ n: Int, threads: Int, _ f: (Int) -> T) -> [T] {
        // One thread: in order on this one (no dispatch; what it does is then all on the caller's stack).
        if threads <= 1 { return (0..<n).map(f) }
        let chunks = count(n, threads: threads)
        return [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            DispatchQueue.concurrentPerform(iterations: chunks) { c in
                for i in (c * n / chunks)..<((c + 1) * n / chunks) { (buffer.baseAddress! + i).initialize(to: f(i)) }
            }
            initialized = n
        }
    }

    /// `f` of every element, computed in parallel, in index order; each call has its own element to change (to let go
    /// of what it no longer needs as soon as it is done with it: a term's postings once scored).
    static func map<E, T>(_ elements: inout [E], threads: Int, _ f: (inout E) -> T) -> [T] {
        // Each index is given to exactly one call, so the calls never touch the same element; a buffer pointer is the
        // one way to hand concurrent calls distinct elements of one array in place.
        elements.withUnsafeMutableBufferPointer { buffer in
            map(buffer.count, threads: threads) { f(&buffer[$0]) }
        }
    }

    /// One partial result per chunk (from its range of indices), in chunk order. `perThread`: chunks per thread, fewer
    /// where each chunk pays to learn its own vocabulary (the indexes), more for balance.
    static func partials<T>(_ n: Int, threads: Int, perThread: Int = 8, _ f: (Range<Int>) -> T) -> [T] {
        let chunks = max(1, min(n, max(1, threads) * perThread))
        return map(chunks, threads: threads) { c in f((c * n / chunks)..<((c + 1) * n / chunks)) }
    }
}
