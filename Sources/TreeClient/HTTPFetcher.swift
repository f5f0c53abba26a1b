import Foundation
import LowLevel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Crypto

/// Downloads files of a published tree over HTTP(S): a timeout on every request, a few retries with exponential
/// backoff for failures that may pass (a timeout, a dropped connection, a 5xx, a body cut short or with the wrong
/// hash), and bounded parallelism for many files. Both the app-side sync and `generator build --previous URL` use it.
///
/// The server is not trusted with memory or time: no body is read past its listed size (`metadataLimit` for a file
/// listed nowhere), whatever the transfer encoding makes of it; a request below the minimum rate is dropped; a run
/// bound by `bounded(for:)` ends by its deadline; and no redirect is ever followed.
///
/// Calls block the calling thread (run them off the main thread in an app); the requests themselves run on
/// URLSession's own queue. Nothing is cached: conditional requests are made explicitly with `ifNoneMatch`.
public final class HTTPFetcher: Sendable {
    public struct Configuration: Sendable {
        /// Seconds a request may wait for the next bytes (connecting, the first byte, or between bytes). Whole
        /// seconds, at least 1: URLSession on Linux drops the fraction (and would time out at once below 1).
        public var timeout: TimeInterval
        /// Seconds a whole download may take, however steadily it trickles in.
        public var resourceTimeout: TimeInterval
        /// Further attempts after a failure that may pass; 404 and other client errors are never retried.
        public var retries: Int
        /// Seconds before the first retry, doubled for each later one.
        public var backoff: TimeInterval
        /// Requests in flight at once for `fetchAll`.
        public var maxParallel: Int
        /// Bytes a second a request must average over each `rateWindow` from its start (0: no minimum): a server
        /// that trickles a body is dropped long before `resourceTimeout`.
        public var minimumRate: Int
        /// Seconds over which `minimumRate` is averaged.
        public var rateWindow: TimeInterval
        /// Seconds a whole run may take (a sync, or one step of reading a previous release), retries and waits
        /// included: see `bounded(for:)`.
        public var deadline: TimeInterval

        public init(timeout: TimeInterval = 30, resourceTimeout: TimeInterval = 600, retries: Int = 3,
                    backoff: TimeInterval = 0.25, maxParallel: Int = 8, minimumRate: Int = 100,
                    rateWindow: TimeInterval = 30, deadline: TimeInterval = 3600) {
            self.timeout = max(1, timeout.rounded(.up)); self.resourceTimeout = max(1, resourceTimeout.rounded(.up))
            self.retries = max(0, retries); self.backoff = max(0, backoff); self.maxParallel = max(1, maxParallel)
            self.minimumRate = max(0, minimumRate); self.rateWindow = max(1, rateWindow); self.deadline = max(1, deadline)
        }
    }

    /// The most bytes a file not listed with its size may have: `update-manifest.json` and the other small metadata
    /// files a release names outside its index (`root.json`, `roots/N.root.json`, a signature envelope). A file the
    /// index lists may have exactly its listed size.
    public static let metadataLimit = 1_048_576

