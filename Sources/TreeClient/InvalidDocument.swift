import Foundation

/// A release document that cannot be used as it is.
struct InvalidDocument: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
