import ArgumentParser
import Dispatch
import Foundation
import Generator
import PreviewServer

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a built tree over HTTP as GitHub Pages would, and rebuild it when the input changes.",
        discussion: """
        A local preview for app developers: content types by extension, an ETag from the file index's sha256 \
        (304 on If-None-Match), gzip when the client accepts it, 404.html with status 404 for a missing path, \
        a folder's index.html (never a listing), GET and HEAD only (405 for any other method). Paths are decoded \
        one segment at a time and nothing outside the tree is ever read: '..', '.', empty segments, encoded '/', \
        backslashes and control characters are refused (400), and symlinks in the tree are never followed.

        Each request is answered from one pinned snapshot of the tree (hard links in a private folder beside it, \
        .DIST.serve-PID, removed at exit), so a build swapping the tree meanwhile is never seen halfway. A rebuild \
        by anyone (this command with --watch, or `generator build` elsewhere) is served as soon as it is swapped in. \
        With --watch, the input is polled and rebuilt into DIST (a normal build: a new release) once it has been \
        quiet for a moment; a failed build prints its errors and the last good tree stays served.

        A request line over 8 KB gets 414 and header fields over 64 KB get 431, at once, and the connection is \
        closed; so is a connection silent for 15 s. Running out of file descriptors delays new connections (said \
        once) and never closes the listening socket.

        Stops within a second on Ctrl-C or SIGTERM (a build under way is abandoned as a killed one is). Exit codes: \
        0 stopped, 1 the first build failed with no tree to serve or the port cannot be used, 2 usage errors (DIST \
        not a built tree, a refused DIST for --watch, a bad --host or --port).
        """)

    @Argument(help: "The tree to serve (built by generator build; with --watch, built first when missing).")
    var dist: String = "dist"

    @Option(help: "Address to listen on: a numeric IPv4 or IPv6 address, or localhost. Anything but a loopback address exposes the tree to the network.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one (the URL printed names it).")
    var port: Int = 8080

    @Option(help: ArgumentHelp("Input folder to rebuild DIST from whenever it changes.", valueName: "input"))
    var watch: String?

    @Option(name: .long, help: "Worker threads of each build (default: all cores).")
    var threads: Int?

    func run() throws {
        guard (0...65535).contains(port) else {
            FileHandle.standardError.write(Data("error: --port must be 0 to 65535\n".utf8))
            throw ExitCode(2)
        }
        var options = PreviewServer.Options(dist: OutputGuard.fileURL(dist))
        options.host = host
        options.port = UInt16(port)
        options.watch = watch.map { OutputGuard.fileURL($0) }
        if let threads { options.threads = max(1, threads) }
        let server = PreviewServer(options) { event in
            switch event {
            case .info(let text): FileHandle.standardOutput.write(Data((text + "\n").utf8))
            case .error(let text): FileHandle.standardError.write(Data((text + "\n").utf8))
            }
        }
        // Signals are taken as events (not the default exit) so the snapshot folder is removed on the way out.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let stop = DispatchSemaphore(value: 0)
        let sources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        let started: Result<URL, Error> = PreviewServer.blocking { try await server.start() }
        switch started {
        case .success(let url):
            FileHandle.standardOutput.write(Data("Serving \(dist) at \(url.absoluteString)\(watch.map { ", rebuilding from \($0) on changes" } ?? "") (Ctrl-C stops)\n".utf8))
        case .failure(let error as PreviewServer.StartError):
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe(error.description))\n".utf8))
            throw ExitCode(error.isUsage ? 2 : 1)
        case .failure(let error):
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
        stop.wait()
        // Within a second of the signal: a build under way is not waited for (it ends with the process, as a killed
        // build does, and the next build of DIST cleans up after it).
        _ = PreviewServer.blocking { await server.stop(buildWait: 0.2); return () }
        FileHandle.standardOutput.write(Data("stopped\n".utf8))
    }
}
