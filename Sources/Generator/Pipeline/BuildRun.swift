import Foundation

#if canImport(Glibc)
/// glibc's `malloc_trim` (not in Swift's Glibc module): returns freed heap memory to the system.
@_silgen_name("malloc_trim") private func c_malloc_trim(_ pad: Int) -> Int32
#else
private func c_malloc_trim(_ pad: Int) -> Int32 { 0 }
#endif

/// One build's running state, shared by its stages (`Build.run` calls them in order, each taking the value the one
/// before returned): its options, the summary it fills, the stages' clock and progress, and what must be let go
/// whatever happens (the lock, the staged tree, work still running on other threads). Each stage says when it starts
/// (`begin`) and ends with `stage(name)`, which records its time (and, with `GENERATOR_TRACE`, its CPU time and
/// memory).
final class BuildRun {
    private(set) var options: BuildOptions
    var summary = BuildSummary()
    let progress: (String) -> Void
    let ticker: ProgressTicker?
    private var clock = Date()
    private var cpuBefore = 0.0
    private let trace = ProcessInfo.processInfo.environment["GENERATOR_TRACE"] != nil
    /// What a failed build must let go, in the order it was made (let go in the reverse order).
    private var closers: [() -> Void] = []
    /// The stages' values, kept until the run goes (see `BuildOptions.leavesMemoryToExit`).
    private var kept: [Any] = []

    /// Refuses an unsafe output, previous release or cache folder (`OutputGuard.Refusal`) before anything is touched.
    init(_ options: BuildOptions, progress: @escaping (String) -> Void) throws {
        // First of all: a build replaces its output folder, so it must be one that may be replaced.
        let checked = try OutputGuard.check(output: options.output.path, input: options.input.path, previous: options.previous?.path)
        var options = options
        options.output = checked.output
        options.previous = checked.previous
        if let folder = options.cacheFolder {
            options.cacheFolder = try OutputGuard.check(cache: folder.path, output: checked.output, input: options.input.path)
        }
        self.options = options
        self.progress = progress
        ticker = options.progressInterval.map { ProgressTicker(interval: $0, report: progress) }
    }

    /// Registers what a failed build must let go (a lock, a staged tree, work on another thread).
    func onClose(_ close: @escaping () -> Void) { closers.append(close) }

    /// Keeps a stage's value as long as the run (a process that ends right after the build leaves it to the exit).
    func keep(_ value: Any) { if options.leavesMemoryToExit { kept.append(value) } }

    /// Whatever a failed build leaves running or staged, let go (nothing once the tree is committed), in the reverse
    /// order of its making: the staged tree before the lock.
    func close() {
        for close in closers.reversed() { close() }
        closers = []
        ticker?.stop()
    }

    /// A stage starts: said at once, then repeated with its count while it lasts (with a ticker).
    func begin(_ name: String, total: Int? = nil) {
        if let ticker { ticker.begin(name, total: total) } else { progress(name) }
    }

    /// A stage ends: its time recorded.
    func stage(_ name: String) {
        // Memory freed by the stage goes back to the system (glibc keeps it otherwise: after the catalog's records or
        // the staged pages, hundreds of MB the next stage would not reuse in the same shapes).
        _ = c_malloc_trim(0)
        let now = Date()
        let wall = now.timeIntervalSince(clock)
        summary.stageSeconds.append((name, wall))
        clock = now
        if trace {
            // CPU time against wall time shows how well a stage uses the cores.
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            FileHandle.standardError.write(Data(String(format: "  [trace] after %@: %.2f s wall, %.2f s CPU, peak memory %d MB, now %d MB (%d MB in huge pages)\n",
                                                       name, wall, cpu - cpuBefore, usage.ru_maxrss / 1024, TraceClock.residentMB(),
                                                       TraceClock.hugePagesMB()).utf8))
            cpuBefore = cpu
        }
    }

    /// The summary of a build that made no new release: the previous one stands.
    func unchanged(_ previous: PreviousRelease) -> BuildSummary {
        summary.changed = false
        summary.version = previous.version
        summary.currentVersion = previous.currentVersion
        summary.fileCount = previous.files.count + 1
        return summary
    }
}
