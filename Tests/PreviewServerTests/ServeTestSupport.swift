import CZlib
import Foundation
import Generator
import PreviewServer
import TreeClient
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Trees, servers and clients for the serve tests. Every server listens on 127.0.0.1 only.
enum ServeSupport {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let defaultInput = repoRoot.appendingPathComponent("input")

    /// One folder per test process (tmpfs when there is one), removed at exit; those of dead test processes first.
    static let scratch: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix("serve-tests-") {
            if let pid = Int32(name.dropFirst("serve-tests-".count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
            }
        }
        let url = base.appendingPathComponent("serve-tests-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        scratchPath = url.path
        atexit { if let p = ServeSupport.scratchPath { try? FileManager.default.removeItem(atPath: p) } }
        return url
    }()
    nonisolated(unsafe) static var scratchPath: String?

    static func tempDir(_ name: String) -> URL {
        let url = scratch.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A copy of the default input (what `--watch` is tried on).
    static func copyOfDefaultInput() -> URL {
        let dir = tempDir("input")
        let copy = dir.appendingPathComponent("input")
        try! FileManager.default.copyItem(at: defaultInput, to: copy)
        return copy
    }

    /// A small input: the default site.json without auctions and NBA, and a three-product catalog.
    static func smallInput() -> URL {
        let dir = tempDir("small-input")
        var site = try! JSONSerialization.jsonObject(with: Data(contentsOf: defaultInput.appendingPathComponent("site.json"))) as! [String: Any]
        var catalog = site["catalog"] as? [String: Any] ?? [:]
        catalog.removeValue(forKey: "featured")
        site["catalog"] = catalog
        site.removeValue(forKey: "auctions")
        site.removeValue(forKey: "nba")
        try! JSONSerialization.data(withJSONObject: site, options: [.sortedKeys]).write(to: dir.appendingPathComponent("site.json"))
        try! FileManager.default.createDirectory(at: dir.appendingPathComponent("catalog"), withIntermediateDirectories: true)
        let categories = #"{"categories":[{"id":"tools","name":"Tools","parent":null},{"id":"tools/drills","name":"Drills","parent":"tools"}]}"#
        try! categories.write(to: dir.appendingPathComponent("catalog/categories.json"), atomically: true, encoding: .utf8)
        let products = (1...3).map { i in
            #"{"id":"p\#(i)","name":"Cordless Drill \#(i)","description":"A drill with a long description that repeats, repeats, repeats, so it compresses.","brand":"Acme","price":\#(i)9.99,"currency":"USD","inStock":true,"imageUrl":"https://x.example/\#(i).jpg","rating":{"average":4.5,"count":10},"category":"tools/drills"}"#
        }.joined(separator: "\n") + "\n"
        try! products.write(to: dir.appendingPathComponent("catalog/products.jsonl"), atomically: true, encoding: .utf8)
        return dir
    }

    /// Builds `input` into a new `dist` folder (in process, as `generator build` does).
    static func build(_ input: URL) throws -> URL {
        let dist = tempDir("tree").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: dist, threads: 2, epochSeconds: 1_700_000_000))
        return dist
    }

