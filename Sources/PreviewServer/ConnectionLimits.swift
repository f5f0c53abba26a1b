/// What one client may cost the server: a request head is read only up to these caps and within the timeout, so a
/// client sending an endless line or header block, or nothing at all, costs a bounded read and then its connection.
public struct ConnectionLimits: Sendable {
    /// Bytes of the request line (with its line end, and any empty lines before it); more gets 414 URI Too Long.
    public var requestLine = 8 * 1024
    /// Bytes of the header fields (with their line ends and the empty line closing them); more gets
    /// 431 Request Header Fields Too Large.
    public var headerBlock = 64 * 1024
    /// A body sent with a request (which nothing here reads) up to this size is skipped so the connection can carry
    /// the next request; a longer one, or one of unknown length, closes the connection after the answer.
    public var skippedBody = 64 * 1024
    /// Seconds a connection may take to send a whole request head (and a skipped body), counted from the end of the
    /// previous answer: an idle or half-open connection is closed after this.
    public var readTimeout = 15.0
    /// Seconds an answer may take to be written: a client that stops reading is dropped after this.
    public var writeTimeout = 30.0

    public init() {}
}
