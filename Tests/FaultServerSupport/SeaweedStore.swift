import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TreeClient
import TestTools

/// A real S3-compatible store for the publish tests: SeaweedFS's `weed server -s3` (master, volume, filer and S3
/// gateway in one process) on 127.0.0.1 only, with its data in a folder of the caller's. Two S3 identities: one with
/// a key pair that may write, and anonymous read-only access, so a published tree can be read over plain HTTP as
/// apps and `generator sync` read it. Start one per test class; it is stopped by `stop()`, and killed with the test
/// process (its wrapper shell kills it when its standard input, a pipe of this process, closes).
public final class SeaweedStore {
    /// The store did not start or answer as expected.
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// S3 gateway port; `endpoint` is `http://127.0.0.1:PORT`.
    public let port: Int
    public let filerPort: Int
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    public let accessKey = "PUBLISHTESTKEY"
    /// Random per run: a test can only pass by signing with it.
    public let secretKey = "publish-test-secret-" + UUID().uuidString
    public let folder: URL
    private let process: Process
    /// weed's gRPC servers also listen on /tmp/seaweedfs-NAME-grpc-PORT.sock (not configurable): removed by stop().
    private let grpcPorts: [(String, Int)]
    private let input = Pipe()

    /// Free TCP ports on 127.0.0.1, all different (each socket is held until all are picked).
    static func freePorts(_ n: Int) -> [Int] {
        var fds: [Int32] = [], ports: [Int] = []
        for _ in 0..<n {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = 0
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
            _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            fds.append(fd)
            ports.append(Int(UInt16(bigEndian: addr.sin_port)))
        }
        fds.forEach { close($0) }
        return ports
    }

    /// Starts the store and waits until its S3 gateway answers (about 3 s). Without `weed` it skips the test (fails it
    /// under REQUIRE_TOOLS=1) with the install command.
    public init(folder: URL, timeout: TimeInterval = 30) throws {
        try Tool.require(.weed)
        let weed = Tool.weed.location!
        self.folder = folder
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("s3.json")
        let identities: [String: Any] = ["identities": [
            ["name": "anonymous", "actions": ["Read"]],
            ["name": "publisher", "credentials": [["accessKey": accessKey, "secretKey": secretKey]],
             "actions": ["Admin", "Read", "Write", "List", "Tagging"]],
        ]]
        try JSONSerialization.data(withJSONObject: identities).write(to: config)
        let p = Self.freePorts(8)
        grpcPorts = [("master", p[1]), ("volume", p[3]), ("filer", p[5]), ("s3", p[7])]
        port = p[6]
        filerPort = p[4]
        // (glog writes its files to -logdir, /tmp otherwise.)
        let args = ["-logdir=\(folder.path)", "server", "-dir=\(data.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
                    "-master.port=\(p[0])", "-master.port.grpc=\(p[1])", "-master.volumeSizeLimitMB=64", "-volume.max=32",
                    "-volume.port=\(p[2])", "-volume.port.grpc=\(p[3])",
                    "-filer", "-filer.port=\(p[4])", "-filer.port.grpc=\(p[5])", "-filer.localSocket=\(folder.path)/filer.sock",
                    "-s3", "-s3.port=\(p[6])", "-s3.port.grpc=\(p[7])", "-s3.port.iceberg=0", "-s3.port.lance=0",
                    "-s3.localSocket=\(folder.path)/s3.sock", "-s3.config=\(config.path)", "-s3.autoCreateBucket=false"]
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // weed in the background; when this process's pipe closes (stop(), or the test process died), it is killed.
        process.arguments = ["-c", "\"$0\" \"$@\" >\"\(folder.path)/weed.log\" 2>&1 & pid=$!; cat >/dev/null; kill -9 $pid; wait $pid", weed] + args
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let probe = HTTPFetcher(.init(timeout: 2, retries: 0))
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // Any HTTP answer (403 for an anonymous listing) means the gateway is up.
            do { _ = try probe.fetch(URL(string: "\(endpoint)/")!); break } catch let f as HTTPFetcher.Failure {
                if case .status = f.kind { break }
                if case .notFound = f.kind { break }
            }
            if Date() > deadline || !process.isRunning {
                stop()
                let log = (try? String(contentsOf: folder.appendingPathComponent("weed.log"), encoding: .utf8)) ?? ""
                throw Failure(description: "weed server did not start within \(Int(timeout)) s; its log ends:\n" + log.split(separator: "\n").suffix(10).joined(separator: "\n"))
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        for (name, port) in grpcPorts { unlink("/tmp/seaweedfs-\(name)-grpc-\(port).sock") }
    }

    /// Creates a bucket (a folder of the filer: no S3 credentials involved).
    public func createBucket(_ name: String) throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(filerPort)/buckets/\(name)/")!)
        request.httpMethod = "POST"
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var status = 0 }
        let box = Box()
        URLSession.shared.dataTask(with: request) { _, response, _ in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        guard (200..<300).contains(box.status) else { throw Failure(description: "creating bucket \(name): HTTP \(box.status)") }
    }

