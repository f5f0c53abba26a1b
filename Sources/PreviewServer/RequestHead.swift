import Foundation

/// A request's line and header fields (RFC 9112 §3, §5), parsed from the bytes `RequestHeadBuffer` cut out within
/// its caps. Strict where leniency could confuse what follows: control characters, obsolete line folding, spaces
/// before a field's colon and a Content-Length that is not one number are refused (400).
struct RequestHead: Sendable, Equatable {
    struct Field: Sendable, Equatable {
        var name: String
        var value: String
    }

    var method: String
    var target: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    var version: String
    var fields: [Field]

    /// Why a head is refused: the status to answer with before closing the connection.
    struct Refusal: Error, Equatable {
        var status: Int
        var reason: String
        var why: String

        static func bad(_ why: String) -> Refusal { Refusal(status: 400, reason: "Bad Request", why: why) }
    }

    /// The first value of the field `name` (case-insensitive).
    func header(_ name: String) -> String? { values(name).first }

    func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Whether the client keeps the connection for another request: HTTP/1.1 unless it says `Connection: close`,
    /// HTTP/1.0 only when it says `keep-alive`.
    var keepAlive: Bool {
        let tokens = values("Connection").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return version == "HTTP/1.1" ? !tokens.contains("close") : tokens.contains("keep-alive")
    }

    enum Body: Equatable {
        case none
        case length(Int)
        /// Transfer-Encoding: its end is found only by decoding it, which this server never does.
        case unframed
    }

    /// How a body follows the head (RFC 9112 §6.3).
    func body() throws -> Body {
        if header("Transfer-Encoding") != nil { return .unframed }
        let lengths = Set(values("Content-Length").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) })
        guard let length = lengths.first else { return .none }
        guard lengths.count == 1, (1...18).contains(length.utf8.count), length.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let n = Int(length) else { throw Refusal.bad("Content-Length is not one number") }
        return n == 0 ? .none : .length(n)
    }

    /// Parses a complete head: its bytes up to and including the empty line that ends it.
    static func parse(_ bytes: ArraySlice<UInt8>) throws -> RequestHead {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }   // empty lines before the request line (§2.2)
        guard let requestLine = lines.first else { throw Refusal.bad("no request line") }
        var head = try parseRequestLine(requestLine)
        for line in lines.dropFirst() {
            if line.isEmpty { break }
            head.fields.append(try parseField(line))
        }
        return head
    }

    static func parseRequestLine(_ line: ArraySlice<UInt8>) throws -> RequestHead {
        guard !line.contains(where: isControl) else { throw Refusal.bad("a control character in the request line") }
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw Refusal.bad("the request line is not METHOD TARGET HTTP-VERSION")
        }
        guard parts[0].allSatisfy(isTokenByte) else { throw Refusal.bad("the method is not a token") }
        guard let target = String(bytes: parts[1], encoding: .utf8) else { throw Refusal.bad("the request target is not UTF-8") }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            if version.range(of: #"^HTTP/[0-9]\.[0-9]$"#, options: .regularExpression) != nil {
                throw Refusal(status: 505, reason: "HTTP Version Not Supported", why: "only HTTP/1.1 and HTTP/1.0 are served")
            }
            throw Refusal.bad("no HTTP version in the request line")
        }
        return RequestHead(method: String(decoding: parts[0], as: UTF8.self), target: target, version: version, fields: [])
    }

    static func parseField(_ line: ArraySlice<UInt8>) throws -> Field {
        guard line.first != 0x20, line.first != 0x09 else { throw Refusal.bad("obsolete line folding in a header field") }
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex, line[..<colon].allSatisfy(isTokenByte) else {
            throw Refusal.bad("a header field without a name and a colon")
        }
        var value = line[(colon + 1)...]
        while let b = value.first, b == 0x20 || b == 0x09 { value.removeFirst() }
        while let b = value.last, b == 0x20 || b == 0x09 { value.removeLast() }
        guard !value.contains(where: { isControl($0) && $0 != 0x09 }) else { throw Refusal.bad("a control character in a header field") }
        return Field(name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    static func isControl(_ b: UInt8) -> Bool { b < 0x20 || b == 0x7F }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return tokenSymbols.contains(b)
        }
    }

    static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
}
