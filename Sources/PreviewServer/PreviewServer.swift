import FlyingSocks
import Foundation
import LowLevel
import Generator
#if canImport(Glibc)
import Glibc
#endif

/// `generator serve`: a local preview of a built tree over HTTP (`Listener`), answered as GitHub Pages would, and with
/// `watch` a rebuild whenever the input changes.
///
/// Requests are answered from pinned snapshots (`PinnedRelease`), never from `dist/` itself: a build swaps `dist/` and
/// removes the old tree while requests may be in flight, so a server reading `dist/` per request could mix two
/// releases or find files gone. A new snapshot is pinned after each build (ours with `watch`, or anyone's: the
/// tree's folder is polled) and replaces the served one at once; the old one stays until its last request is done.
public final class PreviewServer: Sendable {
    public struct Options: Sendable {
        public var dist: URL
        public var host = "127.0.0.1"
        /// 0: any free port (the URL `start` returns names it).
        public var port: UInt16 = 8080
        /// The input folder to rebuild from when it changes.
        public var watch: URL?
        public var threads = ProcessInfo.processInfo.activeProcessorCount
        /// Seconds between looks at the input and the tree.
        public var poll = 0.2
        /// Seconds the input must stay unchanged before a rebuild starts (an editor saves in several steps).
        public var debounce = 0.3
        /// What one connection may cost: request head caps and timeouts.
        public var limits = ConnectionLimits()

        public init(dist: URL) { self.dist = dist }
    }

