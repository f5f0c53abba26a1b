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

        public init(timeout: TimeInterval = 30, resourceTimeout: TimeInterval = 600, retries: Int = 3,
                    backoff: TimeInterval = 0.25, maxParallel: Int = 8) {
            self.timeout = max(1, timeout.rounded(.up)); self.resourceTimeout = max(1, resourceTimeout.rounded(.up))
            self.retries = max(0, retries); self.backoff = max(0, backoff); self.maxParallel = max(1, maxParallel)
        }
    }

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
            case notFound
            case status(Int)
            case timeout
            case transport(String)
            case incomplete(received: Int, expected: Int)
            case mismatch(String)
            case cancelled
        }
        public let url: URL
        public let kind: Kind
        public let attempts: Int

        public var isNotFound: Bool { kind == .notFound }

        public var description: String {
            let what: String
            switch kind {
            case .notFound: what = "not found (HTTP 404)"
            case .status(let s): what = "HTTP \(s)"
            case .timeout: what = "timed out"
            case .transport(let m): what = m
            case .incomplete(let got, let expected): what = "the connection closed after \(got) of \(expected) bytes"
            case .mismatch(let m): what = m
            case .cancelled: what = "cancelled after another download failed"
            }
            return "\(url.absoluteString): \(what)" + (attempts > 1 ? " (after \(attempts) attempts)" : "")
        }
    }

    public let configuration: Configuration
    private let session: URLSession
    /// Body bytes received so far by successful requests.
    private let received = Locked(0)

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let c = URLSessionConfiguration.ephemeral
        c.timeoutIntervalForRequest = configuration.timeout
        c.timeoutIntervalForResource = configuration.resourceTimeout
        c.httpMaximumConnectionsPerHost = configuration.maxParallel
        // Every byte is checked against the tree's own hashes: a cache in between could only serve stale bytes.
        c.urlCache = nil
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: c)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Body bytes received so far by successful requests (after any transfer decoding).
    public var bytesReceived: Int { received.withLock { $0 } }

    /// GETs `url`, retrying what may pass. 304 is returned when `ifNoneMatch` is given and the server answers it;
    /// 404 and any other non-2xx status throw a `Failure`. With `expected`, a body of another size or hash is a
    /// failure too (retried: a CDN may serve a half-replaced object for a moment).
    ///
    /// `alternate`: where the same bytes may also be (a content-addressed copy, `TreePath.contentAddressed`). When
    /// `url` answers with other bytes than `expected`, it is asked at once, and its body is used if it matches; once
    /// it answers 404 it is not asked again, and `url` is retried as usual.
    public func fetch(_ url: URL, ifNoneMatch: String? = nil, expected: Expected? = nil, alternate: URL? = nil,
                      cancelled: () -> Bool = { false }) throws -> Response {
        var attempt = 0
        var alternate = expected == nil ? nil : alternate
        while true {
            attempt += 1
            if cancelled() { throw Failure(url: url, kind: .cancelled, attempts: attempt - 1) }
            let outcome = once(url, ifNoneMatch: ifNoneMatch)
            var kind: Failure.Kind
            switch outcome {
            case .success(let r):
                if r.status == 304 && ifNoneMatch != nil { return r }
                if (200..<300).contains(r.status) {
                    guard let expected else { count(r.body.count); return r }
                    if let why = Self.mismatch(r.body, expected) {
                        kind = why
                        // Another release's bytes at a fixed path: the bytes listed may be in the store under their hash.
                        if let alt = alternate {
                            switch once(alt, ifNoneMatch: nil) {
                            case .success(let a) where (200..<300).contains(a.status) && Self.mismatch(a.body, expected) == nil:
                                count(a.body.count)
                                return a
                            case .success(let a) where a.status == 404 || a.status == 410:
                                alternate = nil
                            default:
                                break
                            }
                        }
                    } else { count(r.body.count); return r }
                } else if r.status == 404 || r.status == 410 {
                    throw Failure(url: url, kind: .notFound, attempts: attempt)
                } else {
                    kind = .status(r.status)
                    // Other client errors (403, 401, …) will not pass by asking again.
                    if (400..<500).contains(r.status), r.status != 408, r.status != 429 { throw Failure(url: url, kind: kind, attempts: attempt) }
                }
            case .failure(let k): kind = k
            }
            guard attempt <= configuration.retries, !cancelled() else { throw Failure(url: url, kind: kind, attempts: attempt) }
            Thread.sleep(forTimeInterval: configuration.backoff * pow(2, Double(attempt - 1)))
        }
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

    /// Why `body` is not the expected file; nil when it is.
    static func mismatch(_ body: [UInt8], _ expected: Expected) -> Failure.Kind? {
        if body.count != expected.size {
            return body.count < expected.size ? .incomplete(received: body.count, expected: expected.size)
                : .mismatch("\(body.count) bytes, expected \(expected.size)")
        }
        return sha256Hex(body) != expected.sha256.lowercased() ? .mismatch("sha256 differs from the one published for it") : nil
    }

    private func count(_ n: Int) { received.withLock { $0 += n } }

    /// One request, no retries.
    private func once(_ url: URL, ifNoneMatch: String?) -> Result<Response, Failure.Kind> {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Response, Failure.Kind>>(.failure(.transport("no response")))
        let task = session.dataTask(with: request) { data, response, error in
            outcome.withLock { $0 = Self.outcome(data, response, error) }
            done.signal()
        }
        task.resume()
        done.wait()
        return outcome.withLock { $0 }
    }

    /// What a finished request gives.
    private static func outcome(_ data: Data?, _ response: URLResponse?, _ error: Error?) -> Result<Response, Failure.Kind> {
        if let error { return .failure(kind(of: error)) }
        guard let http = response as? HTTPURLResponse else { return .failure(.transport("not an HTTP response")) }
        let body = [UInt8](data ?? Data())
        // A body shorter than announced is a cut connection, whatever the transport made of it.
        if (200..<300).contains(http.statusCode), http.value(forHTTPHeaderField: "Content-Encoding") == nil,
           let announced = http.value(forHTTPHeaderField: "Content-Length").flatMap({ Int($0) }), announced != body.count {
            return .failure(.incomplete(received: body.count, expected: announced))
        }
        return .success(Response(status: http.statusCode, body: body, etag: http.value(forHTTPHeaderField: "ETag")))
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
