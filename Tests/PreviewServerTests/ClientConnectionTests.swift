import Foundation
import XCTest
@testable import PreviewServer
#if canImport(Glibc)
import Glibc
#endif

/// What one connection may cost the server, over real sockets on 127.0.0.1: the request line and header block are
/// read only up to their caps and refused at once past them (414, 431), a client that goes silent is dropped, and
/// clients sending endless headers do not hold up anyone else's answer.
final class ClientConnectionTests: XCTestCase {
    nonisolated(unsafe) static var running: ServeSupport.Running!
    nonisolated(unsafe) static var setupError: Error?

    override class func setUp() {
        do { running = try ServeSupport.serve(ServeSupport.build(ServeSupport.smallInput())) } catch { setupError = error }
    }

    override class func tearDown() { running?.stop() }

    override func setUpWithError() throws { if let e = Self.setupError { throw e } }

    var port: Int { Self.running.port }
    let limits = ConnectionLimits()

    /// Sends `bytes` without closing the sending side, then reads what comes back: an answer while the head is still
    /// unfinished shows that the server answered as soon as the cap was crossed, without waiting for the rest.
    func answer(toUnfinished bytes: [UInt8]) throws -> (status: Int?, closed: Bool) {
        let fd = try XCTUnwrap(TestSocket.connect(port: port))
        defer { close(fd) }
        TestSocket.send(fd, bytes)
        let (answer, closed) = TestSocket.receiveAll(fd)
        return (TestSocket.status(answer), closed)
    }

    func testARequestLineOverTheCapGets414AtOnce() throws {
        // The cap counts the line with its CRLF: a line of exactly the cap is read, one byte more is refused.
        let fits = "GET /" + String(repeating: "a", count: limits.requestLine - "GET / HTTP/1.1\r\n".utf8.count) + " HTTP/1.1\r\n"
        XCTAssertEqual(fits.utf8.count, limits.requestLine)
        XCTAssertEqual(try RawHTTP.exchange(port: port, [fits + "Connection: close\r\n\r\n"], methods: ["GET"]).responses[0].status, 404)
        let over = "GET /a" + fits.dropFirst(5)
        XCTAssertEqual(try RawHTTP.exchange(port: port, [over + "Connection: close\r\n\r\n"], methods: ["GET"]).responses[0].status, 414)

        // A line that never ends: 414 and the connection closed once the cap is crossed.
        let endless = try answer(toUnfinished: Array(("GET /" + String(repeating: "a", count: limits.requestLine)).utf8))
        XCTAssertEqual(endless.status, 414)
        XCTAssertTrue(endless.closed)
        // Empty lines before the request line count too, so an endless run of them ends the same way.
        XCTAssertEqual(try answer(toUnfinished: [UInt8](repeating: 0x0A, count: limits.requestLine + 1)).status, 414)
    }

    func testAHeaderBlockOverTheCapGets431AtOnce() throws {
        // The cap counts every header line with its line end and the empty line closing the block.
        func request(headerBytes: Int) -> String {
            let fixed = "Connection: close\r\nX-Pad: \r\n\r\n"
            return "GET /app-config.json HTTP/1.1\r\n" + "Connection: close\r\nX-Pad: " + String(repeating: "p", count: headerBytes - fixed.utf8.count) + "\r\n\r\n"
        }
        XCTAssertEqual(try RawHTTP.exchange(port: port, [request(headerBytes: limits.headerBlock)], methods: ["GET"]).responses[0].status, 200)
        XCTAssertEqual(try RawHTTP.exchange(port: port, [request(headerBytes: limits.headerBlock + 1)], methods: ["GET"]).responses[0].status, 431)

        // Many short fields count the same as one long one.
        let many = "GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: limits.headerBlock / 8 + 1)
        let refused = try answer(toUnfinished: Array(many.utf8))
        XCTAssertEqual(refused.status, 431)
        XCTAssertTrue(refused.closed)
        // A field that never ends.
        let endless = try answer(toUnfinished: Array(("GET / HTTP/1.1\r\nX-Long: " + String(repeating: "x", count: limits.headerBlock)).utf8))
        XCTAssertEqual(endless.status, 431)
        XCTAssertTrue(endless.closed)
    }

