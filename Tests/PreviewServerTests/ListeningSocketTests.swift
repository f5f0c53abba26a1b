import XCTest
import Foundation
@testable import PreviewServer
#if canImport(Glibc)
import Glibc
#endif

/// `PreviewServer.disableNagle` finds this process's listening socket by its port, IPv4 or IPv6, and sets
/// TCP_NODELAY on it (accepted sockets inherit it).
final class ListeningSocketTests: XCTestCase {
    func testNagleIsDisabledOnTheSocketListeningOnThePort() throws {
        XCTAssertFalse(PreviewServer.disableNagle(listeningOn: 0), "no socket listens on port 0")
        var tried = 0
        for family in [AF_INET, AF_INET6] {
            guard let (fd, port) = Self.listeningSocket(family) else { continue }   // (no IPv6 on this host)
            defer { close(fd) }
            tried += 1
            XCTAssertEqual(Self.noDelay(fd), 0, "\(family)")
            XCTAssertTrue(PreviewServer.disableNagle(listeningOn: port), "\(family)")
            XCTAssertEqual(Self.noDelay(fd), 1, "\(family)")
        }
        XCTAssertGreaterThan(tried, 0)
    }

    /// A socket listening on the loopback address, on a free port.
    static func listeningSocket(_ family: Int32) -> (Int32, UInt16)? {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let bound = withUnsafeMutablePointer(to: &storage) { p -> Bool in
            if family == AF_INET {
                p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
                }
                size = socklen_t(MemoryLayout<sockaddr_in>.size)
            } else {
                p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_addr = in6addr_loopback
                }
                size = socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
            return p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &size) == 0 }
        }
        guard bound else { close(fd); return nil }
        let port = withUnsafePointer(to: &storage) { p in
            family == AF_INET ? p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                : p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return (fd, port)
    }

    static func noDelay(_ fd: Int32) -> Int32 {
        var on: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, &length) == 0 ? on : -1
    }
}
