import Foundation
import LowLevel
import TreeClient

/// The previous release as the live site serves it (`build --previous https://…/`): the site is the one record of what
/// installed apps have, so versions and deltas continue from it even when no local tree survived.
///
/// Files come through the same `HTTPFetcher` apps use (timeouts, retries with backoff, bounded parallelism). Only the
/// manifest, the file index and the old versions of changed files are downloaded; prefetched files wait in a private
/// temporary folder (content-addressed, removed with this object) rather than in memory.
final class SiteRelease: ReleaseSource, Sendable {
    let site: URL
    let fetcher: HTTPFetcher
    /// The caller's progress report, called under this lock: the download's worker threads report one at a time.
    private let progress: Locked<(String) -> Void>
    private let cache: URL
    private let cached = Locked<[String: String]>([:])   // path → sha256 (file name in the cache)
    /// The deadline of reading the manifest and the index (the first step), until the first prefetch; later steps
    /// (each prefetch, each file read alone) get a deadline of their own, so a long build between them costs none.
    private let firstStep: Locked<HTTPFetcher?>

    init(site: URL, fetcher: HTTPFetcher, progress: @escaping (String) -> Void = { _ in }) throws {
        self.site = site
        self.fetcher = fetcher
        self.progress = Locked(progress)
        firstStep = Locked(fetcher.bounded(for: Self.step))
        var template = Array((FileManager.default.temporaryDirectory.path + "/generator-previous-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BuildError(file: FileManager.default.temporaryDirectory.path, "cannot create a temporary folder for the previous release (\(String(cString: strerror(errno))))")
        }
        cache = URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }

    deinit { try? FileManager.default.removeItem(at: cache) }

    var location: String { site.absoluteString }

    func read(_ path: String, expected: FileEntry?) throws -> [UInt8] {
        if let why = TreePath.rejection(path) { throw TreeProblem(.unsafePath, path, why) }
        if let hit = cached.withLock({ $0[path] }), let d = FileManager.default.contents(atPath: cache.appendingPathComponent(hit).path) { return [UInt8](d) }
        let fetcher = firstStep.withLock { $0 } ?? self.fetcher.bounded(for: Self.step)
        do {
            return try fetcher.fetch(TreePath.url(path, under: site), expected: expected.map { .init(size: $0.size, sha256: $0.sha256) },
                                     alternate: expected.flatMap(copyURL)).body
        } catch let f as HTTPFetcher.Failure {
            // Missing means the URL itself answered 404 (no release yet, or a page gone); anything else, a redirect
            // included, means not readable now.
            let moved = f.movedSite(treePath: path).map { ": point the site URL at \($0)" } ?? ""
            throw TreeProblem(f.isNotFound ? .missing : .unreadable, path, "\(f)\(moved)")
        }
    }

    func prefetch(_ files: [FileEntry]) throws {
        let wanted = cached.withLock { c in files.filter { c[$0.path] == nil } }
        guard !wanted.isEmpty else { return }
        let bytes = wanted.reduce(0) { $0 + $1.size }
        report("previous release: downloading \(wanted.count) file(s), \(bytes) bytes, from \(site.absoluteString)")
        let lastShown = Locked(0)
        firstStep.withLock { $0 = nil }
        let fetcher = self.fetcher.bounded(for: Self.step)
        do {
            try fetcher.fetchAll(wanted, url: { TreePath.url($0.path, under: self.site) }, expected: { .init(size: $0.size, sha256: $0.sha256) },
                                 alternate: { self.copyURL($0) }, progress: { done, total in
                // About ten lines however many files: enough to see it move on a terminal, no flood.
                let show = lastShown.withLock { last in
                    let show = done == total || done - last >= max(1, total / 10)
                    if show { last = done }
                    return show
                }
                if show { self.report("previous release: \(done)/\(total) files") }
            }) { entry, body in
                try Data(body).write(to: self.cache.appendingPathComponent(entry.sha256))
                self.cached.withLock { $0[entry.path] = entry.sha256 }
            }
        } catch let f as HTTPFetcher.Failure where f.isNotFound {
            // A listed file the site no longer serves: its patch is left out (read reports it missing), as for a folder.
            _ = f
        } catch let f as HTTPFetcher.Failure {
            throw failure("\(f)")
        }
    }

    /// Where a published store may also hold a file's listed bytes while a publish is finishing (its content-addressed
    /// copy, as `generator sync` uses it); GitHub Pages answers 404 there and nothing changes.
    func copyURL(_ e: FileEntry) -> URL? {
        TreePath.contentAddressed(sha256: e.sha256, path: e.path).map { TreePath.url($0, under: site) }
    }

    /// What a deadline bounds, for its error.
    static let step = "reading the previous release"

    private func report(_ line: String) { progress.withLock { $0(line) } }

    func failure(_ why: String) -> BuildError {
        BuildError(file: site.absoluteString, "the previous release cannot be read from the live site: \(why). Nothing was built: "
                   + "the site holds the release history, so a build never starts over at version 1 by itself "
                   + "(retry when the site is reachable, or give --first-release to start a new history deliberately)")
    }
}
