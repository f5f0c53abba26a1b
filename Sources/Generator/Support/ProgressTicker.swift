import Foundation

/// Progress of a long build on a terminal (or with `--progress`): the stage, and files done of total when the stage
/// counts files, at least every `interval` seconds from a thread of its own, so a quiet stage still says it is alive.
/// Counting is one locked add per file; without a listener (`Build.run` gets none) nothing runs.
final class ProgressTicker: @unchecked Sendable {
    private let lock = NSLock()
    private let report: (String) -> Void
    private var stage: String?
    private var done = 0
    private var total: Int?
    private var started = Date()
    private var stopped = false
    private let wake = DispatchSemaphore(value: 0)

    init(interval: Double, report: @escaping (String) -> Void) {
        self.report = report
        let thread = Thread { [self] in self.loop(interval) }
        thread.start()
    }

    private func loop(_ interval: Double) {
        while true {
            _ = wake.wait(timeout: .now() + interval)
            lock.lock()
            if stopped { lock.unlock(); return }
            let text: String? = stage.map { self.line(for: $0) }
            lock.unlock()
            if let text { report(text) }
        }
    }

    private func line(for stage: String) -> String {
        let seconds = String(format: "%.0f s", Date().timeIntervalSince(started))
        if let total { return "\(stage): \(done) of \(total) files (\(seconds))" }
        return "\(stage) (\(seconds))"
    }

    /// A new stage (said at once); `total` when it counts files.
    func begin(_ name: String, total: Int? = nil) {
        lock.lock()
        stage = name; done = 0; self.total = total; started = Date()
        let l = line(for: name)
        lock.unlock()
        report(l)
    }

    /// More files than the stage expected (files made later in the same stage).
    func grow(_ n: Int) {
        lock.lock(); total = (total ?? 0) + n; lock.unlock()
    }

    func advance(_ n: Int = 1) {
        lock.lock(); done += n; lock.unlock()
    }

    /// The stage is over: nothing more is said until the next one.
    func end() {
        lock.lock(); stage = nil; lock.unlock()
    }

    /// Stops the thread (the ticker is not used again).
    func stop() {
        lock.lock(); stopped = true; stage = nil; lock.unlock()
        wake.signal()
    }
}
