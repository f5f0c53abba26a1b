import Foundation
import LowLevel

/// Work done at most once, by whichever thread asks first (the others wait for it); its result, or its error, is
/// given to every caller.
final class Once<T>: Sendable {
    private let state: Locked<(work: (() throws -> T)?, result: Result<T, Error>?)>

    init(_ work: @escaping () throws -> T) { state = Locked((work, nil)) }

    func value() throws -> T {
        try state.withLock { s in
            if s.result == nil { s.result = Result { try s.work!() }; s.work = nil }
            return s.result!
        }.get()
    }
}
