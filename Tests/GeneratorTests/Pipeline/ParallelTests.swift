import XCTest
import Foundation
@testable import Generator

/// The shared parallel helpers (`Parallel`).
final class ParallelTests: XCTestCase {
    final class Counted: @unchecked Sendable {
        static let lock = NSLock()
        nonisolated(unsafe) static var released = 0
        deinit { Self.lock.lock(); Self.released += 1; Self.lock.unlock() }
    }

    /// `release` empties the list and releases every element exactly once, on one thread or several, below and above
    /// the size where it goes parallel (the placeholder, shared by every slot, is released by its owner alone).
    func testReleaseFreesEveryElementOnce() {
        for (count, threads) in [(0, 2), (10, 2), (4_095, 2), (4_096, 2), (50_001, 2), (50_001, 1), (20_000, 4)] {
            Counted.released = 0
            var items = (0..<count).map { _ in Counted() }
            let placeholder = Counted()
            Parallel.release(&items, placeholder: placeholder, threads: threads)
            XCTAssertTrue(items.isEmpty)
            XCTAssertEqual(Counted.released, count, "\(count) items on \(threads) threads")
            withExtendedLifetime(placeholder) {}
        }
    }

    struct Failed: Error, Equatable { let index: Int }

    /// `map` gives each index's result in index order whatever the order it runs them in and the thread count; when
    /// bodies throw, every item still runs and the lowest failing index's error is the one thrown.
    func testMapKeepsIndexOrderAndThrowsTheLowestIndexError() throws {
        for threads in [1, 2, 4] {
            let order = Array((0..<1000).reversed())
            let squares = Parallel.map(1000, order: order, threads: threads, singles: 10, batch: 7) { _, i in i * i }
            XCTAssertEqual(squares, (0..<1000).map { $0 * $0 }, "\(threads) threads")
            let ran = NSLock(), seen = Box()
            XCTAssertThrowsError(try Parallel.map(100, order: Array((0..<100).reversed()), threads: threads) { _, i throws(Failed) -> Int in
                ran.lock(); seen.count += 1; ran.unlock()
                if i % 10 == 3 { throw Failed(index: i) }
                return i
            }) { XCTAssertEqual($0 as? Failed, Failed(index: 3), "\(threads) threads") }
            XCTAssertEqual(seen.count, 100, "every item runs")
        }
    }

    final class Box: @unchecked Sendable { var count = 0 }

    /// `map` over `inout` elements: each body changes its own element, and the changes stay.
    func testMapInPlaceChangesEachElementOnce() {
        for threads in [1, 2] {
            var items = Array(repeating: 1, count: 5000)
            let out = Parallel.map(&items, order: Array((0..<5000).reversed()), threads: threads) { _, i, item in
                item += i
                return item * 2
            }
            XCTAssertEqual(items, (0..<5000).map { 1 + $0 })
            XCTAssertEqual(out, (0..<5000).map { 2 * (1 + $0) })
        }
    }

    /// `sorted` gives the order a sort on one core gives, below and above the size where it sorts halves side by
    /// side, with many equal primary keys (the order is decided by the tie-break, as the search order's ids decide it).
    func testSortedInHalvesIsTheOneCoreSort() {
        var r = TestSupport.Random(state: 42)
        for n in [0, 1, 100, 8191, 8192, 20_001] {
            // (Ids in a random order, keys repeating.)
            let items = (0..<n).map { _ in (key: r.below(50), id: Int(r.next() >> 1)) }
            let precedes = { (a: (key: Int, id: Int), b: (key: Int, id: Int)) in a.key != b.key ? a.key < b.key : a.id < b.id }
            let expected = items.sorted(by: precedes).map(\.id)
            for threads in [1, 2] { XCTAssertEqual(Parallel.sorted(items, threads: threads, by: precedes).map(\.id), expected, "\(n) on \(threads)") }
        }
    }

    /// `forEach` taking the first items one at a time and the rest in batches runs every item of the order exactly
    /// once, on a worker in range, whatever the counts (batches longer than the rest, no singles, one thread).
    func testForEachInBatchesRunsEveryItemOnce() {
        for (n, singles, batch, threads) in [(0, 4, 8, 2), (1, 4, 8, 2), (5, 10, 3, 2), (1000, 128, 32, 2), (1001, 0, 7, 3),
                                              (999, 999, 50, 2), (300, 5, 1, 4), (64, 2, 1000, 2), (500, 7, 9, 1), (77, 3, 0, 2)] {
            let order = (0..<n).reversed().map { $0 }   // (any order: here the reverse)
            var seen = [Int](repeating: 0, count: n), workers = [Int](repeating: -1, count: n)
            seen.withUnsafeMutableBufferPointer { seen in
                workers.withUnsafeMutableBufferPointer { workers in
                    Parallel.forEach(order, threads: threads, singles: singles, batch: batch) { worker, i in
                        seen[i] += 1; workers[i] = worker
                    }
                }
            }
            XCTAssertEqual(seen, [Int](repeating: 1, count: n), "\(n) items, \(singles) singles, batches of \(batch), \(threads) threads")
            XCTAssertTrue(workers.allSatisfy { (0..<threads).contains($0) }, "\(n)/\(threads)")
        }
    }

    /// `halves` covers 0..<n with two contiguous ranges, the first one first, the larger half second when n is odd.
    func testHalvesCoverEveryIndexOnce() {
        for n in [0, 1, 2, 7, 10_000] {
            let (a, b) = Parallel.halves(n) { $0 }
            XCTAssertEqual(a, 0..<(n / 2), "\(n)")
            XCTAssertEqual(b, (n / 2)..<n, "\(n)")
            let (x, y) = Parallel.halves(n) { r in r.map { $0 * 2 } }
            XCTAssertEqual(x + y, (0..<n).map { $0 * 2 }, "\(n)")
        }
    }
}
