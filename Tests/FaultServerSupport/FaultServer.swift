import Foundation
import TreeClient
import TestTools

/// `scripts/fault-server.py` as a subprocess, for tests of everything that downloads a tree: it serves a folder on
/// 127.0.0.1 (never another interface) with ETag/304, and misbehaves on request (500, 404, truncated, corrupted,
/// reset, slow). Start one per test, `stop()` it in tearDown (it also stops by itself after `maxSeconds`).
public final class FaultServer {
    public let port: Int
    /// `http://127.0.0.1:PORT/`
    public let base: URL
    private let process: Process
    private let control = HTTPFetcher(.init(timeout: 10, retries: 0))

    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/fault-server.py")

    public init(root: URL, maxSeconds: Int = 600) throws {
        try Tool.require(.python3)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, root.path, "--max-seconds", String(maxSeconds), "--stop-on-stdin-close"]
        let out = Pipe()
        process.standardOutput = out
        // Held open by this process only: if the test process dies, the server sees its stdin close and stops.
        process.standardInput = Pipe()
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is the port.
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let text = String(data: line, encoding: .utf8)?.split(separator: "\n").first, let port = Int(text) else {
            process.terminate()
            throw NSError(domain: "FaultServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "fault-server.py printed no port"])
        }
        self.port = port
        base = URL(string: "http://127.0.0.1:\(port)/")!
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    @discardableResult
    private func get(_ pathAndQuery: String) throws -> [UInt8] {
        try control.fetch(URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!).body
    }

    /// Serves another folder from now on (a new release, or a rollback).
    public func serve(_ root: URL) throws {
        try get("/__root?path=" + root.path.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+")))!)
    }

    /// Faults by tree path (or "*"): "500", "404", "truncate", "corrupt", "reset", "slow", "slowN", each optionally
    /// prefixed "once:". Replaces the faults set before.
    public func fault(_ rules: [String: String]) throws {
        let text = rules.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        try get("/__faults?set=" + text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&+")))!)
    }

    public func clearFaults() throws { try get("/__faults?clear=1") }

    public struct Request: Decodable { public let path: String; public let status: Int; public let bytes: Int }

    /// Every file request since the last `clearLog()`.
    public func log() throws -> [Request] { try JSONDecoder().decode([Request].self, from: Data(try get("/__log"))) }

    public func clearLog() throws { try get("/__log?clear=1") }
}
