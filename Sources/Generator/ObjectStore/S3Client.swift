import Foundation
import LowLevel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TreeClient

/// S3's REST API over URLSession, each request signed with `S3Signer` and its real payload hash (so the store checks
/// the body it receives). Failures that may pass (no connection, a timeout, 5xx, 429, a store's RequestTimeout) are
/// retried with exponential backoff; any other refusal (403, a 404 bucket, a bad signature) is reported at once.
public final class S3Client: ObjectStore, Sendable {
    public let location: S3Location
    let signer: S3Signer
    let retries: Int
    let backoff: TimeInterval
    private let session: URLSession

    public init(location: S3Location, signer: S3Signer, timeout: TimeInterval = 30, retries: Int = 3,
                backoff: TimeInterval = 0.25, maxConnections: Int = 8) {
        self.location = location; self.signer = signer; self.retries = max(0, retries); self.backoff = max(0, backoff)
        let c = URLSessionConfiguration.ephemeral
        c.timeoutIntervalForRequest = max(1, timeout.rounded(.up))
        c.timeoutIntervalForResource = max(600, timeout)
        c.httpMaximumConnectionsPerHost = max(1, maxConnections)
        c.urlCache = nil
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: c)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func get(_ key: String) throws -> [UInt8]? {
        let r = try send("GET", key, body: nil, sha256: S3Signer.emptyPayloadHash, extra: [], accept: [200, 404])
        guard r.status == 404 else { return r.body }
        // A missing object is "not published"; a missing bucket is a mistake in --to or --endpoint.
        let (code, message) = Self.errorDetail(r.body)
        if code == "NoSuchBucket" {
            throw S3Failure(method: "GET", location: location.description + "/" + key.dropFirst(location.prefix.isEmpty ? 0 : location.prefix.count + 1),
                            status: 404, code: code, message: message.isEmpty ? "no bucket \(location.bucket) at \(location.endpoint.absoluteString)" : message,
                            attempts: 1)
        }
        return nil
    }

    public func put(_ key: String, body: [UInt8], sha256: String, contentType: String, cacheControl: String) throws {
        _ = try send("PUT", key, body: body, sha256: sha256, extra: [("cache-control", cacheControl), ("content-type", contentType)], accept: [200])
    }

    public func delete(_ key: String) throws {
        _ = try send("DELETE", key, body: nil, sha256: S3Signer.emptyPayloadHash, extra: [], accept: [200, 204, 404])
    }

    struct Response { var status: Int; var body: [UInt8] }

    /// One request with its retries; throws unless the final status is in `accept`.
    private func send(_ method: String, _ key: String, body: [UInt8]?, sha256: String, extra: [(String, String)], accept: Set<Int>) throws -> Response {
        let target = location.target(key)
        let shown = location.description + "/" + key.dropFirst(location.prefix.isEmpty ? 0 : location.prefix.count + 1)
        var attempt = 0
        while true {
            attempt += 1
            var request = URLRequest(url: target.url)
            request.httpMethod = method
            // Signed anew for each attempt (the date is part of the signature).
            for (name, value) in signer.signedHeaders(method: method, host: target.host, encodedPath: target.path, extra: extra, payloadHash: sha256)
            where name != "host" {
                request.setValue(value, forHTTPHeaderField: name)
            }
            let outcome = once(request, body: body)
            let failure: S3Failure
            switch outcome {
            case .success(let r) where accept.contains(r.status) || (method != "GET" && (200..<300).contains(r.status)):
                return r
            case .success(let r):
                let (code, message) = Self.errorDetail(r.body)
                failure = S3Failure(method: method, location: shown, status: r.status, code: code, message: message, attempts: attempt)
                let mayPass = r.status >= 500 || r.status == 429 || r.status == 408 || code == "RequestTimeout" || code == "SlowDown"
                if !mayPass { throw failure }
            case .failure(let why):
                failure = S3Failure(method: method, location: shown, status: nil, code: nil, message: why.text, attempts: attempt)
            }
            guard attempt <= retries else { throw failure }
            Thread.sleep(forTimeInterval: backoff * pow(2, Double(attempt - 1)))
        }
    }

    struct TransportError: Error { let text: String; init(_ t: String) { text = t } }

    private func once(_ request: URLRequest, body: [UInt8]?) -> Result<Response, TransportError> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Response, TransportError>>(.failure(TransportError("no response")))
        let handler: @Sendable (Data?, URLResponse?, Error?) -> Void = { data, response, error in
            defer { done.signal() }
            let result: Result<Response, TransportError>
            if let error { result = .failure(TransportError(Self.describe(error))) }
            else if let http = response as? HTTPURLResponse { result = .success(Response(status: http.statusCode, body: [UInt8](data ?? Data()))) }
            else { result = .failure(TransportError("not an HTTP response")) }
            outcome.withLock { $0 = result }
        }
        let task = body.map { session.uploadTask(with: request, from: Data($0), completionHandler: handler) }
            ?? session.dataTask(with: request, completionHandler: handler)
        task.resume()
        done.wait()
        return outcome.withLock { $0 }
    }

    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        guard ns.domain == NSURLErrorDomain else { return ns.localizedDescription }
        switch ns.code {
        case NSURLErrorTimedOut: return "timed out"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "host not found"
        case NSURLErrorCannotConnectToHost: return "connection refused"
        case NSURLErrorNetworkConnectionLost: return "the connection was lost"
        default: return ns.localizedDescription
        }
    }

    /// `Code` and `Message` of an S3 error document (`<Error><Code>…</Code><Message>…</Message></Error>`); the rest
    /// of it (request ids, and for a bad signature the string the store signed) is left out.
    static func errorDetail(_ body: [UInt8]) -> (code: String?, message: String) {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex) else { return nil }
            return String(text[start.upperBound..<end.lowerBound])
        }
        return (element("Code"), element("Message") ?? "")
    }
}