    /// The file index of the release in `dist`, read from disk by JSONSerialization (not by the server's code):
    /// path → sha256.
    static func fileIndex(_ dist: URL) throws -> (version: Int, files: [String: String]) {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: dist.appendingPathComponent("update-manifest.json"))) as! [String: Any]
        let indexPath = (manifest["fileIndex"] as! [String: Any])["path"] as! String
        return (manifest["version"] as! Int, try indexFile(dist.appendingPathComponent(indexPath)))
    }

    static func currentVersion(_ dist: URL) throws -> String {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: dist.appendingPathComponent("update-manifest.json"))) as! [String: Any]
        return manifest["currentVersion"] as! String
    }

    static func indexFile(_ url: URL) throws -> [String: String] {
        let index = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var out: [String: String] = [:]
        for case let e as [String: Any] in index["files"] as! [Any] { out[e["path"] as! String] = (e["sha256"] as! String) }
        return out
    }

    static func sha256(_ data: Data) -> String { HTTPFetcher.sha256Hex([UInt8](data)) }

    /// gunzip, by zlib's inflate (the oracle for the server's gzip bodies).
    static func gunzip(_ data: Data) -> Data? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = [UInt8](data)
        var out = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { inBuf in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inBuf.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    out.append(outBuf.baseAddress!, count: outBuf.count - Int(stream.avail_out))
                }
            } while status == Z_OK
        }
        return status == Z_STREAM_END ? out : nil
    }

    /// What a server reported (its stdout and stderr lines, as events).
    final class EventLog: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [PreviewServer.Event] = []
        func append(_ e: PreviewServer.Event) { lock.withLock { events.append(e) } }
        var all: [PreviewServer.Event] { lock.withLock { events } }
    }

    /// A running server, with what it reported.
    final class Running: @unchecked Sendable {
        let server: PreviewServer
        let url: URL
        let log = EventLog()
        var port: Int { url.port! }

        init(_ options: PreviewServer.Options) throws {
            let log = self.log
            let server = PreviewServer(options) { log.append($0) }
            self.server = server
            url = try ServeSupport.wait { try await server.start() }
        }

        var errors: [String] { log.all.compactMap { if case .error(let t) = $0 { return t } else { return nil } } }

        func stop() { _ = try? ServeSupport.wait { await self.server.stop() } }
    }

    /// Waits until `condition` holds (polled every 20 ms), at most `timeout` seconds.
    static func waitFor(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline { if condition() { return true }; usleep(20_000) }
        return condition()
    }

    static func serve(_ dist: URL, watch: URL? = nil) throws -> Running {
        var options = PreviewServer.Options(dist: dist)
        options.port = 0
        options.watch = watch
        options.threads = 2
        return try Running(options)
    }

    static func wait<T>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        try PreviewServer.blocking(work).get()
    }
}

/// A raw HTTP/1.1 exchange over a socket: the request bytes exactly as given (no client rewrites `..`, `%2e` or a
/// backslash), and every byte of the answer, so a body where none belongs (HEAD, 304) shows.
struct RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]   // lowercased names
        var body: Data
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// Sends `requests` (one connection, pipelined; the last should say `Connection: close`) and parses one response
    /// per request (`methods` tells which have no body). Returns the responses and any bytes left over.
    static func exchange(port: Int, _ requests: [String], methods: [String]) throws -> (responses: [Response], rest: Data) {
        let raw = try send(port: port, Data(requests.joined().utf8))
        var rest = raw[...]
        var out: [Response] = []
        for method in methods {
            guard let end = rest.range(of: Data("\r\n\r\n".utf8)) else { throw Failure("no complete header in \(String(decoding: rest.prefix(200), as: UTF8.self))") }
            let head = String(decoding: rest[rest.startIndex..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let statusParts = head[0].split(separator: " ")
            guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else { throw Failure("bad status line \(head[0])") }
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { throw Failure("bad header line \(line)") }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            rest = rest[end.upperBound...]
            var length = Int(headers["content-length"] ?? "0") ?? 0
            if method == "HEAD" || status == 304 || status == 204 { length = 0 }
            guard rest.count >= length else { throw Failure("body cut: \(rest.count) of \(length) bytes") }
            out.append(Response(status: status, headers: headers, body: Data(rest.prefix(length))))
            rest = rest.dropFirst(length)
        }
        return (out, Data(rest))
    }

    /// One request with `Connection: close`.
    static func get(port: Int, _ target: String, method: String = "GET", headers: [String: String] = [:]) throws -> Response {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        request += "Connection: close\r\n\r\n"
        let (responses, rest) = try exchange(port: port, [request], methods: [method])
        if !rest.isEmpty { throw Failure("\(rest.count) bytes after the response") }
        return responses[0]
    }

    /// Writes `bytes` to 127.0.0.1:port and reads until the server closes (5 s at most).
    static func send(port: Int, _ bytes: Data) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(errno)") }
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw Failure("connect: \(errno)") }
        var sent = 0
        let all = [UInt8](bytes)
        while sent < all.count {
            let n = all.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure("send: \(errno)") }
            sent += n
        }
        var out = Data()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { out.append(contentsOf: buf[..<n]); continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw Failure("recv: errno \(errno) after \(out.count) bytes")
        }
        return out
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

