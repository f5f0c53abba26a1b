import Dispatch

/// A moment after which a connection's read or write gives up, so a client that stops sending or reading holds its
/// descriptor only so long. (Uptime nanoseconds: `ContinuousClock` would need iOS 16, and this target builds for 15.)
struct Deadline: Sendable {
    let uptime: UInt64

    init(seconds: Double) {
        uptime = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
    }

    var remainingNanoseconds: UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        return uptime > now ? uptime - now : 0
    }

    struct Passed: Error {}

    /// `work`'s result, or `Passed` thrown once the deadline comes first (`work` is cancelled then: FlyingSocks
    /// resumes a socket waiting for readiness with a CancellationError).
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let nanoseconds = remainingNanoseconds
        guard nanoseconds > 0 else { throw Passed() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(nanoseconds: nanoseconds)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw Passed() }
            return value
        }
    }
}
