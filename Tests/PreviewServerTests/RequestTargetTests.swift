import XCTest
@testable import PreviewServer

/// How a request target becomes a tree path: decoded one segment at a time, refused when it could name anything but
/// a file or folder below the root.
final class RequestTargetTests: XCTestCase {
    func testPlainTargets() {
        XCTAssertEqual(RequestTarget.resolve("/"), .folder(""))
        XCTAssertEqual(RequestTarget.resolve("/docs/"), .folder("docs"))
        XCTAssertEqual(RequestTarget.resolve("/app-config.json"), .file("app-config.json"))
        XCTAssertEqual(RequestTarget.resolve("/products/300179/details.json?v=3#x"), .file("products/300179/details.json"))
        XCTAssertEqual(RequestTarget.resolve("/a%20b/caf%C3%A9.json"), .file("a b/café.json"))
        XCTAssertEqual(RequestTarget.resolve("/details%2Ejson"), .file("details.json"), "an encoded dot inside a name is just a dot")
        XCTAssertEqual(RequestTarget.resolve("http://127.0.0.1:8080/app-config.json"), .file("app-config.json"))
        XCTAssertEqual(RequestTarget.resolve("HTTP://host"), .folder(""))
    }

    func testRefusedTargets() {
        for target in ["/..", "/../x", "/a/../b", "/%2e%2e/x", "/%2E%2e", "/.%2E/x", "/./x", "/a/.", "//x", "/a//b",
                       "/a%2Fb", "/a%2fb", "/%2F", "/a\\b", "/a%5Cb", "/a%00b", "/%0d%0aSet-Cookie:x", "/a%7Fb", "/%C2%85",
                       "/%", "/%2", "/%zz", "/%ff", "/%c0%ae%c0%ae", "*", "x", ""] {
            guard case .refused = RequestTarget.resolve(target) else { return XCTFail("\(target) was not refused: \(RequestTarget.resolve(target))") }
        }
    }

    func testURLPathEncodesWhatNeedsIt() {
        XCTAssertEqual(RequestTarget.urlPath("docs", folder: true), "/docs/")
        XCTAssertEqual(RequestTarget.urlPath("a b/café"), "/a%20b/caf%C3%A9")
        XCTAssertEqual(RequestTarget.resolve(RequestTarget.urlPath("a b/café?#%")), .file("a b/café?#%"))
    }
}
