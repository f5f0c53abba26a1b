/// The bytes read from one connection, cut into request heads within the caps of `ConnectionLimits`.
///
/// Each byte is looked at once for a line end, so a head costs time in proportion to its size, and the caps are
/// checked after every chunk: a request line or header block that crosses its cap is refused (414, 431) as soon as
/// the chunk crossing it arrives, without reading the rest.
struct RequestHeadBuffer {
    enum Outcome: Equatable {
        case needMore
        case head(RequestHead)
        /// Answer this, then close the connection.
        case refused(RequestHead.Refusal)
    }

    let limits: ConnectionLimits
    /// Bytes read and not yet used: the head being read, or bytes that came after the last head (a body, or the
    /// next pipelined request).
    private(set) var bytes: [UInt8] = []
    /// Bytes before this were searched for line ends already.
    private var scanned = 0
    /// Where the line being read starts.
    private var lineStart = 0
    /// Just past the request line's line end, once it has come.
    private var headerStart: Int?

    init(limits: ConnectionLimits) { self.limits = limits }

    mutating func append(_ chunk: [UInt8]) { bytes += chunk }

    /// The next head when the buffer holds one (removed from the buffer); `.needMore` when it may still come.
    mutating func next() -> Outcome {
        while let lf = bytes[scanned...].firstIndex(of: 0x0A) {
            scanned = lf + 1
            let empty = lf == lineStart || (lf == lineStart + 1 && bytes[lineStart] == 0x0D)
            lineStart = lf + 1
            guard let start = headerStart else {
                if lf + 1 > limits.requestLine { return .refused(Self.uriTooLong) }
                if !empty { headerStart = lf + 1 }   // (empty lines before the request line are skipped)
                continue
            }
            if lf + 1 - start > limits.headerBlock { return .refused(Self.headersTooLarge) }
            if empty { return take(lf + 1) }
        }
        scanned = bytes.count
        if let start = headerStart {
            if bytes.count - start > limits.headerBlock { return .refused(Self.headersTooLarge) }
        } else if bytes.count > limits.requestLine {
            return .refused(Self.uriTooLong)
        }
        return .needMore
    }

    /// Removes up to `count` buffered bytes (a body being skipped) and says how many it removed.
    mutating func drop(upTo count: Int) -> Int {
        precondition(headerStart == nil && scanned == 0, "only between heads")
        let n = min(count, bytes.count)
        bytes.removeFirst(n)
        return n
    }

    private mutating func take(_ end: Int) -> Outcome {
        let head = bytes[..<end]
        defer {
            bytes.removeFirst(end)
            scanned = 0
            lineStart = 0
            headerStart = nil
        }
        do { return .head(try RequestHead.parse(head)) } catch let refusal as RequestHead.Refusal {
            return .refused(refusal)
        } catch {
            return .refused(.bad("\(error)"))
        }
    }

    static let uriTooLong = RequestHead.Refusal(status: 414, reason: "URI Too Long", why: "the request line is longer than the server reads")
    static let headersTooLarge = RequestHead.Refusal(status: 431, reason: "Request Header Fields Too Large",
                                                     why: "the header fields are longer than the server reads")
}
