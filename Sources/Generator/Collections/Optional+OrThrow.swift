import Foundation

extension Optional {
    /// The value, or `error` thrown when there is none.
    func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let v = self else { throw error() }
        return v
    }
}
