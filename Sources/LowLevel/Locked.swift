import Foundation

/// A value several threads share, reached only while its lock is held: the shape of `Synchronization.Mutex`, which
/// the libraries cannot use while they support iOS 15–17 and macOS 13–14 (Mutex needs iOS 18 and macOS 15; swap it
/// in then).
///
/// The one place the project's shared mutable state is declared safe to send across threads: types that share state
/// hold one of these instead of declaring themselves `@unchecked Sendable`. Every access goes through `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    /// `body` with the value, under the lock.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
