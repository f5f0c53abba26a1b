import Foundation

/// An HTTP answer before it is written: status, headers in order, and the body (empty for HEAD and 304, whose
/// Content-Length is still the one a GET would carry).
public struct Reply: Sendable {
    public var status: Int
    public var reason: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? { headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
}
