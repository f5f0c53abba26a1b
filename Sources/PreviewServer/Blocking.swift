import Foundation

extension PreviewServer {
    /// Runs async work from synchronous code (a command's `run`, a test) and waits for it. The calling thread must not
    /// be one of the concurrency pool's: blocking it there could starve the work it waits for.
    public static func blocking<T>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, Error> {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, Error>!
        Task {
            do { result = .success(try await work()) } catch { result = .failure(error) }
            done.signal()
        }
        done.wait()
        return result
    }
}
