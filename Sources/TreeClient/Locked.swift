import Foundation

/// State that threads share, reached only with its lock held: the shape of `Synchronization.Mutex`, which TreeClient
/// cannot use while it supports iOS 15–17 and macOS 13–14 (Mutex needs iOS 18 and macOS 15; swap it in then).
///
/// Sendable on trust, since the compiler cannot see that a lock guards `state`: every access goes through
/// `withLock`, and `State` is Sendable, so nothing reached through the lock is shared unguarded.
final class Locked<State: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) { self.state = state }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
