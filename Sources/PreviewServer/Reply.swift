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

extension Reply {
    /// A plain-text answer (a refused request, or the server stopping).
    static func text(_ status: Int, _ reason: String, _ message: String) -> Reply {
        let body = Array(message.utf8)
        return Reply(status: status, reason: reason,
                     headers: [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.count))], body: body)
    }

    /// The answer as written to the connection, in one write: status line, `Date`, the headers, `Connection` when
    /// given, the body.
    func encoded(date: String, connection: String?) -> Data {
        var head = "HTTP/1.1 \(status) \(reason)\r\nDate: \(date)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let connection { head += "Connection: \(connection)\r\n" }
        head += "\r\n"
        var data = Data(head.utf8)
        data.append(contentsOf: body)
        return data
    }
}
