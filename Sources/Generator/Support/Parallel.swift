import Foundation

/// Dynamic scheduling for uneven work: workers take the next item from a shared queue, so one large item (a
/// 90 MB search index among 100,000 small pages) does not leave a core idle at the end. Callers store results by
/// item index, so output never depends on the schedule or the thread count.
enum Parallel {
    /// Runs `body` for every index of `order` (heaviest first works best), on up to `threads` workers.
    static func forEach(_ order: [Int], threads: Int, _ body: (Int) -> Void) {
        forEach(order, threads: threads) { _, i in body(i) }
    }

    /// The same, telling `body` which worker (0..<threads) runs it: workers can keep state of their own (objects
    /// that every item touches are better not shared: two cores counting references to one object slow each other).
    static func forEach(_ order: [Int], threads: Int, _ body: (_ worker: Int, _ item: Int) -> Void) {
        forEach(order, threads: threads, singles: order.count, batch: 1, body)
    }

    /// The same, taking the first `singles` items of `order` one at a time (the heavy ones) and the rest `batch` at a
    /// time: 100,000 light items (pages kept as they are) each paid the queue's lock, and two cores waited on it.
    static func forEach(_ order: [Int], threads: Int, singles: Int, batch: Int, _ body: (_ worker: Int, _ item: Int) -> Void) {
        if threads <= 1 || order.count < 2 { order.forEach { body(0, $0) }; return }
        let lock = NSLock()
        var next = 0
        DispatchQueue.concurrentPerform(iterations: min(threads, order.count)) { worker in
            while true {
                lock.lock()
                let k = next
                let end = min(order.count, k < singles ? k + 1 : k + max(batch, 1))
                next = end
                lock.unlock()
                guard k < order.count else { return }
                for j in k..<end { body(worker, order[j]) }
            }
        }
    }

    /// Empties `items`, releasing the elements on `threads` threads (each replaced by `placeholder`, a value that
    /// holds nothing): a batch of 30,000 parsed records is 600,000 allocations, freed one by one otherwise.
    static func release<T>(_ items: inout [T], placeholder: T, threads: Int) {
        if threads > 1 && items.count >= 4096 {
            let n = items.count, chunks = threads * 4
            items.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress!
                forEach(Array(0..<chunks), threads: threads) { c in
                    for i in (c * n / chunks)..<((c + 1) * n / chunks) { base[i] = placeholder }
                }
            }
        }
        items = []
    }

    /// `body` over 0..<n cut into contiguous chunks (16 per worker, so uneven items even out), on up to `threads`
    /// workers; one chunk, on the caller's thread, when the work is small.
    static func forEachChunk(_ n: Int, threads: Int, _ body: (Range<Int>) -> Void) {
        if threads <= 1 || n < 256 { if n > 0 { body(0..<n) }; return }
        let chunks = min(n, threads * 16)
        forEach(Array(0..<chunks), threads: threads) { c in body((c * n / chunks)..<((c + 1) * n / chunks)) }
    }

    /// `f` of the two halves of 0..<n (the first `n / 2` indices, then the rest), side by side on two threads.
    static func halves<T>(_ n: Int, _ f: (Range<Int>) -> T) -> (T, T) {
        var parts = [T?](repeating: nil, count: 2)
        parts.withUnsafeMutableBufferPointer { parts in
            forEach([0, 1], threads: 2) { k in parts[k] = f(k == 0 ? 0..<(n / 2) : (n / 2)..<n) }
        }
        return (parts[0]!, parts[1]!)
    }

    /// `items` in the order `precedes` gives (a strict total order: the result is the one a sort on one core gives),
    /// sorted in two halves side by side, then merged.
    static func sorted<T>(_ items: [T], threads: Int, by precedes: (T, T) -> Bool) -> [T] {
        let n = items.count
        if threads <= 1 || n < 8192 { return items.sorted(by: precedes) }
        let (a, b) = halves(n) { items[$0].sorted(by: precedes) }
        var out: [T] = []
        out.reserveCapacity(n)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if precedes(b[j], a[i]) { out.append(b[j]); j += 1 } else { out.append(a[i]); i += 1 }
        }
        out += a[i...]; out += b[j...]
        return out
    }

    /// `f` of every index of 0..<n, in contiguous chunks on up to `threads` workers; results in index order.
    static func map<T>(_ n: Int, threads: Int, _ f: (Int) -> T) -> [T] {
        [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            let base = buffer.baseAddress
            forEachChunk(n, threads: threads) { range in for i in range { (base! + i).initialize(to: f(i)) } }
            initialized = n
        }
    }

    /// `body(worker, i)` for every index of `order` (an order of 0..<count: heaviest first works best; by default
    /// 0..<count), scheduled as `forEach` schedules (the first `singles` one at a time, then `batch` at a time), on up
    /// to `threads` workers; the results in index order. When bodies throw, every item still runs, and the error of
    /// the lowest index is thrown: the outcome never depends on the schedule. A body that cannot throw makes a call
    /// that cannot either.
    static func map<T, E: Error>(_ count: Int, order: [Int]? = nil, threads: Int, singles: Int? = nil, batch: Int = 1,
                                 _ body: (_ worker: Int, _ index: Int) throws(E) -> T) throws(E) -> [T] {
        var results = [Result<T, E>?](repeating: nil, count: count)
        // (The one place results are written from several threads: each index by the one worker that took it.)
        results.withUnsafeMutableBufferPointer { results in
            forEach(order ?? Array(0..<count), threads: threads, singles: singles ?? count, batch: batch) { worker, i in
                results[i] = Result { () throws(E) -> T in try body(worker, i) }
            }
        }
        return try results.map { r throws(E) -> T in try r!.get() }
    }

    /// The same over the elements of `items`, each given to its body `inout`: a body may change its own element (and
    /// only its own), e.g. let go of a file's content once it is written, while the others run.
    static func map<Item, T, E: Error>(_ items: inout [Item], order: [Int]? = nil, threads: Int, singles: Int? = nil, batch: Int = 1,
                                       _ body: (_ worker: Int, _ index: Int, _ item: inout Item) throws(E) -> T) throws(E) -> [T] {
        var outcome: Result<[T], E>?
        items.withUnsafeMutableBufferPointer { elements in
            outcome = Result { () throws(E) -> [T] in
                try map(elements.count, order: order, threads: threads, singles: singles, batch: batch) { worker, i throws(E) in
                    try body(worker, i, &elements[i])
                }
            }
        }
        return try outcome!.get()
    }
}