    /// What to expect of a body: it is used only when both match (a mismatch is retried, then reported).
    public struct Expected: Sendable, Equatable {
        public var size: Int
        public var sha256: String
        public init(size: Int, sha256: String) { self.size = size; self.sha256 = sha256 }
    }

    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
        public var etag: String?
        /// 304: the resource still has the ETag given in `ifNoneMatch` (the body is empty).
        public var notModified: Bool { status == 304 }
    }

    /// Why a download failed, naming the URL; `isNotFound` tells "not published" apart from "not reachable".
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public enum Kind: Error, Sendable, Equatable {
            /// The URL itself answered 404 (a redirect to a 404 is `redirected`).
            case notFound
            case status(Int)
            case timeout
            case transport(String)
            /// The connection closed before the body the server announced (Content-Length) was whole.
            case incomplete(received: Int, expected: Int)
            /// Other bytes than listed: another size or another hash.
            case mismatch(String)
            /// More bytes than the request may read: its listed size (`listed`) or `metadataLimit`. `announced`: the
            /// Content-Length that stopped it before any byte was read.
            case tooLarge(announced: Int?, limit: Int, listed: Bool)
            /// Fewer bytes in `seconds` than the configuration's minimum rate asks.
            case tooSlow(received: Int, seconds: Int, minimumRate: Int)
            /// `what` took longer than its deadline (`bounded(for:)`).
            case deadline(what: String, seconds: Int)
            /// A 3xx answer: never followed. `to`: its Location, resolved against the URL.
            case redirected(status: Int, to: String?)
            case cancelled
        }
        public let url: URL
        public let kind: Kind
        public let attempts: Int

        public var isNotFound: Bool { kind == .notFound }

        public var description: String {
            "\(url.absoluteString): \(Self.explain(kind))" + (attempts > 1 ? " (after \(attempts) attempts)" : "")
        }

        static func explain(_ kind: Kind) -> String {
            switch kind {
            case .notFound: return "not found (HTTP 404)"
            case .status(let s): return "HTTP \(s)"
            case .timeout: return "timed out"
            case .transport(let m): return m
            case .incomplete(let got, let expected): return "the connection closed after \(got) of the \(expected) bytes announced"
            case .mismatch(let m): return m
            case .tooLarge(let announced?, let limit, let listed):
                return "announced \(announced) bytes (Content-Length), more than \(limitText(limit, listed)): not read"
            case .tooLarge(nil, let limit, let listed): return "more than \(limitText(limit, listed)): stopped reading"
            case .tooSlow(let got, let seconds, let rate):
                return "sent \(got) bytes in \(seconds) s, below the minimum rate of \(rate) bytes/s"
            case .deadline(let what, let seconds): return "\(what) took longer than its \(seconds) s deadline"
            case .redirected(let status, let to):
                return "redirected (\(status)) to \(to.map { TreePath.shown($0, limit: 300) } ?? "no Location"): redirects are not followed"
            case .cancelled: return "cancelled after another download failed"
            }
        }

        private static func limitText(_ limit: Int, _ listed: Bool) -> String {
            listed ? "the \(limit) bytes listed for it" : "\(limit) bytes, the most a release's metadata file may have"
        }

        /// For a redirect to the same tree path under another base: that base, the site URL to give instead.
        public func movedSite(treePath: String) -> String? {
            guard case .redirected(_, let to?) = kind, to.hasSuffix("/" + treePath) else { return nil }
            return String(to.dropLast(treePath.utf8.count))
        }
    }

    public let configuration: Configuration
    private let connection: Connection
    /// When the run this fetcher is bound to must end (`bounded(for:)`); nil: no deadline.
    private let deadline: Deadline?

    struct Deadline: Sendable {
        let at: DispatchTime
        let seconds: Int
        let what: String
    }

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        connection = Connection(configuration)
        deadline = nil
    }

    private init(sharing other: HTTPFetcher, deadline: Deadline) {
        configuration = other.configuration
        connection = other.connection
        self.deadline = deadline
    }

    /// The same fetcher (session, counts) for one run that must end within `configuration.deadline` seconds from
    /// now, retries and waits included; `what` names the run in the error ("the sync took longer than its 60 s
    /// deadline").
    public func bounded(for what: String) -> HTTPFetcher {
        let seconds = configuration.deadline
        return HTTPFetcher(sharing: self, deadline: Deadline(at: .now() + seconds, seconds: Int(seconds.rounded(.up)), what: what))
    }

    /// Body bytes received so far by successful requests (after any transfer decoding).
    public var bytesReceived: Int { connection.received.withLock { $0 } }

    /// GETs `url`, retrying what may pass. 304 is returned when `ifNoneMatch` is given and the server answers it;
    /// 404 and any other non-2xx status throw a `Failure`, and so does a redirect (never followed). With `expected`,
    /// a body of another size or hash is a failure too (retried: a CDN may serve a half-replaced object for a
    /// moment), and no more than its size plus one byte is ever read; without it, no more than `metadataLimit`.
    ///
    /// `alternate`: where the same bytes may also be (a content-addressed copy, `TreePath.contentAddressed`). When
    /// `url` answers with other bytes than `expected`, it is asked at once, and its body is used if it matches; once
    /// it answers 404 it is not asked again, and `url` is retried as usual.
    public func fetch(_ url: URL, ifNoneMatch: String? = nil, expected: Expected? = nil, alternate: URL? = nil,
                      cancelled: () -> Bool = { false }) throws -> Response {
        var attempt = 0
        var alternate = expected == nil ? nil : alternate
        let limit = expected?.size ?? Self.metadataLimit
        while true {
            attempt += 1
            if cancelled() { throw Failure(url: url, kind: .cancelled, attempts: attempt - 1) }
            if let passed = deadlinePassed() { throw Failure(url: url, kind: passed, attempts: attempt - 1) }
            let kind: Failure.Kind
            switch once(url, ifNoneMatch: ifNoneMatch, limit: limit, listed: expected != nil) {
            case .success(let r):
                if r.status == 304 && ifNoneMatch != nil { return r }
                guard (200..<300).contains(r.status) else { kind = try Self.refusal(of: r.status, url, attempt); break }
                guard let expected, let why = Self.mismatch(r.body, expected) else { count(r.body.count); return r }
                kind = why
            case .failure(let k):
                if case .redirected = k { throw Failure(url: url, kind: k, attempts: attempt) }
                if case .deadline = k { throw Failure(url: url, kind: k, attempts: attempt) }
                kind = k
            }
            // Other bytes at a fixed path: the bytes listed may be in the store under their hash.
            if let expected, let alt = alternate, Self.isWrongBytes(kind) {
                switch once(alt, ifNoneMatch: nil, limit: expected.size, listed: true) {
                case .success(let a) where (200..<300).contains(a.status) && Self.mismatch(a.body, expected) == nil:
                    count(a.body.count)
                    return a
                case .success(let a) where a.status == 404 || a.status == 410:
                    alternate = nil
                default:
                    break
                }
            }
            guard attempt <= configuration.retries, !cancelled() else { throw Failure(url: url, kind: kind, attempts: attempt) }
            try pause(configuration.backoff * pow(2, Double(attempt - 1)), url, attempt)
        }
    }

    /// The failure a non-2xx status is, thrown when asking again cannot help.
    private static func refusal(of status: Int, _ url: URL, _ attempt: Int) throws -> Failure.Kind {
        if status == 404 { throw Failure(url: url, kind: .notFound, attempts: attempt) }
        // A 3xx the transport did not offer to follow (no Location, 300, 304 unasked): not the file either.
        if (300..<400).contains(status) { throw Failure(url: url, kind: .redirected(status: status, to: nil), attempts: attempt) }
        // Other client errors (403, 401, 410, …) will not pass by asking again.
        if (400..<500).contains(status), status != 408, status != 429 { throw Failure(url: url, kind: .status(status), attempts: attempt) }
        return .status(status)
    }

    /// Whether a failure says the URL served other bytes than listed (the content-addressed copy may have them).
    private static func isWrongBytes(_ kind: Failure.Kind) -> Bool {
        switch kind {
        case .mismatch, .tooLarge: return true
        default: return false
        }
    }

    /// The deadline's failure once it has passed; nil before (or with no deadline).
    private func deadlinePassed() -> Failure.Kind? {
        guard let deadline, DispatchTime.now() >= deadline.at else { return nil }
        return .deadline(what: deadline.what, seconds: deadline.seconds)
    }

    /// Waits before a retry, but never past the deadline (which then fails the fetch).
    private func pause(_ seconds: TimeInterval, _ url: URL, _ attempt: Int) throws {
        var wake = DispatchTime.now() + seconds
        if let deadline, deadline.at < wake { wake = deadline.at }
        _ = DispatchSemaphore(value: 0).wait(timeout: wake)
        if let passed = deadlinePassed() { throw Failure(url: url, kind: passed, attempts: attempt) }
    }

    /// Fetches every item with at most `maxParallel` requests in flight; `body` runs (on a worker thread) for each
    /// verified body. The first failure stops the rest (requests not yet started are not made) and is thrown.
    /// `progress` is told (on a worker thread) how many items are done.
    /// `alternate`: as for `fetch`, where an item's bytes may also be.
    public func fetchAll<Item: Sendable>(_ items: [Item], url: @escaping @Sendable (Item) -> URL,
                                         expected: @escaping @Sendable (Item) -> Expected?,
                                         alternate: @escaping @Sendable (Item) -> URL? = { _ in nil },
                                         progress: (@Sendable (Int, Int) -> Void)? = nil,
                                         body: @escaping @Sendable (Item, [UInt8]) throws -> Void) throws {
        guard !items.isEmpty else { return }
        let work = Batch(items: items, url: url, expected: expected, alternate: alternate, body: body, progress: progress)
        // Threads of their own: each one mostly waits on the network, and Dispatch's concurrentPerform would run no
        // more of them than there are cores. (The closures are escaping: a finished thread may release them a moment
        // after this returns.)
        let finished = DispatchGroup()
        for _ in 0..<min(configuration.maxParallel, items.count) {
            finished.enter()
            Thread.detachNewThread { [self] in
                work.run(with: self)
                finished.leave()
            }
        }
        finished.wait()
        if let e = work.firstError { throw e }
    }

    /// One `fetchAll`: the caller's items and closures, which its worker threads share, and how far the batch got
    /// (behind a lock).
    private final class Batch<Item: Sendable>: Sendable {
        let items: [Item]
        let url: @Sendable (Item) -> URL
        let expected: @Sendable (Item) -> Expected?
        let alternate: @Sendable (Item) -> URL?
        let body: @Sendable (Item, [UInt8]) throws -> Void
        let progress: (@Sendable (Int, Int) -> Void)?
        private let state = Locked(State())

        /// The next item to take, how many are done, the first failure.
        private struct State: Sendable {
            var next = 0, done = 0
            var failure: Error?
        }

        init(items: [Item], url: @escaping @Sendable (Item) -> URL, expected: @escaping @Sendable (Item) -> Expected?,
             alternate: @escaping @Sendable (Item) -> URL?, body: @escaping @Sendable (Item, [UInt8]) throws -> Void,
             progress: (@Sendable (Int, Int) -> Void)?) {
            self.items = items; self.url = url; self.expected = expected; self.alternate = alternate; self.body = body; self.progress = progress
        }

        var firstError: Error? { state.withLock { $0.failure } }

        func run(with fetcher: HTTPFetcher) {
            while let i = take() {
                do {
                    let r = try fetcher.fetch(url(items[i]), expected: expected(items[i]), alternate: alternate(items[i]),
                                              cancelled: { self.firstError != nil })
                    try body(items[i], r.body)
                    let d = state.withLock { $0.done += 1; return $0.done }
                    progress?(d, items.count)
                } catch {
                    // A cancellation is the consequence of the first failure, never the one reported.
                    state.withLock { if $0.failure == nil { $0.failure = error } }
                    return
                }
            }
        }

        /// The next item's index; nil when all are taken or one failed.
        private func take() -> Int? {
            state.withLock { s in
                guard s.failure == nil, s.next < items.count else { return nil }
                s.next += 1
                return s.next - 1
            }
        }
    }

    /// Why `body` is not the expected file; nil when it is. (A whole body of another size is another file, not a
    /// cut connection: that is `incomplete`, told by the Content-Length.)
    static func mismatch(_ body: [UInt8], _ expected: Expected) -> Failure.Kind? {
        if body.count != expected.size { return .mismatch("\(body.count) bytes where \(expected.size) are listed") }
        return sha256Hex(body) != expected.sha256.lowercased() ? .mismatch("sha256 differs from the one published for it") : nil
    }

    private func count(_ n: Int) { connection.received.withLock { $0 += n } }

    /// One request, no retries: its body streamed and capped at `limit` bytes, stopped when it is too slow or the
    /// deadline passes.
    private func once(_ url: URL, ifNoneMatch: String?, limit: Int, listed: Bool) -> Result<Response, Failure.Kind> {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let transfer = Transfer(url, limit: limit, listed: listed)
        if let curl = connection.curl {
            curl.get(url, ifNoneMatch: ifNoneMatch, into: transfer, configuration: configuration, deadline: deadline)
            return transfer.outcome()
        }
        let task = connection.session.dataTask(with: request)
        connection.delegate.add(transfer, for: task)
        defer { connection.delegate.remove(task) }
        task.resume()
        watch(transfer, task)
        return transfer.outcome()
    }

    /// Blocks until the request ends, waking once a rate window (or at the deadline) to stop it when it fell below
    /// the minimum rate or ran out of time. Never polls: the thread sleeps on the request's semaphore.
    private func watch(_ transfer: Transfer, _ task: URLSessionTask) {
        var rate = RateCheck(configuration)
        while true {
            var wake = rate.due
            if let deadline, deadline.at < wake { wake = deadline.at }
            if transfer.finished.wait(timeout: wake) == .success { return }
            if let passed = deadlinePassed() { transfer.fail(passed); break }
            if let why = rate.check(received: transfer.received) { transfer.fail(why); break }
        }
        task.cancel()
        // The delegate's last call (didComplete), so the transfer is not used after its task.
        _ = transfer.finished.wait(timeout: .now() + 10)
    }

    static func kind(of error: Error) -> Failure.Kind {
        let ns = error as NSError
        if ns.domain == NSURLErrorDomain {
            switch ns.code {
            case NSURLErrorTimedOut: return .timeout
            case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return .transport("host not found")
            case NSURLErrorCannotConnectToHost: return .transport("connection refused")
            case NSURLErrorNetworkConnectionLost: return .transport("the connection was lost mid-download")
            case NSURLErrorNotConnectedToInternet: return .transport("not connected to the internet")
            case NSURLErrorCancelled: return .cancelled
            default: break
            }
        }
        return .transport(ns.localizedDescription)
    }

    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8](); out.reserveCapacity(64)
        for b in SHA256.hash(data: bytes) { out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