    public enum Event: Sendable, Equatable {
        case info(String)
        case error(String)
    }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
        /// A usage error (bad option or folder): exit 2; otherwise 1.
        public let isUsage: Bool
    }

    let options: Options
    let report: @Sendable (Event) -> Void
    /// What start and stop share with the watcher and with callers on other threads.
    private struct Running {
        var trees: PinnedTrees?
        var listener: Listener?
        var stopping = false
        var watcherStarted = false
        var building = false
    }
    private let state = Locked(Running())
    private let watcherDone = DispatchSemaphore(value: 0)
    /// Signalled at stop, so a watcher between polls ends at once rather than after its pause.
    private let wake = DispatchSemaphore(value: 0)
    /// Results the builds of this session share (unchanged NBA games are not simulated again).
    private let memory = BuildMemory()

    public init(_ options: Options, report: @escaping @Sendable (Event) -> Void) {
        self.options = options
        self.report = report
    }

    /// The release served now.
    public var servedVersion: Int? { state.withLock { $0.trees }?.current?.version }

    /// Builds first with `watch` (a failure is fatal only when there is no tree to serve yet), pins the tree,
    /// listens, and starts polling. Returns the base URL (`http://127.0.0.1:PORT/`).
    public func start() async throws -> URL {
        let address = try Self.address(options.host, options.port)
        let dist = options.dist.standardizedFileURL
        if let input = options.watch {
            do { _ = try OutputGuard.check(output: dist.path, input: input.path) } catch {
                throw StartError(description: "\(error)", isUsage: true)
            }
        }
        let firstStamp = options.watch.map(InputWatch.stamp)
        if let input = options.watch, !build(input, first: true), !OutputGuard.isBuiltTree(dist.path) {
            throw StartError(description: "the first build failed and \(dist.path) holds no tree to serve", isUsage: false)
        }
        guard let real = realpath(dist.path, nil) else {
            throw StartError(description: "\(dist.path): no such folder; build a tree first (generator build --out \(dist.path)) or give --watch INPUT", isUsage: true)
        }
        let resolved = URL(fileURLWithPath: String(cString: real), isDirectory: true)
        free(real)
        var st = stat()
        guard stat(resolved.path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw StartError(description: "\(dist.path) is not a folder", isUsage: true)
        }
        let trees: PinnedTrees
        do { trees = try PinnedTrees(dist: resolved) } catch { throw StartError(description: "\(error)", isUsage: false) }
        do {
            let snapshot = try trees.pinCurrent(waiting: waitingNote)
            tellSkipped(snapshot)
        } catch {
            trees.removeAll()
            throw StartError(description: "\(error)", isUsage: true)
        }
        state.withLock { $0.trees = trees }

        let handler = TreeHTTPHandler(trees: trees)
        let listener: Listener
        do {
            listener = try Listener(address: address)
            do { try await listener.start(limits: options.limits, report: report) { handler.reply(to: $0) } } catch {
                await listener.stop()
                throw error
            }
        } catch {
            trees.removeAll()
            throw StartError(description: "cannot listen on \(options.host):\(options.port) (\(error.localizedDescription))", isUsage: false)
        }
        state.withLock { $0.listener = listener }
        let port = listener.port
        let host = options.host.contains(":") ? "[\(options.host)]" : options.host
        let url = URL(string: "http://\(host):\(port)/")!

        let watcher = Thread { [self] in
            watch(firstStamp: firstStamp, trees: trees)
            watcherDone.signal()
        }
        watcher.name = "serve-watch"
        state.withLock { $0.watcherStarted = true }
        watcher.start()
        return url
    }

    /// Closes the listening socket and every connection, stops polling (a build under way is waited for up to
    /// `buildWait` seconds, then left to stop with the process: a build stopped halfway is undone by the next build
    /// of the tree, as a killed one is), and removes the snapshot folder. Later calls do nothing.
    public func stop(buildWait: Double = 30) async {
        let (first, started, listener, trees) = state.withLock { running -> (Bool, Bool, Listener?, PinnedTrees?) in
            defer { running.stopping = true }
            return (!running.stopping, running.watcherStarted, running.listener, running.trees)
        }
        guard first else { return }
        await listener?.stop()
        if started {
            wake.signal()
            if watcherDone.wait(timeout: .now() + buildWait) == .timedOut {
                report(.info(state.withLock { $0.building }
                    ? "a build was still running; it stops with the server (the next build of \(options.dist.path) cleans up after it)"
                    : "the watcher was still busy (pinning \(options.dist.path)); it stops with the server"))
            }
        }
        trees?.removeAll()
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    // MARK: Watching

    private func watch(firstStamp: InputWatch.Stamp?, trees: PinnedTrees) {
        var built = firstStamp, seen = firstStamp
        var failedStamp: String?
        var seenAt = Date()
        while !isStopping {
            _ = wake.wait(timeout: .now() + options.poll)
            if isStopping { break }
            trees.reap()
            if let input = options.watch {
                let now = InputWatch.stamp(input)
                if now != seen { seen = now; seenAt = Date() }
                if seen != built {
                    if Date().timeIntervalSince(seenAt) < options.debounce { continue }
                    built = seen
                    if build(input, first: false), !isStopping { pin(trees, why: nil) }
                    continue
                }
            }
            // Swapped by someone else (or by our build whose pinning failed): pinned again. A tree that cannot be
            // pinned is said once per change.
            let now = InputWatch.treeStamp(trees.dist)
            if now != trees.stamp, now != failedStamp {
                if !pin(trees, why: "\(options.dist.path) was rebuilt") { failedStamp = now }
            }
        }
    }

    /// One build of `input` into the served tree's folder; true when it made a new release.
    private func build(_ input: URL, first: Bool) -> Bool {
        report(.info(first ? "building \(input.path) into \(options.dist.path) …" : "\(input.path) changed: rebuilding …"))
        let started = Date()
        do {
            var buildOptions = BuildOptions(input: input, output: options.dist, threads: options.threads, lockWait: 3600)
            buildOptions.memory = memory
            state.withLock { $0.building = true }
            defer { state.withLock { $0.building = false } }
            let summary = try Build.run(buildOptions, waiting: waitingNote)
            let seconds = String(format: "%.2f", Date().timeIntervalSince(started))
            if summary.changed {
                report(.info("built version \(summary.version) (\(summary.currentVersion)), \(summary.fileCount) files, in \(seconds) s"))
                return true
            }
            report(.info("no content changes: version \(summary.version) (\(summary.currentVersion)) stays"))
            return false
        } catch {
            let text = error is BuildErrors ? "\(error)" : "error: \(error)"
            let serving = state.withLock { $0.trees }?.current.map { "still serving version \($0.version) (\($0.currentVersion)), the last good tree" }
            report(.error(TreeReader.terminalSafe(text) + "\nbuild failed; " + (serving ?? "\(options.dist.path) was left unchanged")))
            return false
        }
    }

    @discardableResult
    private func pin(_ trees: PinnedTrees, why: String?) -> Bool {
        do {
            let snapshot = try trees.pinCurrent(waiting: waitingNote)
            tellSkipped(snapshot)
            report(.info((why.map { "\($0): " } ?? "") + "serving version \(snapshot.version) (\(snapshot.currentVersion))"))
            return true
        } catch {
            if isStopping { return false }
            let serving = trees.current.map { "still serving version \($0.version) (\($0.currentVersion))" } ?? ""
            report(.error("error: \(TreeReader.terminalSafe("\(error)"))\n\(serving)"))
            return false
        }
    }

    private func waitingNote(_ pid: Int32?) {
        report(.info("\(pid.map { "another build (pid \($0))" } ?? "another build") is writing \(options.dist.path); waiting for it"))
    }

    private func tellSkipped(_ snapshot: PinnedRelease) {
        guard !snapshot.skipped.isEmpty else { return }
        let shown = snapshot.skipped.prefix(5).joined(separator: ", ") + (snapshot.skipped.count > 5 ? ", …" : "")
        report(.error("warning: \(snapshot.skipped.count) entries of \(options.dist.path) are not regular files or folders and are never served (\(TreeReader.terminalSafe(shown)))"))
    }

    // MARK: Address

    /// A numeric IPv4 or IPv6 address, or `localhost` (127.0.0.1).
    static func address(_ host: String, _ port: UInt16) throws -> any SocketAddress {
        let h = host == "localhost" ? "127.0.0.1" : host
        if h.contains(":") {
            if let a = try? sockaddr_in6.inet6(ip6: h, port: port) { return a }
        } else if let a = try? sockaddr_in.inet(ip4: h, port: port) {
            return a
        }
        throw StartError(description: "--host \(TreeReader.shown(host)): give a numeric IPv4 or IPv6 address (e.g. 127.0.0.1, ::1) or localhost", isUsage: true)
    }
}
