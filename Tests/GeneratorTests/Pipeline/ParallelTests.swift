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
}
