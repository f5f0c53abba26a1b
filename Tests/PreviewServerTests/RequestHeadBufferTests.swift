import XCTest
@testable import PreviewServer

/// Heads cut out of a connection's bytes: the same whether the bytes come at once or one by one, pipelined heads
/// one after another with what follows left in the buffer, and the caps applied at their exact sizes.
final class RequestHeadBufferTests: XCTestCase {
    let limits = ConnectionLimits()

    func heads(_ text: String, chunk: Int) -> ([RequestHeadBuffer.Outcome], [UInt8]) {
        var buffer = RequestHeadBuffer(limits: limits)
        var out: [RequestHeadBuffer.Outcome] = []
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            buffer.append(Array(bytes[start..<min(start + chunk, bytes.count)]))
            while true {
                let outcome = buffer.next()
                if outcome == .needMore { break }
                out.append(outcome)
                if case .refused = outcome { return (out, buffer.bytes) }   // (the connection ends there)
            }
        }
        return (out, buffer.bytes)
    }

    func testByteByByteAndAtOnceAgreeAndPipelinedHeadsFollowEachOther() {
        let text = "\r\nGET /a HTTP/1.1\r\nHost: x\r\nAccept:  */* \r\n\r\nHEAD /b?q=1 HTTP/1.0\nX-Empty:\n\nrest"
        let (atOnce, restAtOnce) = heads(text, chunk: text.utf8.count)
        let (oneByOne, restOneByOne) = heads(text, chunk: 1)
        XCTAssertEqual(atOnce, oneByOne)
        XCTAssertEqual(restAtOnce, Array("rest".utf8))
        XCTAssertEqual(restOneByOne, Array("rest".utf8))
        XCTAssertEqual(atOnce, [
            .head(RequestHead(method: "GET", target: "/a", version: "HTTP/1.1", fields: [.init(name: "Host", value: "x"), .init(name: "Accept", value: "*/*")])),
            .head(RequestHead(method: "HEAD", target: "/b?q=1", version: "HTTP/1.0", fields: [.init(name: "X-Empty", value: "")])),
        ])
    }

    func testCapsApplyAtTheirExactSizes() {
        let requestLine = "GET /" + String(repeating: "a", count: limits.requestLine - 16) + " HTTP/1.1"
        XCTAssertEqual((requestLine + "\r\n").utf8.count, limits.requestLine)
        XCTAssertEqual(heads(requestLine + "\r\n\r\n", chunk: 4096).0.map(\.status), [nil])
        XCTAssertEqual(heads("GET /a" + requestLine.dropFirst(5) + "\r\n\r\n", chunk: 4096).0.map(\.status), [414])
        XCTAssertEqual(heads(requestLine + "xxx", chunk: 4096).0.map(\.status), [414], "unfinished, one byte over")
        XCTAssertEqual(heads(requestLine + "xx", chunk: 4096).0.map(\.status), [], "unfinished, at the cap: more may come")

        let field = "X: " + String(repeating: "f", count: limits.headerBlock - 7) + "\r\n"
        XCTAssertEqual((field + "\r\n").utf8.count, limits.headerBlock)
        XCTAssertEqual(heads("GET / HTTP/1.1\r\n" + field + "\r\n", chunk: 4096).0.map(\.status), [nil])
        XCTAssertEqual(heads("GET / HTTP/1.1\r\nX" + field + "\r\n", chunk: 4096).0.map(\.status), [431])
        XCTAssertEqual(heads("GET / HTTP/1.1\r\n" + field + "abc", chunk: 4096).0.map(\.status), [431], "unfinished, one byte over")
        XCTAssertEqual(heads("GET / HTTP/1.1\r\n" + field + "ab", chunk: 4096).0.map(\.status), [], "unfinished, at the cap")
    }

    func testARefusedHeadSaysWhy() {
        XCTAssertEqual(heads("GET /a HTTP/1.1\r\nNo colon here\r\n\r\n", chunk: 64).0.map(\.status), [400])
        XCTAssertEqual(heads("GET /a HTTP/3.0\r\n\r\n", chunk: 64).0.map(\.status), [505])
    }
}

extension RequestHeadBuffer.Outcome {
    /// The status a refusal answers with; nil for a head.
    var status: Int? {
        switch self {
        case .refused(let r): return r.status
        case .head, .needMore: return nil
        }
    }
}
