import Foundation

/// Work done at most once, by whichever thread asks first (the others wait for it); its result, or its error, is
/// given to every caller.
final class Once<T>: @unchecked Sendable {
    private var result: Result<T, Error>?
    private let work: () throws -> T
    private let lock = NSLock()

    init(_ work: @escaping () throws -> T) { self.work = work }

    func value() throws -> T {
        lock.lock(); defer { lock.unlock() }
        if result == nil { result = Result { try work() } }
        return try result!.get()
    }
}
