import Foundation
import LowLevel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPFetcher {
    /// The session and what its requests share: the delegate that streams every body, and the bytes received. Shared
    /// by a fetcher and the copies `bounded(for:)` makes of it; the session ends with the last of them.
    final class Connection: Sendable {
        let session: URLSession
        let delegate = SessionDelegate()
        /// Body bytes received so far by successful requests.
        let received = Locked(0)
        /// The transport on Linux (nil elsewhere, or when libcurl cannot be loaded: URLSession then).
        let curl: CurlTransport?

        init(_ configuration: Configuration) {
            let c = URLSessionConfiguration.ephemeral
            c.timeoutIntervalForRequest = configuration.timeout
            c.timeoutIntervalForResource = configuration.resourceTimeout
            c.httpMaximumConnectionsPerHost = configuration.maxParallel
            // Every byte is checked against the tree's own hashes: a cache in between could only serve stale bytes.
            c.urlCache = nil
            c.requestCachePolicy = .reloadIgnoringLocalCacheData
            session = URLSession(configuration: c, delegate: delegate, delegateQueue: nil)
            curl = CurlTransport.make()
        }

        deinit { session.finishTasksAndInvalidate() }
    }

    /// One request in flight: what the delegate has seen of it, held to its byte limit as it streams in.
    final class Transfer: Sendable {
        /// Body bytes a successful answer may have (its listed size, or `metadataLimit`).
        let limit: Int
        /// Whether `limit` is the size the file index lists (for messages).
        let listed: Bool
        let finished = DispatchSemaphore(value: 0)
        private let state = Locked(State())

        struct State {
            var response: HTTPURLResponse?
            var body: [UInt8] = []
            /// Body bytes received (after any transfer decoding), error pages included: what the rate is measured on.
            var received = 0
            /// The first reason this request failed; later ones (the cancellation it causes) are not kept.
            var failure: Failure.Kind?
            var done = false
        }

        /// The URL asked, to resolve a relative Location.
        let url: URL

        init(_ url: URL, limit: Int, listed: Bool) { self.url = url; self.limit = limit; self.listed = listed }

        var received: Int { state.withLock { $0.received } }

        /// Records why the request failed, unless an earlier reason is already kept.
        func fail(_ kind: Failure.Kind) { state.withLock { if $0.failure == nil { $0.failure = kind } } }

        /// The headers: false when the request must stop here (a Content-Length above the limit).
        func receive(_ response: HTTPURLResponse) -> Bool {
            state.withLock { $0.response = response }
            guard (200..<300).contains(response.statusCode), let announced = Self.announcedLength(response) else { return true }
            // An encoded body's length is not the file's: no real encoding doubles a file.
            let encoded = Self.isEncoded(response)
            if announced > (encoded ? limit * 2 + 65536 : limit) {
                fail(.tooLarge(announced: announced, limit: limit, listed: listed))
                return false
            }
            return true
        }

        /// A part of the body: false when the request must stop here (past its limit).
        func receive(_ data: Data) -> Bool {
            state.withLock { s in
                guard s.failure == nil, !s.done else { return false }
                s.received += data.count
                guard let status = s.response?.statusCode, (200..<300).contains(status) else {
                    // An error page is not kept; a long one is not read to its end (its status is what counts).
                    return s.received <= Self.errorPageLimit
                }
                guard s.received <= limit else {
                    s.failure = .tooLarge(announced: nil, limit: limit, listed: listed)
                    return false
                }
                s.body.append(contentsOf: data)
                return true
            }
        }

        /// The request ended, for `kind` when it failed.
        func complete(_ kind: Failure.Kind?) {
            state.withLock { s in
                // A request stopped on purpose after its status was known (a long error page) still has its status.
                let statusOnly = s.response.map { !(200..<300).contains($0.statusCode) } ?? false
                if let kind, s.failure == nil, !(statusOnly && kind == .cancelled) { s.failure = kind }
                s.done = true
            }
            finished.signal()
        }

        /// What the finished request gives.
        func outcome() -> Result<Response, Failure.Kind> {
            state.withLock { s in
                if let failure = s.failure { return .failure(failure) }
                guard let http = s.response else { return .failure(.transport("not an HTTP response")) }
                // A redirect the transport did not offer to follow (libcurl never follows one) is refused here.
                if (300..<400).contains(http.statusCode), http.statusCode != 304 {
                    return .failure(.redirected(status: http.statusCode, to: Self.location(http, base: url)))
                }
                // A body shorter than announced is a cut connection (an encoded body's length is not comparable).
                if (200..<300).contains(http.statusCode), !Self.isEncoded(http), let announced = Self.announcedLength(http),
                   announced != s.body.count {
                    return .failure(s.body.count < announced ? .incomplete(received: s.body.count, expected: announced)
                                    : .mismatch("\(s.body.count) bytes where the server announced \(announced)"))
                }
                return .success(Response(status: http.statusCode, body: s.body, etag: http.value(forHTTPHeaderField: "ETag")))
            }
        }

        /// The Location header as given, resolved against `base` when relative.
        static func location(_ r: HTTPURLResponse, base: URL?) -> String? {
            guard let raw = r.value(forHTTPHeaderField: "Location") else { return nil }
            return URL(string: raw, relativeTo: base)?.absoluteURL.absoluteString ?? raw
        }

        /// Bytes of an error page read before the request is stopped.
        static let errorPageLimit = 65536

        static func announcedLength(_ r: HTTPURLResponse) -> Int? {
            r.value(forHTTPHeaderField: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }

        static func isEncoded(_ r: HTTPURLResponse) -> Bool {
            guard let e = r.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces) else { return false }
            return !e.isEmpty && e.lowercased() != "identity"
        }
    }

    /// Streams every request's body into its `Transfer` (so none is read past its limit) and refuses redirects.
    final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
        private let transfers = Locked<[Int: Transfer]>([:])

        func add(_ t: Transfer, for task: URLSessionTask) { transfers.withLock { $0[task.taskIdentifier] = t } }
        func remove(_ task: URLSessionTask) { transfers.withLock { $0[task.taskIdentifier] = nil } }
        private func transfer(_ task: URLSessionTask) -> Transfer? { transfers.withLock { $0[task.taskIdentifier] } }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            guard let t = transfer(dataTask), let http = response as? HTTPURLResponse else { completionHandler(.allow); return }
            if t.receive(http) { completionHandler(.allow); return }
            completionHandler(.cancel)
            // (FoundationNetworking on Linux ignores the disposition: the task is cancelled here too.)
            dataTask.cancel()
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let t = transfer(dataTask) else { return }
            if !t.receive(data) { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            transfer(task)?.complete(error.map(HTTPFetcher.kind(of:)))
        }

        /// Never followed: a tree is read from the URL it was given, and a redirect says that URL is not the tree's.
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            transfer(task)?.fail(.redirected(status: response.statusCode, to: Self.location(response, from: task)))
            completionHandler(nil)
        }

        /// The Location header as given (resolved against the request's URL when relative): FoundationNetworking's
        /// new request rewrites some targets (a `file://` URL becomes a path on the same server).
        static func location(_ response: HTTPURLResponse, from task: URLSessionTask) -> String? {
            Transfer.location(response, base: task.currentRequest?.url ?? task.originalRequest?.url)
        }
    }
}
