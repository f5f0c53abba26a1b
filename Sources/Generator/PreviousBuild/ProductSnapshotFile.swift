import Foundation
import Crypto
import Indexer
import Schemas

/// The products snapshot of a build's cache: read on a thread of its own from the start of the build, taken once by
/// the catalog; the next one written, on a thread of its own, to a temporary file beside it, which takes its place
/// when the build's cache is saved (and is removed otherwise).
final class ProductSnapshotFile: @unchecked Sendable {
    let url: URL
    private var reading: Background<ProductSnapshot?>?
    private var writing: Background<Bool>?
    private let temporary: URL
    private let lock = NSLock()
    private var reusedLines = 0

    init(url: URL) {
        self.url = url
        temporary = BuildCache.temporary(for: url)
        reading = Background { ProductSnapshot.read(url) }
    }

    /// The snapshot read, handed over (nil: none that can be used); once.
    func take() -> ProductSnapshot? {
        lock.lock(); let r = reading; reading = nil; lock.unlock()
        return (try? r?.take()) ?? nil
    }

    /// Lines whose records were taken from the snapshot (`BuildSummary.productLinesReused`).
    var reused: Int { lock.lock(); defer { lock.unlock() }; return reusedLines }
    func noteReused(_ n: Int) { lock.lock(); reusedLines = n; lock.unlock() }

    /// Writes the next snapshot to the temporary file on a thread of its own (`write` returns whether all of it was).
    func write(_ write: @escaping @Sendable (Int32) -> Bool) {
        let temporary = self.temporary
        let task = Background { BuildCache.write(toNew: temporary, write) }
        lock.lock(); writing = task; lock.unlock()
    }

    /// Puts the snapshot written in place (a build whose tree is in place); a warning when it could not be.
    func commit() -> String? {
        lock.lock(); let task = writing; writing = nil; lock.unlock()
        guard let task, (try? task.take()) == true else { return nil }
        return BuildCache.replace(url, with: temporary, magic: ProductSnapshot.magic,
                                  refusal: "\(url.path) exists and is not a products snapshot: it was left alone and no snapshot was written",
                                  failure: "the products snapshot cannot be written to \(url.path)")
    }

    /// Lets go of what is still running; a snapshot written but not committed is removed.
    func close() {
        lock.lock(); let r = reading, w = writing; reading = nil; writing = nil; lock.unlock()
        r?.join()
        if let w { w.join(); unlink(temporary.path) }
    }
}