/// `generator serve` as a child process, as a user runs it (optionally under `ulimit -n`), with its output collected
/// as it comes. `stop` (or deinit) ends it; nothing is left running.
final class ServeChild: @unchecked Sendable {
    let process = Process()
    private(set) var url: URL!
    private let lock = NSLock()
    private var out = "", err = ""
    private var readers: [Thread] = []

    /// Starts `generator serve ARGS` and waits (up to `timeout` s) for its "Serving … at URL" line.
    init(_ args: [String], fileLimit: Int? = nil, timeout: Double = 60) throws {
        if let fileLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", ServeCommandTests.binary.path, "serve"] + args
        } else {
            process.executableURL = ServeCommandTests.binary
            process.arguments = ["serve"] + args
        }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        try process.run()
        readers = [(outPipe, true), (errPipe, false)].map { pipe, isOut in
            let reader = Thread { [weak self] in
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { return }
                    guard let self else { return }
                    self.lock.withLock { if isOut { self.out += String(decoding: chunk, as: UTF8.self) } else { self.err += String(decoding: chunk, as: UTF8.self) } }
                }
            }
            reader.start()
            return reader
        }
        var found: URL?
        _ = ServeSupport.waitFor(timeout) {
            if let range = stdout.range(of: #"Serving .* at http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression),
               let u = stdout[range].range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                found = URL(string: String(stdout[range][u]))
            }
            return found != nil || !process.isRunning
        }
        guard let found else {
            stop()
            throw RawHTTP.Failure("no URL printed: \(stdout) \(stderr)")
        }
        url = found
    }

    var port: Int { url.port! }
    var stdout: String { lock.withLock { out } }
    var stderr: String { lock.withLock { err } }

    /// Sends `signal` and waits up to `seconds` for the exit; true when it exited.
    func signal(_ signal: Int32, waitingUpTo seconds: Double) -> Bool {
        kill(process.processIdentifier, signal)
        return ServeSupport.waitFor(seconds) { !process.isRunning }
    }

    /// Ends the child: SIGTERM, then SIGKILL if it is still running 10 s later.
    func stop() {
        guard process.isRunning else { return }
        if !signal(SIGTERM, waitingUpTo: 10) { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    deinit { stop() }
}

/// Plain sockets to 127.0.0.1 for the tests that misbehave as clients (half-open, endless heads).
enum TestSocket {
    /// A connected TCP socket (blocking), with send and receive timeouts of `timeout` seconds; nil when refused.
    static func connect(port: Int, timeout: Int = 10) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { close(fd); return nil }
        return fd
    }

    /// Sends all of `bytes`; false when the connection failed first (the server closed it).
    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// What the server sends until it closes the connection (or the receive timeout, or a reset).
    static func receiveAll(_ fd: Int32) -> (bytes: [UInt8], closed: Bool) {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { out += buf[..<n]; continue }
            if n < 0, errno == EINTR { continue }
            // 0: closed; ECONNRESET: closed with unread bytes on the server's side; EAGAIN: the timeout.
            return (out, n == 0 || errno == ECONNRESET)
        }
    }

    /// The status code of the first answer in `bytes`, if any.
    static func status(_ bytes: [UInt8]) -> Int? {
        let line = String(decoding: bytes.prefix { $0 != 0x0D }, as: UTF8.self).split(separator: " ")
        return line.count >= 2 && line[0].hasPrefix("HTTP/1.") ? Int(line[1]) : nil
    }
}

/// A value test threads share, under a lock.
final class TestBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func update(_ body: (inout T) -> Void) { lock.withLock { body(&stored) } }
}
