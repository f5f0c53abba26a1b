import Foundation

/// Work that runs on a thread of its own while the caller goes on (a domain's content-named files are built while
/// the other files are validated and serialised); `wait()` gives its result.
final class Background<T>: @unchecked Sendable {
    private var result: Result<T, Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            result = Result { try work() }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Blocks until the work is done (any number of times).
    func wait() throws -> T {
        done.wait()
        done.signal()
        return try result!.get()
    }

    /// Blocks until the work is done, whatever its result (which stays for `wait` or `take`).
    func join() {
        done.wait()
        done.signal()
    }

    /// The result, handed over: kept here no longer (a large result is released as soon as its taker is done with
    /// it). Call once, and no `wait` after it (`join` is fine).
    func take() throws -> T {
        done.wait()
        done.signal()
        defer { result = nil }
        return try result!.get()
    }
}
