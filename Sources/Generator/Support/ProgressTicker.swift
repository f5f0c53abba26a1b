import Foundation
import LowLevel

/// Progress of a long build on a terminal (or with `--progress`): the stage, and files done of total when the stage
/// counts files, at least every `interval` seconds from a thread of its own, so a quiet stage still says it is alive.
/// Counting is one locked add per file; without a listener (`Build.run` gets none) nothing runs.
final class ProgressTicker: Sendable {
    private struct State {
        let report: (String) -> Void
        var stage: String?
        var done = 0
        var total: Int?
        var started = Date()
        var stopped = false

        func line(for stage: String) -> String {
            let seconds = String(format: "%.0f s", Date().timeIntervalSince(started))
            if let total { return "\(stage): \(done) of \(total) files (\(seconds))" }
            return "\(stage) (\(seconds))"
        }
    }

    private let state: Locked<State>
    private let wake = DispatchSemaphore(value: 0)

    init(interval: Double, report: @escaping (String) -> Void) {
        let state = Locked(State(report: report))
        self.state = state
        let wake = self.wake
        let thread = Thread {
            while true {
                _ = wake.wait(timeout: .now() + interval)
                guard let (text, report) = state.withLock({ s in s.stopped ? nil : (s.stage.map { s.line(for: $0) }, s.report) }) else { return }
                if let text { report(text) }
            }
        }
        thread.start()
    }

    /// A new stage (said at once); `total` when it counts files.
    func begin(_ name: String, total: Int? = nil) {
        let (line, report) = state.withLock { s in
            s.stage = name; s.done = 0; s.total = total; s.started = Date()
            return (s.line(for: name), s.report)
        }
        report(line)
    }

    /// More files than the stage expected (files made later in the same stage).
    func grow(_ n: Int) { state.withLock { $0.total = ($0.total ?? 0) + n } }

    func advance(_ n: Int = 1) { state.withLock { $0.done += n } }

    /// The stage is over: nothing more is said until the next one.
    func end() { state.withLock { $0.stage = nil } }

    /// Stops the thread (the ticker is not used again).
    func stop() {
        state.withLock { $0.stopped = true; $0.stage = nil }
        wake.signal()
    }
}
