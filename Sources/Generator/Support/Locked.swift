import Foundation

/// A value several threads share, reached only while its lock is held. The one place the generator's shared mutable
/// state is declared safe to send across threads: types that share state hold one of these instead of declaring
/// themselves `@unchecked Sendable`.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    /// `body` with the value, under the lock.
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
