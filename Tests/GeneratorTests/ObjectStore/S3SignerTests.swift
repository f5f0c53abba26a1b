import XCTest
import Foundation
import Crypto
@testable import Generator

/// The SigV4 signer against AWS's published vectors (Tests/Fixtures/aws-sigv4/vectors.json: the S3-relevant part of
/// the aws-sig-v4-test-suite and the S3 API Reference's four examples): each step — canonical request, string to
/// sign, Authorization header — must equal the published text.
final class S3SignerTests: XCTestCase {
    static let fixture = TestSupport.repoRoot.appendingPathComponent("Tests/Fixtures/aws-sigv4/vectors.json")

    struct Group: Decodable {
        struct Credentials: Decodable { let accessKeyId: String; let secretAccessKey: String }
        struct Vector: Decodable {
            struct Request: Decodable { let method: String; let path: String; let query: String; let headers: [[String]]; let body: String }
            let name: String
            let request: Request
            let canonicalRequest: String
            let stringToSign: String
            let authorization: String
        }
        let credentials: Credentials
        let region: String
        let service: String
        let date: String
        let vectors: [Vector]
    }

    struct Fixture: Decodable { let suite: Group; let s3: Group }

    /// A raw query (`a=1&b`) as the pairs a client would send (the vectors' queries are not percent-encoded).
    static func pairs(_ query: String) -> [(String, String)] {
        query.isEmpty ? [] : query.split(separator: "&").map { part in
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
        }
    }

    /// The published headers separate the parts with ", " (the suite) or "," (the S3 examples); both are valid.
    static func normalized(_ authorization: String) -> String { authorization.replacingOccurrences(of: ", ", with: ",") }

    func check(_ group: Group) {
        let signer = S3Signer(credentials: S3Credentials(accessKeyId: group.credentials.accessKeyId, secretAccessKey: group.credentials.secretAccessKey),
                              region: group.region, service: group.service)
        for v in group.vectors {
            let headers = v.request.headers.map { ($0[0], $0[1]) }
            let payload = S3Signer.hex(Array(SHA256.hash(data: Array(v.request.body.utf8))))
            let path = S3Signer.uriEncode(v.request.path, encodeSlash: false)
            let c = S3Signer.canonicalRequest(method: v.request.method, encodedPath: path, query: Self.pairs(v.request.query),
                                              headers: headers, payloadHash: payload)
            XCTAssertEqual(c.request, v.canonicalRequest, "\(v.name): canonical request")
            XCTAssertEqual(signer.stringToSign(amzDate: group.date, canonicalRequest: c.request), v.stringToSign, "\(v.name): string to sign")
            let auth = signer.authorization(method: v.request.method, encodedPath: path, query: Self.pairs(v.request.query),
                                            headers: headers, payloadHash: payload, amzDate: group.date)
            XCTAssertEqual(Self.normalized(auth), Self.normalized(v.authorization), "\(v.name): Authorization")
        }
    }

