import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TreeClient

/// Where `generator publish` writes: a bucket and a key prefix on an S3-compatible store, and how to reach it.
public struct S3Location: Sendable, CustomStringConvertible {
    public let bucket: String
    /// Key prefix without a leading or trailing `/`; empty for the bucket's root.
    public let prefix: String
    /// `scheme://host[:port]` of the store.
    public let endpoint: URL
    /// `endpoint/bucket/key` (custom endpoints: MinIO, SeaweedFS, Ceph, R2, …) rather than `bucket.endpoint/key`
    /// (AWS's own endpoint, for bucket names without dots).
    public let pathStyle: Bool

    public struct Invalid: Error, CustomStringConvertible { public let description: String }

    /// `to`: `s3://BUCKET` or `s3://BUCKET/PREFIX`. `endpoint`: the store's URL; nil means AWS's endpoint for `region`.
    public init(_ to: String, endpoint: String?, region: String) throws {
        guard to.hasPrefix("s3://") else { throw Invalid(description: "\(TreePath.shown(to)) is not an s3://BUCKET/PREFIX address") }
        let rest = to.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = String(rest.dropFirst(bucket.count))
        while prefix.hasPrefix("/") { prefix.removeFirst() }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        // Bucket names as S3 allows them (3–63 lower-case letters, digits, dots and hyphens, a letter or digit at
        // each end): nothing else ever reaches a URL's host or path unencoded.
        let b = Array(bucket.utf8)
        let allowed = b.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
        guard (3...63).contains(b.count), allowed, let first = b.first, let last = b.last, first != 0x2E, first != 0x2D, last != 0x2E, last != 0x2D else {
            throw Invalid(description: "\(TreePath.shown(bucket)) is not a bucket name (3 to 63 lower-case letters, digits, '.' and '-')")
        }
        // The prefix is a folder of keys: plain segments, as for a path of the tree.
        if !prefix.isEmpty, let why = TreePath.rejection(prefix) {
            throw Invalid(description: "prefix \(TreePath.shown(prefix)): \(why)")
        }
        self.bucket = bucket
        self.prefix = prefix
        if let endpoint {
            guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil,
                  url.path.isEmpty || url.path == "/" else {
                throw Invalid(description: "--endpoint \(TreePath.shown(endpoint)) is not an http:// or https:// URL of a host (scheme://host[:port])")
            }
            self.endpoint = URL(string: "\(scheme)://\(Self.hostAndPort(url))")!
            pathStyle = true
        } else {
            guard !region.isEmpty, region.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
                throw Invalid(description: "region \(TreePath.shown(region)) is not an AWS region name")
            }
            self.endpoint = URL(string: "https://s3.\(region).amazonaws.com")!
            // A bucket with dots does not match AWS's wildcard certificate as a host name.
            pathStyle = bucket.contains(".")
        }
    }

    public var description: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

    /// The object key of a path of the tree.
    public func key(_ path: String) -> String { prefix.isEmpty ? path : prefix + "/" + path }

    /// Where the tree can be read over plain HTTP when the bucket allows it (what apps and `generator sync` are given).
    public var publicBase: URL {
        pathStyle ? URL(string: "\(endpoint.absoluteString)/\(bucket)/" + (prefix.isEmpty ? "" : S3Signer.uriEncode(prefix, encodeSlash: false) + "/"))!
            : URL(string: "\(endpoint.scheme!)://\(bucket).\(Self.hostAndPort(endpoint))/" + (prefix.isEmpty ? "" : S3Signer.uriEncode(prefix, encodeSlash: false) + "/"))!
    }

    /// The request target of a key: the URL, the `Host` header (as signed) and the encoded path.
    func target(_ key: String) -> (url: URL, host: String, path: String) {
        let encodedKey = S3Signer.uriEncode(key, encodeSlash: false)
        let host = pathStyle ? Self.hostAndPort(endpoint) : "\(bucket).\(Self.hostAndPort(endpoint))"
        let path = pathStyle ? "/\(bucket)/\(encodedKey)" : "/\(encodedKey)"
        return (URL(string: "\(endpoint.scheme!)://\(host)\(path)")!, host, path)
    }

    /// `host` or `host:port` when the port is not the scheme's default: the Host header an HTTP client sends.
    static func hostAndPort(_ url: URL) -> String {
        let host = url.host!.contains(":") ? "[\(url.host!)]" : url.host!
        guard let port = url.port else { return host }
        let isDefault = (url.scheme?.lowercased() == "http" && port == 80) || (url.scheme?.lowercased() == "https" && port == 443)
        return isDefault ? host : "\(host):\(port)"
    }
}

/// What `generator publish` needs of a store: read, write and delete one object. `S3Client` is the real one.
public protocol ObjectStore: AnyObject, Sendable {
    /// The object's bytes, or nil when there is none (404).
    func get(_ key: String) throws -> [UInt8]?
    func put(_ key: String, body: [UInt8], sha256: String, contentType: String, cacheControl: String) throws
    /// Removes the object (a missing one is no error: S3 answers 204 either way).
    func delete(_ key: String) throws
}

/// A request the store refused or that could not be completed, after its retries. Names the method and key, the
/// status and the store's own error code and message; never a credential.
public struct S3Failure: Error, CustomStringConvertible, Sendable {
    public let method: String
    public let location: String
    public let status: Int?
    public let code: String?
    public let message: String
    public let attempts: Int

    public var description: String {
        var text = "\(method) \(location): "
        if let status { text += "HTTP \(status)" + (code.map { " \($0)" } ?? "") + (message.isEmpty ? "" : ": \(message)") } else { text += message }
        if code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId" {
            text += " (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the region)"
        }
        return TreePath.shown(text, limit: 600) + (attempts > 1 ? " (after \(attempts) attempts)" : "")
    }
}

/// S3's REST API over URLSession, each request signed with `S3Signer` and its real payload hash (so the store checks
/// the body it receives). Failures that may pass (no connection, a timeout, 5xx, 429, a store's RequestTimeout) are
/// retried with exponential backoff; any other refusal (403, a 404 bucket, a bad signature) is reported at once.
public final class S3Client: ObjectStore, @unchecked Sendable {
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

    private final class Outcome: @unchecked Sendable { var result: Result<Response, TransportError> = .failure(TransportError("no response")) }
    struct TransportError: Error { let text: String; init(_ t: String) { text = t } }

    private func once(_ request: URLRequest, body: [UInt8]?) -> Result<Response, TransportError> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        let handler: @Sendable (Data?, URLResponse?, Error?) -> Void = { data, response, error in
            defer { done.signal() }
            if let error {
                outcome.result = .failure(TransportError(Self.describe(error)))
                return
            }
            guard let http = response as? HTTPURLResponse else { outcome.result = .failure(TransportError("not an HTTP response")); return }
            outcome.result = .success(Response(status: http.statusCode, body: [UInt8](data ?? Data())))
        }
        let task = body.map { session.uploadTask(with: request, from: Data($0), completionHandler: handler) }
            ?? session.dataTask(with: request, completionHandler: handler)
        task.resume()
        done.wait()
        return outcome.result
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
