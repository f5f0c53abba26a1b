import Foundation
import LowLevel

/// Work that runs on a thread of its own while the caller goes on (a domain's content-named files are built while
/// the other files are validated and serialised); `wait()` gives its result.
final class Background<T>: Sendable {
    private let result = Locked<Result<T, Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> T) {
        let (result, done) = (self.result, self.done)
        let thread = Thread {
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Blocks until the work is done (any number of times).
    func wait() throws -> T {
        join()
        return try result.withLock { $0! }.get()
    }

    /// Blocks until the work is done, whatever its result (which stays for `wait` or `take`).
    func join() {
        done.wait()
        done.signal()
    }

    /// The result, handed over: kept here no longer (a large result is released as soon as its taker is done with
    /// it). Call once, and no `wait` after it (`join` is fine).
    func take() throws -> T {
        join()
        return try result.withLock { r in defer { r = nil }; return r! }.get()
    }
}
