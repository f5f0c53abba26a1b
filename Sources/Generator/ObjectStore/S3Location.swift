import Foundation
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
