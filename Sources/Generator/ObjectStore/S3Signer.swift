import Foundation
import Crypto

/// AWS Signature Version 4 with the Authorization header, as S3 and S3-compatible stores check it. Tested against
/// AWS's published test suite and the S3 API Reference's examples (Tests/Fixtures/aws-sigv4/vectors.json).
///
/// S3's rules, which differ from other AWS services: the path is URI-encoded once (each byte outside
/// `A-Za-z0-9-._~` as `%XY`, `/` kept) and never normalised (`a/./b` and `a//b` are keys of their own).
public struct S3Signer: Sendable {
    public let credentials: S3Credentials
    public let region: String
    public let service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials; self.region = region; self.service = service
    }

    public static let algorithm = "AWS4-HMAC-SHA256"
    /// SHA-256 of no bytes: the payload hash of a GET, HEAD or DELETE.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    // MARK: Canonical request

    /// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters as they are, every other UTF-8 byte as
    /// `%XY` (upper-case hex); `/` kept when `encodeSlash` is false (paths), encoded otherwise (query keys and values).
    public static func uriEncode(_ text: String, encodeSlash: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            let unreserved = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
            if unreserved || (b == 0x2F && !encodeSlash) { out.append(b) } else { out += [0x25, hex[Int(b >> 4)], hex[Int(b & 0xF)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical query string: each key and value encoded, sorted by key then value (byte order); a key without
    /// a value is `key=`.
    public static func canonicalQuery(_ pairs: [(String, String)]) -> String {
        pairs.map { (uriEncode($0.0, encodeSlash: true), uriEncode($0.1, encodeSlash: true)) }
            .sorted { $0.0 != $1.0 ? Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) : Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// Canonical headers and the signed-header list: names lower-cased and sorted, values trimmed with inner runs of
    /// spaces collapsed to one, the values of a repeated name joined with `,` in request order.
    public static func canonicalHeaders(_ headers: [(String, String)]) -> (text: String, signed: String) {
        var byName: [String: [String]] = [:]
        var order: [String] = []
        for (name, value) in headers {
            let n = name.lowercased()
            if byName[n] == nil { order.append(n) }
            byName[n, default: []].append(value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                .trimmingCharacters(in: .whitespaces))
        }
        let names = order.sorted()
        return (names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined(), names.joined(separator: ";"))
    }

    /// The canonical request of SigV4: method, encoded path, canonical query, canonical headers, signed headers and
    /// the payload's SHA-256 (hex).
    public static func canonicalRequest(method: String, encodedPath: String, query: [(String, String)],
                                        headers: [(String, String)], payloadHash: String) -> (request: String, signedHeaders: String) {
        let h = canonicalHeaders(headers)
        return ([method, encodedPath, canonicalQuery(query), h.text, h.signed, payloadHash].joined(separator: "\n"), h.signed)
    }

    // MARK: Signature

    /// `YYYYMMDD/region/service/aws4_request` for the day of `amzDate` (`YYYYMMDDTHHMMSSZ`).
    public func scope(amzDate: String) -> String { "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request" }

    public func stringToSign(amzDate: String, canonicalRequest: String) -> String {
        [Self.algorithm, amzDate, scope(amzDate: amzDate), Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))].joined(separator: "\n")
    }

    /// HMAC-SHA256 chain: secret → date → region → service → "aws4_request", then the string to sign.
    public func signature(amzDate: String, stringToSign: String) -> String {
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [String(amzDate.prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
    }

    /// The Authorization header for a request whose headers (all of them signed: at least `host` and `x-amz-date`)
    /// are given.
    public func authorization(method: String, encodedPath: String, query: [(String, String)], headers: [(String, String)],
                              payloadHash: String, amzDate: String) -> String {
        let c = Self.canonicalRequest(method: method, encodedPath: encodedPath, query: query, headers: headers, payloadHash: payloadHash)
        let sig = signature(amzDate: amzDate, stringToSign: stringToSign(amzDate: amzDate, canonicalRequest: c.request))
        return "\(Self.algorithm) Credential=\(credentials.accessKeyId)/\(scope(amzDate: amzDate)), SignedHeaders=\(c.signedHeaders), Signature=\(sig)"
    }

    /// Every header an S3 request needs, signed: `host`, `x-amz-date`, `x-amz-content-sha256` (the real payload
    /// hash), the session token when there is one, and `extra` (content type, cache control); Authorization last.
    public func signedHeaders(method: String, host: String, encodedPath: String, query: [(String, String)] = [],
                              extra: [(String, String)] = [], payloadHash: String, date: Date = Date()) -> [(String, String)] {
        let amzDate = Self.amzDate(date)
        var headers: [(String, String)] = [("host", host), ("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        headers += extra
        let auth = authorization(method: method, encodedPath: encodedPath, query: query, headers: headers, payloadHash: payloadHash, amzDate: amzDate)
        return headers + [("authorization", auth)]
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    public static func amzDate(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
