import Foundation
import XCTest
import TestTools

/// The real tools the web tests drive: headless Chromium, Node and a static file server on 127.0.0.1 (each test first
/// requires its tools with `Tool.require`).
enum WebTools {
    /// Tests/Web: the pages and scripts the web tests serve or run (not part of any tree).
    static let folder = TestSupport.repoRoot.appendingPathComponent("Tests/Web")

    /// A folder served over HTTP on 127.0.0.1 (python's http.server on a free port) until `stop`.
    final class Server {
        let process = Process()
        let url: URL

        init(_ root: URL) throws {
            try Tool.require(.python3)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root.path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
            var text = ""
            while !text.contains("\n") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            guard let port = text.split(separator: " ").drop(while: { $0 != "port" }).dropFirst().first.flatMap({ Int($0) }) else {
                process.terminate()
                throw NSError(domain: "WebTools", code: 1, userInfo: [NSLocalizedDescriptionKey: "http.server did not start: \(text)"])
            }
            url = URL(string: "http://127.0.0.1:\(port)/")!
        }

        func stop() { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        deinit { stop() }
    }

    /// A folder to serve: `tree` (a link to a built tree; the server follows it) beside copies of the test pages.
    static func site(tree: URL, extra: [String: Data] = [:]) throws -> URL {
        let root = TestSupport.tempDir("web-site")
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("tree"), withDestinationURL: tree)
        for name in ["compare.html", "page-check.html"] {
            try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        for (name, data) in extra { try data.write(to: root.appendingPathComponent(name)) }
        return root
    }

    static func chromiumArguments() -> [String] {
        // As root (CI) Chromium needs --no-sandbox; a profile of its own per run, so runs never share a lock.
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
         "--user-data-dir=" + TestSupport.tempDir("chromium-profile").path]
    }

    /// The page's DOM once it has settled: Chromium's virtual time runs its timers and waits for its fetches.
    static func dumpDOM(_ url: URL, budgetMilliseconds: Int = 120_000) throws -> String {
        try stdout(chromiumArguments() + ["--dump-dom", "--virtual-time-budget=\(budgetMilliseconds)", url.absoluteString])
    }

    /// A command's standard output alone (Chromium logs to stderr, which must not mix into the DOM it prints).
    static func stdout(_ command: [String], input: Data? = nil) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = command
        let out = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        if input != nil { p.standardInput = inp }
        try p.run()
        if let input {
            // Written from another thread: a large input must not wait on a full output pipe.
            DispatchQueue.global().async { inp.fileHandleForWriting.write(input); try? inp.fileHandleForWriting.close() }
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The text after `marker` in the page's `<pre id="out">` (HTML entities decoded).
    static func output(_ dom: String, marker: String) -> String? {
        guard let start = dom.range(of: "<pre id=\"out\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else { return nil }
        let text = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&nbsp;", with: "\u{A0}")
            .replacingOccurrences(of: "&amp;", with: "&")
        return text.hasPrefix(marker + " ") ? String(text.dropFirst(marker.count + 1)) : nil
    }

    /// A PNG of the page as a phone shows it (390 × 844 CSS pixels).
    static func screenshot(_ url: URL, to png: URL) throws -> (status: Int32, output: String) {
        try TestSupport.run(chromiumArguments() + ["--window-size=390,844", "--screenshot=" + png.path,
                                                   "--virtual-time-budget=20000", url.absoluteString])
    }
}