    /// Two clients each send a 1 MB header block (again and again) while a third asks for a file five times: every
    /// answer comes within a second, and the senders are refused (431) or cut off, each within 10 s.
    func testAnswersStayPromptWhileTwoClientsSendMegabyteHeaders() throws {
        let header = Array(("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 1 << 20) + "\r\n\r\n").utf8)
        let done = PreviewServerTests.Flag(), finished = DispatchGroup()
        let results = TestBox<[(status: Int?, closed: Bool, seconds: Double)]>([])
        let port = self.port
        defer { done.set(); finished.wait() }   // (also when a GET throws)
        for _ in 0..<2 {
            finished.enter()
            Thread {
                for _ in 0..<50 where !done.isSet {
                    let started = Date()
                    guard let fd = TestSocket.connect(port: port) else { continue }
                    TestSocket.send(fd, header)
                    let (answer, closed) = TestSocket.receiveAll(fd)
                    close(fd)
                    results.update { $0.append((TestSocket.status(answer), closed, Date().timeIntervalSince(started))) }
                }
                finished.leave()
            }.start()
        }
        XCTAssertTrue(ServeSupport.waitFor(30) { !results.value.isEmpty }, "the senders got going")
        for _ in 0..<5 {
            let started = Date()
            let r = try RawHTTP.get(port: port, "/app-config.json")
            let seconds = Date().timeIntervalSince(started)
            XCTAssertEqual(r.status, 200)
            XCTAssertLessThan(seconds, 1, "a GET took \(seconds) s while the headers were sent")
        }
        done.set()
        finished.wait()
        let all = results.value
        XCTAssertFalse(all.isEmpty)
        for r in all {
            XCTAssertTrue(r.status == 431 || (r.status == nil && r.closed), "\(r)")
            XCTAssertLessThan(r.seconds, 10, "\(r)")
        }
    }

    /// A connection that sends nothing, or stops halfway through a head, is closed once the read timeout passes.
    func testASilentConnectionIsClosedAfterTheReadTimeout() throws {
        var options = PreviewServer.Options(dist: try XCTUnwrap(ServeSupport.build(ServeSupport.smallInput())))
        options.port = 0
        options.limits.readTimeout = 0.5
        let running = try ServeSupport.Running(options)
        defer { running.stop() }
        for opening in ["", "GET /app-config.json HTTP/1.1\r\nHost: x\r\n"] {
            let fd = try XCTUnwrap(TestSocket.connect(port: running.port, timeout: 30))
            defer { close(fd) }
            let started = Date()
            TestSocket.send(fd, Array(opening.utf8))
            let (answer, closed) = TestSocket.receiveAll(fd)
            XCTAssertTrue(closed, "closed by the server, not by the client's 30 s timeout: \(opening.debugDescription)")
            XCTAssertEqual(answer, [])
            XCTAssertLessThan(Date().timeIntervalSince(started), 25)
        }
        // Between requests too: an answered keep-alive connection left idle is closed the same way.
        let fd = try XCTUnwrap(TestSocket.connect(port: running.port, timeout: 30))
        defer { close(fd) }
        TestSocket.send(fd, Array("GET /app-config.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let (answer, closed) = TestSocket.receiveAll(fd)
        XCTAssertEqual(TestSocket.status(answer), 200)
        XCTAssertTrue(closed)
    }

    /// Heads that would be read differently by different parsers are refused, and the connection closed.
    func testAmbiguousHeadsGet400() throws {
        for head in ["GET /app-config.json\tHTTP/1.1\r\n\r\n",
                     "GET  /app-config.json HTTP/1.1\r\n\r\n",
                     "GET /app\u{1}config.json HTTP/1.1\r\n\r\n",
                     "GET /app-config.json HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
                     "GET /app-config.json HTTP/1.1\r\nHost : x\r\n\r\n",
                     "GET /app-config.json HTTP/1.1\r\nContent-Length: 1, 2\r\n\r\n",
                     "GET /app-config.json HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                     "GET /app-config.json\r\n\r\n"] {
            let (responses, rest) = try RawHTTP.exchange(port: port, [head], methods: ["GET"])
            XCTAssertEqual(responses[0].status, 400, head.debugDescription)
            XCTAssertEqual(responses[0].header("Connection"), "close", head.debugDescription)
            XCTAssertTrue(rest.isEmpty)
        }
        XCTAssertEqual(try RawHTTP.get(port: port, "/app-config.json", method: "GET").status, 200)
        let (responses, _) = try RawHTTP.exchange(port: port, ["GET /app-config.json HTTP/2.0\r\n\r\n"], methods: ["GET"])
        XCTAssertEqual(responses[0].status, 505)
    }

    /// HTTP/1.0 closes after each answer unless it asks for keep-alive, which is then said back.
    func testHTTP10KeepAliveOnlyWhenAsked() throws {
        let (one, _) = try RawHTTP.exchange(port: port, ["GET /app-config.json HTTP/1.0\r\n\r\n"], methods: ["GET"])
        XCTAssertEqual(one[0].status, 200)
        XCTAssertEqual(one[0].header("Connection"), "close")
        let (two, rest) = try RawHTTP.exchange(port: port, ["GET /app-config.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                                                            "GET /app-config.json HTTP/1.0\r\n\r\n"], methods: ["GET", "GET"])
        XCTAssertEqual(two.map(\.status), [200, 200])
        XCTAssertEqual(two[0].header("Connection"), "keep-alive")
        XCTAssertTrue(rest.isEmpty)
    }
}
