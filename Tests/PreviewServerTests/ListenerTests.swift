import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket outlives a burst of connections past the process's descriptor limit: `generator serve` runs
/// as a child under `ulimit -n 64`, serving a small tree built in a temp folder, while the test holds 150 silent
/// connections open to it.
final class ListenerTests: XCTestCase {
    static let burst = 150

    func testRunningOutOfDescriptorsDelaysConnectionsAndServingResumes() throws {
        let dist = try ServeSupport.build(ServeSupport.smallInput())
        let child = try ServeChild([dist.path, "--port", "0"], fileLimit: 64)
        defer { child.stop() }
        XCTAssertEqual(try RawHTTP.get(port: child.port, "/app-config.json").status, 200)

        var open: [Int32] = [], refused = 0
        defer { open.forEach { close($0) } }
        for _ in 0..<Self.burst {
            if let fd = TestSocket.connect(port: child.port) { open.append(fd) } else { refused += 1 }
        }
        XCTAssertEqual(refused, 0, "connections wait in the listening socket's queue, none is refused")
        XCTAssertTrue(ServeSupport.waitFor(60) { child.stderr.contains("file descriptors") }, "the server said it ran out: \(child.stderr)")

        open.forEach { close($0) }
        open = []
        var answer: Int?
        XCTAssertTrue(ServeSupport.waitFor(60) {
            answer = try? RawHTTP.get(port: child.port, "/app-config.json").status
            return answer != nil
        }, "served again once the connections closed; stderr: \(child.stderr)")
        XCTAssertEqual(answer, 200)
        XCTAssertTrue(ServeSupport.waitFor(30) { child.stdout.contains("accepting connections again") }, child.stdout)
        let said = child.stderr.components(separatedBy: "\n").filter { $0.contains("file descriptors") }
        XCTAssertEqual(said.count, 1, "said once: \(child.stderr)")
        XCTAssertEqual(child.stdout.components(separatedBy: "accepting connections again").count, 2, child.stdout)
        XCTAssertTrue(child.process.isRunning)
    }
}
