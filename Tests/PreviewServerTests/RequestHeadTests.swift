import XCTest
@testable import PreviewServer

/// The meaning of a parsed head: when the connection stays open, and how a body follows.
final class RequestHeadTests: XCTestCase {
    func head(_ version: String, _ fields: [(String, String)]) -> RequestHead {
        RequestHead(method: "GET", target: "/", version: version, fields: fields.map { .init(name: $0.0, value: $0.1) })
    }

    func testKeepAliveByVersionAndConnection() {
        XCTAssertTrue(head("HTTP/1.1", []).keepAlive)
        XCTAssertFalse(head("HTTP/1.1", [("connection", "Keep-Alive, Close")]).keepAlive)
        XCTAssertFalse(head("HTTP/1.0", []).keepAlive)
        XCTAssertTrue(head("HTTP/1.0", [("Connection", "keep-alive")]).keepAlive)
    }

    func testBodyFraming() throws {
        XCTAssertEqual(try head("HTTP/1.1", []).body(), .none)
        XCTAssertEqual(try head("HTTP/1.1", [("Content-Length", "0")]).body(), .none)
        XCTAssertEqual(try head("HTTP/1.1", [("Content-Length", "12")]).body(), .length(12))
        XCTAssertEqual(try head("HTTP/1.1", [("Content-Length", "5, 5"), ("content-length", "5")]).body(), .length(5))
        XCTAssertEqual(try head("HTTP/1.1", [("Transfer-Encoding", "chunked"), ("Content-Length", "5")]).body(), .unframed)
        for bad in ["", "+5", "5 5", "1, 2", "0x10", "99999999999999999999"] {
            XCTAssertThrowsError(try head("HTTP/1.1", [("Content-Length", bad)]).body(), bad)
        }
    }
}