    /// The names in a folder of a bucket as the filer lists them (not through S3, so not through the code under test);
    /// empty when there is no such folder.
    public func list(_ bucket: String, _ folder: String) throws -> [String] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(filerPort)/buckets/\(bucket)/\(folder)/?limit=10000")!)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        final class Box: @unchecked Sendable { var status = 0; var body = Data() }
        let box = Box(), done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            box.body = data ?? Data()
            done.signal()
        }.resume()
        done.wait()
        if box.status == 404 { return [] }
        guard box.status == 200, let json = try JSONSerialization.jsonObject(with: box.body) as? [String: Any] else {
            throw Failure(description: "listing \(folder) on the filer: HTTP \(box.status)")
        }
        return ((json["Entries"] as? [[String: Any]]) ?? []).compactMap { ($0["FullPath"] as? String)?.split(separator: "/").last.map(String.init) }
    }

    /// The public (anonymous, read-only) URL of a prefix, as apps are given it.
    public func site(_ bucket: String, _ prefix: String) -> URL { URL(string: "\(endpoint)/\(bucket)/\(prefix)/")! }
}

/// `scripts/s3-proxy.py` in front of a store: records every request in order and can fail or hold PUTs after the
/// first K (see the script). Stopped by `stop()` or with the test process.
public final class S3Proxy {
    public let port: Int
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    private let process = Process()
    private let input = Pipe()
    private let control = HTTPFetcher(.init(timeout: 10, retries: 0))

    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/s3-proxy.py")

    public init(upstreamPort: Int) throws {
        try Tool.require(.python3)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, String(upstreamPort), "--max-seconds", "600", "--stop-on-stdin-close"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let text = String(data: line, encoding: .utf8)?.split(separator: "\n").first, let port = Int(text) else {
            process.terminate()
            throw NSError(domain: "S3Proxy", code: 1, userInfo: [NSLocalizedDescriptionKey: "s3-proxy.py printed no port"])
        }
        self.port = port
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    public struct Request: Decodable, Equatable { public let method: String; public let path: String; public let status: Int }

    @discardableResult
    private func get(_ pathAndQuery: String) throws -> [UInt8] { try control.fetch(URL(string: "\(endpoint)\(pathAndQuery)")!).body }

    /// Every request answered since the last `clearLog()`, in order.
    public func log() throws -> [Request] { try JSONDecoder().decode([Request].self, from: Data(try get("/__log"))) }
    public func clearLog() throws { try get("/__log?clear=1") }
    /// After `after` more PUTs, every PUT gets `mode`: "500", "500once" or "hang".
    public func failPuts(after: Int, mode: String) throws { try get("/__faults?put-after=\(after)&mode=\(mode)") }
    /// The same for DELETEs (replaces a PUT fault).
    public func failDeletes(after: Int, mode: String) throws { try get("/__faults?delete-after=\(after)&mode=\(mode)") }
    public func clearFaults() throws { try get("/__faults?clear=1") }
}