    func testAWSSignatureV4TestSuite() throws {
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: Self.fixture))
        XCTAssertEqual(fixture.suite.vectors.count, 17)
        check(fixture.suite)
    }

    func testS3APIReferenceExamples() throws {
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: Self.fixture))
        XCTAssertEqual(fixture.s3.vectors.map(\.name), ["get-object", "put-object", "get-bucket-lifecycle", "list-objects"])
        check(fixture.s3)
    }

    /// The headers a real request gets: the real payload hash, the date, the session token, all signed.
    func testSignedHeadersOfARequest() throws {
        let signer = S3Signer(credentials: S3Credentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                                         sessionToken: "token/+="), region: "us-east-1")
        let date = Date(timeIntervalSince1970: 1_369_353_600)   // 2013-05-24T00:00:00Z
        let h = signer.signedHeaders(method: "PUT", host: "127.0.0.1:8333", encodedPath: "/b/k.json",
                                     extra: [("content-type", "application/json")], payloadHash: S3Signer.emptyPayloadHash, date: date)
        let byName = Dictionary(h, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byName["x-amz-date"], "20130524T000000Z")
        XCTAssertEqual(byName["x-amz-security-token"], "token/+=")
        let auth = try XCTUnwrap(byName["authorization"])
        XCTAssertTrue(auth.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                                     + "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="), auth)
        XCTAssertFalse(auth.contains("wJalrXUtnFEMI"), "the secret is never sent")
        XCTAssertFalse("\(signer.credentials)".contains("wJalrXUtnFEMI"), "nor printed")
        // Another body is another signature: the payload hash is signed.
        let other = signer.signedHeaders(method: "PUT", host: "127.0.0.1:8333", encodedPath: "/b/k.json",
                                         extra: [("content-type", "application/json")], payloadHash: String(repeating: "a", count: 64), date: date)
        XCTAssertNotEqual(other.last!.1, auth)
    }

    func testURIEncoding() {
        XCTAssertEqual(S3Signer.uriEncode("a b/c$d~e", encodeSlash: false), "a%20b/c%24d~e")
        XCTAssertEqual(S3Signer.uriEncode("a b/c", encodeSlash: true), "a%20b%2Fc")
        XCTAssertEqual(S3Signer.uriEncode("ключ+=", encodeSlash: true), "%D0%BA%D0%BB%D1%8E%D1%87%2B%3D")
    }
}

/// `--to` and `--endpoint` as the publish command reads them.
final class S3LocationTests: XCTestCase {
    func testAddressing() throws {
        let custom = try S3Location("s3://my-bucket/catalog/v2/", endpoint: "http://127.0.0.1:8333", region: "us-east-1")
        XCTAssertEqual(custom.prefix, "catalog/v2")
        XCTAssertEqual(custom.key("a b/c.json"), "catalog/v2/a b/c.json")
        let t = custom.target(custom.key("a b/c$.json"))
        XCTAssertEqual(t.host, "127.0.0.1:8333")
        XCTAssertEqual(t.path, "/my-bucket/catalog/v2/a%20b/c%24.json", "path-style, encoded once")
        XCTAssertEqual(t.url.absoluteString, "http://127.0.0.1:8333/my-bucket/catalog/v2/a%20b/c%24.json")
        XCTAssertEqual(custom.publicBase.absoluteString, "http://127.0.0.1:8333/my-bucket/catalog/v2/")

        let aws = try S3Location("s3://my-bucket", endpoint: nil, region: "eu-west-1")
        XCTAssertEqual(aws.prefix, "")
        XCTAssertEqual(aws.target("update-manifest.json").url.absoluteString, "https://my-bucket.s3.eu-west-1.amazonaws.com/update-manifest.json")
        XCTAssertEqual(aws.target("x.json").host, "my-bucket.s3.eu-west-1.amazonaws.com")
        // Dots in a bucket name do not match AWS's certificate as a host: path-style.
        let dotted = try S3Location("s3://my.bucket/p", endpoint: nil, region: "us-east-1")
        XCTAssertEqual(dotted.target(dotted.key("x.json")).url.absoluteString,
                       "https://s3.us-east-1.amazonaws.com/my.bucket/p/x.json")
        XCTAssertEqual(try S3Location("s3://b12/p", endpoint: "https://s3.example.com:443/", region: "auto").target("x").host, "s3.example.com")
    }

    func testRefused() {
        for (to, endpoint) in [("http://b/x", nil), ("s3://", nil), ("s3://ab/x", nil), ("s3://Bucket/x", nil), ("s3://-bucket/x", nil),
                               ("s3://bucket/a/../b", nil), ("s3://bucket/a//b", nil), ("s3://bucket/x", "ftp://h"), ("s3://bucket/x", "http://h/base"),
                               ("s3://bucket/x", "http://h?q=1"), ("s3://bucket/x", "http://user@h")] as [(String, String?)] {
            XCTAssertThrowsError(try S3Location(to, endpoint: endpoint, region: "us-east-1"), "\(to) \(endpoint ?? "")")
        }
        XCTAssertThrowsError(try S3Location("s3://bucket/x", endpoint: nil, region: "eu west"))
    }
}
