import Foundation
import LowLevel
import Crypto
import Indexer
import Schemas

/// The products snapshot of a build's cache: read on a thread of its own from the start of the build, taken once by
/// the catalog; the next one written, on a thread of its own, to a temporary file beside it, which takes its place
/// when the build's cache is saved (and is removed otherwise).
final class ProductSnapshotFile: Sendable {
    let url: URL
    private let temporary: URL
    private struct State {
        var reading: Background<ProductSnapshot?>?
        var writing: Background<Bool>?
        var reusedLines = 0
    }
    private let state: Locked<State>

    init(url: URL) {
        self.url = url
        temporary = BuildCache.temporary(for: url)
        state = Locked(State(reading: Background { ProductSnapshot.read(url) }))
    }

    /// The snapshot read, handed over (nil: none that can be used); once.
    func take() -> ProductSnapshot? {
        let r = state.withLock { s in defer { s.reading = nil }; return s.reading }
        return (try? r?.take()) ?? nil
    }

    /// Lines whose records were taken from the snapshot (`BuildSummary.productLinesReused`).
    var reused: Int { state.withLock { $0.reusedLines } }
    func noteReused(_ n: Int) { state.withLock { $0.reusedLines = n } }

    /// Writes the next snapshot to the temporary file on a thread of its own (`write` returns whether all of it was).
    func write(_ write: @escaping @Sendable (Int32) -> Bool) {
        let temporary = self.temporary
        let task = Background { BuildCache.write(toNew: temporary, write) }
        state.withLock { $0.writing = task }
    }

    /// Puts the snapshot written in place (a build whose tree is in place); a warning when it could not be.
    func commit() -> String? {
        let task = state.withLock { s in defer { s.writing = nil }; return s.writing }
        guard let task, (try? task.take()) == true else { return nil }
        return BuildCache.replace(url, with: temporary, magic: ProductSnapshot.magic,
                                  refusal: "\(url.path) exists and is not a products snapshot: it was left alone and no snapshot was written",
                                  failure: "the products snapshot cannot be written to \(url.path)")
    }

    /// Lets go of what is still running; a snapshot written but not committed is removed.
    func close() {
        let (r, w) = state.withLock { s in defer { s.reading = nil; s.writing = nil }; return (s.reading, s.writing) }
        r?.join()
        if let w { w.join(); unlink(temporary.path) }
    }
}
