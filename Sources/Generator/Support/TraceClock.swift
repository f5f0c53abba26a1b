import Foundation

/// `GENERATOR_TRACE` set: each step of a stage prints its wall time on stderr (`[trace] step: 0.123 s`), for
/// benchmarks and profiling; unset, `lap` only restarts the clock.
struct TraceClock {
    static let mode = ProcessInfo.processInfo.environment["GENERATOR_TRACE"]
    static var isOn: Bool { mode != nil }
    private var start = Date()

    init() {}

    /// Prints the time since the last lap (or since the clock was made) under `step`, and restarts the clock.
    mutating func lap(_ step: String) {
        if Self.isOn {
            FileHandle.standardError.write(Data("  [trace] \(step): \(String(format: "%.3f", Date().timeIntervalSince(start))) s, memory now \(Self.residentMB()) MB\n".utf8))
        }
        start = Date()
    }

    /// Memory in use now (resident set, from /proc/self/statm), in MB; 0 where there is no /proc.
    static func residentMB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .ascii) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// Memory in transparent huge pages now (`AnonHugePages` of /proc/self/smaps_rollup), in MB; 0 where there is none.
    static func hugePagesMB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .ascii),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("AnonHugePages:") }),
              let kb = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kb / 1024
    }
}
