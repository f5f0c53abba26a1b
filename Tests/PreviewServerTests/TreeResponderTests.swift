import Foundation
import XCTest
@testable import PreviewServer
#if canImport(FoundationNetworking)
import FoundationNetworking
import TestTools
#endif

/// What `generator serve` answers, over real HTTP on 127.0.0.1: a small tree built in a temp folder, with a few
/// files of other kinds added, and a secret beside it that no request may reach.
final class TreeResponderTests: XCTestCase {
    static let secret = "TOP-SECRET-\(UUID().uuidString)"
    nonisolated(unsafe) static var dist: URL!
    nonisolated(unsafe) static var running: ServeSupport.Running!
    nonisolated(unsafe) static var setupError: Error?
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]

    override class func setUp() {
        do {
            let dist = try ServeSupport.build(ServeSupport.smallInput())
            let fm = FileManager.default
            func put(_ path: String, _ bytes: [UInt8]) throws {
                let url = dist.appendingPathComponent(path)
                try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
            }
            try put("docs/index.html", Array("<!doctype html><title>docs</title><h1>Docs</h1>".utf8))
            try put("assets/logo.svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#.utf8))
            try put("assets/app.js", Array("console.log('hi');\n".utf8))
            try put("assets/site.css", Array("body { margin: 0 }\n".utf8))
            try put("notes.txt", Array("notes\n".utf8))
            try put("assets/pixel.png", png)
            // Outside the tree: a secret, and links in the tree pointing at it (a file, a folder, an absolute path).
            let secretFile = dist.deletingLastPathComponent().appendingPathComponent("secret.txt")
            try secret.write(to: secretFile, atomically: true, encoding: .utf8)
            try fm.createSymbolicLink(atPath: dist.appendingPathComponent("leak.txt").path, withDestinationPath: "../secret.txt")
            try fm.createSymbolicLink(atPath: dist.appendingPathComponent("leakdir").path, withDestinationPath: "..")
            try fm.createSymbolicLink(atPath: dist.appendingPathComponent("abs.txt").path, withDestinationPath: secretFile.path)
            self.dist = dist
            running = try ServeSupport.serve(dist)
        } catch { setupError = error }
    }

    override class func tearDown() { running?.stop() }

    override func setUpWithError() throws { if let e = Self.setupError { throw e } }

    var port: Int { Self.running.port }
    func disk(_ path: String) throws -> Data { try Data(contentsOf: Self.dist.appendingPathComponent(path)) }

    func testContentTypesByExtension() throws {
        let expected = [
            "app-config.json": "application/json; charset=utf-8",
            "404.html": "text/html; charset=utf-8",
            "docs/index.html": "text/html; charset=utf-8",
            "assets/logo.svg": "image/svg+xml",
            "assets/app.js": "text/javascript; charset=utf-8",
            "assets/site.css": "text/css; charset=utf-8",
            "notes.txt": "text/plain; charset=utf-8",
            "assets/pixel.png": "image/png",
            ".nojekyll": "application/octet-stream",
        ]
        for (path, type) in expected {
            let r = try RawHTTP.get(port: port, "/" + path)
            XCTAssertEqual(r.status, 200, path)
            XCTAssertEqual(r.header("Content-Type"), type, path)
            XCTAssertEqual(r.body, try disk(path), path)
            XCTAssertEqual(r.header("Content-Length"), String(r.body.count), path)
        }
    }

    func testETagIsTheFileIndexSha256And304OnIfNoneMatch() throws {
        let index = try ServeSupport.fileIndex(Self.dist)
        for path in ["app-config.json", "categories/index.json", index.files.keys.first { $0.hasPrefix("products/") }!] {
            let sha = try XCTUnwrap(index.files[path])
            let r = try RawHTTP.get(port: port, "/" + path)
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.header("ETag"), "\"\(sha)\"", path)
            XCTAssertEqual(ServeSupport.sha256(r.body), sha, path)
            XCTAssertEqual(r.header(TreeResponder.versionHeader), String(index.version))
            for condition in ["\"\(sha)\"", "W/\"\(sha)\"", "\"other\", \"\(sha)\"", "*"] {
                let again = try RawHTTP.get(port: port, "/" + path, headers: ["If-None-Match": condition])
                XCTAssertEqual(again.status, 304, "\(path) \(condition)")
                XCTAssertEqual(again.body.count, 0)
                XCTAssertEqual(again.header("ETag"), "\"\(sha)\"")
                XCTAssertEqual(again.header("Content-Length"), String(r.body.count), "a 304 names the length a 200 would have")
            }
            let changed = try RawHTTP.get(port: port, "/" + path, headers: ["If-None-Match": "\"\(String(repeating: "0", count: 64))\""])
            XCTAssertEqual(changed.status, 200)
            XCTAssertEqual(changed.body, r.body)
        }
        // The manifest is not in the index (the index cannot list the file naming its hash): its own bytes' sha256.
        let manifest = try RawHTTP.get(port: port, "/update-manifest.json")
        XCTAssertEqual(manifest.header("ETag"), "\"\(ServeSupport.sha256(try disk("update-manifest.json")))\"")
    }

    func testGzipWhenAcceptedDecompressesToTheFileBytes() throws {
        let path = "search-index.json"
        let plain = try disk(path)
        let sha = ServeSupport.sha256(plain)
        for accept in ["gzip", "deflate, gzip;q=0.5", "br;q=1.0, *;q=0.1", "x-gzip"] {
            let r = try RawHTTP.get(port: port, "/" + path, headers: ["Accept-Encoding": accept])
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.header("Content-Encoding"), "gzip", accept)
            XCTAssertEqual(r.header("Vary"), "Accept-Encoding")
            XCTAssertEqual(r.header("ETag"), "W/\"\(sha)\"", "the gzip variant's tag is weak: same content, other bytes")
            XCTAssertLessThan(r.body.count, plain.count)
            XCTAssertEqual(ServeSupport.gunzip(r.body), plain, accept)
            // Revalidating with the weak tag.
            XCTAssertEqual(try RawHTTP.get(port: port, "/" + path, headers: ["Accept-Encoding": accept, "If-None-Match": "W/\"\(sha)\""]).status, 304)
        }
        for accept in ["identity", "gzip;q=0", "br", "*;q=0", ""] {
            let r = try RawHTTP.get(port: port, "/" + path, headers: accept.isEmpty ? [:] : ["Accept-Encoding": accept])
            XCTAssertNil(r.header("Content-Encoding"), accept)
            XCTAssertEqual(r.body, plain, accept)
        }
        // Already compressed formats are sent as they are.
        let png = try RawHTTP.get(port: port, "/assets/pixel.png", headers: ["Accept-Encoding": "gzip"])
        XCTAssertNil(png.header("Content-Encoding"))
        XCTAssertEqual([UInt8](png.body), Self.png)
    }

    func testMissingPathGets404HTMLWithStatus404AndNoFolderListing() throws {
        let page = try disk("404.html")
        for target in ["/nope.json", "/products/nope/details.json", "/categories/", "/products/", "/", "/products"] {
            let r = try RawHTTP.get(port: port, target)
            XCTAssertEqual(r.status, 404, target)
            XCTAssertEqual(r.header("Content-Type"), "text/html; charset=utf-8", target)
            XCTAssertEqual(r.body, page, "\(target): the tree's 404.html, never a listing")
            XCTAssertNil(r.header("ETag"))
        }
        // A folder with an index.html: served at its `/` form; the bare name redirects there, as Pages does.
        let docs = try RawHTTP.get(port: port, "/docs/")
        XCTAssertEqual(docs.status, 200)
        XCTAssertEqual(docs.body, try disk("docs/index.html"))
        let bare = try RawHTTP.get(port: port, "/docs?x=1")
        XCTAssertEqual(bare.status, 301)
        XCTAssertEqual(bare.header("Location"), "/docs/?x=1")
        // A query string does not change what is served.
        XCTAssertEqual(try RawHTTP.get(port: port, "/app-config.json?v=2").body, try disk("app-config.json"))
    }

    func testNothingOutsideTheTreeIsServed() throws {
        let attempts: [(target: String, status: Int)] = [
            ("/../secret.txt", 400),
            ("/%2e%2e/secret.txt", 400),
            ("/%2E%2E/secret.txt", 400),
            ("/.%2e/secret.txt", 400),
            ("/%2e%2e%2fsecret.txt", 400),
            ("/categories/..%2F..%2Fsecret.txt", 400),
            ("/categories/%2e%2e/%2e%2e/secret.txt", 400),
            ("/..%5csecret.txt", 400),
            ("/..\\secret.txt", 400),
            ("/%2Fetc%2Fpasswd", 400),
            ("//etc/passwd", 400),
            ("/./app-config.json", 400),
            ("/app-config.json%00.html", 400),
            ("/%00", 400),
            ("/%zz", 400),
            ("/%c0%ae%c0%ae/secret.txt", 400),   // overlong UTF-8 for '.': not UTF-8 at all
            ("http://127.0.0.1/../secret.txt", 400),
            ("/leak.txt", 404),                  // symlink to ../secret.txt
            ("/leakdir/secret.txt", 404),        // symlinked folder pointing out
            ("/abs.txt", 404),                   // symlink to an absolute path
            ("/etc/passwd", 404),
        ]
        for (target, status) in attempts {
            let r = try RawHTTP.get(port: port, target)
            XCTAssertEqual(r.status, status, target)
            XCTAssertFalse(String(decoding: r.body, as: UTF8.self).contains(Self.secret), target)
        }
        // The server said which entries of the tree it never serves.
        XCTAssertTrue(Self.running.errors.contains { $0.contains("leak.txt") && $0.contains("never served") }, "\(Self.running.errors)")
    }

    func testHeadHasTheHeadersOfGetAndNoBody() throws {
        for (target, accept) in [("/app-config.json", ""), ("/search-index.json", "gzip"), ("/nope.json", "")] {
            var head = "HEAD \(target) HTTP/1.1\r\nHost: x\r\n"
            var get = "GET \(target) HTTP/1.1\r\nHost: x\r\n"
            if !accept.isEmpty { head += "Accept-Encoding: \(accept)\r\n"; get += "Accept-Encoding: \(accept)\r\n" }
            // Pipelined on one connection: a single stray body byte after the HEAD would garble the GET's answer.
            let (responses, rest) = try RawHTTP.exchange(port: port, [head + "\r\n", get + "Connection: close\r\n\r\n"], methods: ["HEAD", "GET"])
            XCTAssertTrue(rest.isEmpty, "\(target): \(rest.count) stray bytes")
            var h = responses[0].headers, g = responses[1].headers
            h["date"] = nil; g["date"] = nil; g["connection"] = nil
            XCTAssertEqual(h, g, target)
            XCTAssertEqual(responses[0].status, responses[1].status)
            XCTAssertEqual(Int(g["content-length"] ?? ""), responses[1].body.count)
            XCTAssertGreaterThan(responses[1].body.count, 0)
        }
    }

    func testOnlyGetAndHeadAreAllowed() throws {
        // Any method at all, standard or not (methods are case-sensitive: `get` is not GET).
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND", "BREW", "M-SEARCH", "get", "Head"] {
            let r = try RawHTTP.get(port: port, "/app-config.json", method: method)
            XCTAssertEqual(r.status, 405, method)
            XCTAssertEqual(r.header("Allow"), "GET, HEAD", method)
        }
        // A body sent with a refused method does not disturb the next request on the connection.
        let post = "POST /app-config.json HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        let get = "GET /app-config.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let (responses, _) = try RawHTTP.exchange(port: port, [post, get], methods: ["POST", "GET"])
        XCTAssertEqual(responses.map(\.status), [405, 200])
        XCTAssertEqual(responses[1].body, try disk("app-config.json"))
    }

    /// URLSession (what apps use) over one kept-alive connection: GET, HEAD, a conditional GET, gzip decoded.
    func testURLSessionKeepAliveGetHeadAndConditionalGet() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        func fetch(_ path: String, method: String = "GET", headers: [String: String] = [:]) throws -> (HTTPURLResponse, Data) {
            var request = URLRequest(url: URL(string: path, relativeTo: Self.running.url)!)
            request.httpMethod = method
            for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var out: (HTTPURLResponse, Data)?
            nonisolated(unsafe) var failure: Error?
            session.dataTask(with: request) { data, response, error in
                if let r = response as? HTTPURLResponse { out = (r, data ?? Data()) } else { failure = error }
                done.signal()
            }.resume()
            done.wait()
            if let out { return out }
            throw failure ?? RawHTTP.Failure("no response")
        }
        let index = try ServeSupport.fileIndex(Self.dist)
        for _ in 0..<3 {
            for path in ["app-config.json", "search-index.json", "categories/index.json"] {
                let (r, body) = try fetch(path)
                XCTAssertEqual(r.statusCode, 200)
                XCTAssertEqual(body, try disk(path), "decoded by URLSession when it asked for gzip")
                XCTAssertEqual(ServeSupport.sha256(body), index.files[path])
                let (h, headBody) = try fetch(path, method: "HEAD")
                XCTAssertEqual(h.statusCode, 200)
                XCTAssertEqual(headBody.count, 0)
                let etag = try XCTUnwrap(r.value(forHTTPHeaderField: "ETag"))
                let (c, _) = try fetch(path, headers: ["If-None-Match": etag])
                XCTAssertEqual(c.statusCode, 304)
            }
        }
        let (missing, page) = try fetch("nope.json")
        XCTAssertEqual(missing.statusCode, 404)
        XCTAssertEqual(page, try disk("404.html"))
    }

    /// python requests (what schemathesis drives) over a kept-alive session.
    func testPythonRequestsKeepAliveGetAndHead() throws {
        try Tool.require(.python3, .requests)
        let script = """
        import hashlib, json, sys
        import requests
        base, expected = sys.argv[1], json.loads(sys.argv[2])
        s = requests.Session()
        out = []
        for _ in range(3):
            for path, sha in expected.items():
                g = s.get(base + path)
                h = s.head(base + path)
                c = s.get(base + path, headers={"If-None-Match": g.headers["ETag"]})
                out.append([path, g.status_code, hashlib.sha256(g.content).hexdigest() == sha, g.headers.get("Content-Encoding"),
                            h.status_code, len(h.content), h.headers["Content-Length"] == g.headers["Content-Length"], c.status_code])
        n = s.get(base + "nope.json")
        print(json.dumps({"rows": out, "missing": n.status_code}))
        """
        let index = try ServeSupport.fileIndex(Self.dist)
        let expected = Dictionary(uniqueKeysWithValues: ["app-config.json", "search-index.json"].map { ($0, index.files[$0]!) })
        let (status, output) = try Command.run(["python3", "-c", script, Self.running.url.absoluteString,
                                                String(decoding: try JSONSerialization.data(withJSONObject: expected), as: UTF8.self)])
        XCTAssertEqual(status, 0, output)
        let result = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        for case let row as [Any] in result["rows"] as! [Any] {
            XCTAssertEqual(row[1] as? Int, 200, "\(row)")
            XCTAssertEqual(row[2] as? Bool, true, "\(row)")
            XCTAssertEqual(row[4] as? Int, 200, "\(row)")
            XCTAssertEqual(row[5] as? Int, 0, "\(row)")
            XCTAssertEqual(row[6] as? Bool, true, "\(row)")
            XCTAssertEqual(row[7] as? Int, 304, "\(row)")
        }
        XCTAssertTrue((result["rows"] as! [[Any]]).contains { $0[0] as? String == "search-index.json" && $0[3] as? String == "gzip" })
        XCTAssertEqual(result["missing"] as? Int, 404)
    }
}
