import Foundation
import LowLevel
import Indexer
import TreeClient

extension TreePublisher {
    static let manifestCache = "no-cache"
    static let immutableCache = "public, max-age=31536000, immutable"
    static let releaseCache = "public, max-age=86400"
    static let contentCache = "public, max-age=60"

    /// Cache-Control of an object: a year and `immutable` for a content-addressed copy, for a file named by a hash
    /// of its own bytes (the search shards) and for a result-store slice (named by its group's hash), a day for a release's file index and deltas (named by version, never
    /// rewritten once published), a minute for every other file (fixed paths whose content a later release changes).
    static func cacheControl(path: String, bytes: [UInt8]) -> String {
        if path.hasPrefix(TreePath.objectsFolder) { return immutableCache }
        if path.hasPrefix("releases/") { return releaseCache }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stem = name.split(separator: ".").first.map(String.init) ?? name
        if let hash = stem.split(separator: "-").last, hash.utf8.count == 16, String(hash) == RankedIndexBuilder.contentName(bytes) {
            return immutableCache
        }
        // A result-store slice (`…/store/{group}-{k}.json`) is named by the hash of its whole group, which changes
        // whenever any of the group's slices does: its name never holds other bytes either.
        let parts = stem.split(separator: "-")
        if path.contains("search/store/"), parts.count == 2, parts[0].utf8.count == 16, parts[0].allSatisfy(\.isHexDigit),
           let k = Int(parts[1]), k >= 0, String(k) == parts[1] {
            return immutableCache
        }
        return contentCache
    }

    /// Uploads each file of the tree to its object (its path, or its content-addressed copy) in parallel; `counter`
    /// counts those the store accepted.
    func upload(_ items: [(object: String, file: File)], _ what: String, _ reader: TreeReader, _ report: inout Report,
                counter: Work = Work(count: 0)) throws {
        guard !items.isEmpty else { return }
        let bytes = items.reduce(0) { $0 + $1.file.size }
        progress("uploading \(what): \(items.count) file(s), \(bytes) bytes")
        let shown = Shown()
        try Self.forEach(items, parallel: options.parallel, done: { done in
            if shown.next(done, total: items.count) { self.progress("  \(what): \(done)/\(items.count)") }
        }) { item in
            let f = item.file
            let body: [UInt8]
            do { body = try reader.read(f.path) } catch { throw Failure(kind: .failed, description: "\(self.dist.path): \(error)") }
            // The tree was validated before; a file that changed since is not published.
            guard body.count == f.size, HTTPFetcher.sha256Hex(body) == f.sha256 else {
                throw Failure(kind: .failed, description: "\(self.dist.path)/\(TreePath.shown(f.path)) changed while publishing (its sha256 is no longer the file index's)")
            }
            try self.store.put(self.location.key(item.object), body: body, sha256: f.sha256, contentType: ContentTypes.entry(for: item.object).type,
                               cacheControl: Self.cacheControl(path: item.object, bytes: body))
            _ = counter.finish()
        }
        report.uploaded += items.count
        report.uploadedBytes += bytes
    }

    /// Runs `body` for every item on up to `parallel` threads (each mostly waits on the network); the first error
    /// stops the rest (items not yet started are not run) and is thrown. `done` is told how many items have
    /// finished after each one.
    static func forEach<T>(_ items: [T], parallel: Int, done: ((Int) -> Void)? = nil, _ body: @escaping (T) throws -> Void) throws {
        guard !items.isEmpty else { return }
        let work = Work(count: items.count)
        let group = DispatchGroup()
        for _ in 0..<min(max(1, parallel), items.count) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while let i = work.take() {
                    do {
                        try body(items[i])
                        done?(work.finish())
                    } catch {
                        work.fail(error)
                        return
                    }
                }
            }
        }
        group.wait()
        if let failure = work.failure { throw failure }
    }

    /// The shared state of one `forEach`: the next item, how many finished, the first failure.
    final class Work: Sendable {
        private let count: Int
        private let state = Locked((next: 0, done: 0, error: Error?.none))
        init(count: Int) { self.count = count }

        /// The next item's index; nil when all are taken or one failed.
        func take() -> Int? {
            state.withLock { s in
                guard s.error == nil, s.next < count else { return nil }
                s.next += 1
                return s.next - 1
            }
        }
        func finish() -> Int { state.withLock { $0.done += 1; return $0.done } }
        var finished: Int { state.withLock { $0.done } }
        func fail(_ e: Error) { state.withLock { if $0.error == nil { $0.error = e } } }
        var failure: Error? { state.withLock { $0.error } }
    }

    /// About ten progress lines per step, however many files: enough to see it move, no flood.
    final class Shown: Sendable {
        private let last = Locked(0)
        func next(_ done: Int, total: Int) -> Bool {
            last.withLock { last in
                guard done == total || (total >= 20 && done - last >= total / 10) else { return false }
                last = done
                return true
            }
        }
    }
}
