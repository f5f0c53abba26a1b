import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps a local copy of a published tree in sync with the site, the way an app updates its offline data.
///
/// One `sync()`:
/// 1. fetches `update-manifest.json` (with `If-None-Match` when an earlier sync saw an ETag: a 304 costs no body);
/// 2. refuses a version lower than the local copy's (a site rolled back never rolls the app back);
/// 3. fetches the file index the manifest names and checks its size and sha256;
/// 4. uses the delta from the local version when the site offers one and it is smaller than the changed files it can
///    patch, applying each JSON Patch to the local file; downloads every other new or changed file whole;
/// 5. checks the size and sha256 of every file, local ones carried over included, before it is used; a file whose path
///    holds other bytes is asked for at `releases/objects/SHA256.EXT` (`TreePath.contentAddressed`), where a publish
///    to object storage keeps the new bytes until it has rewritten the fixed paths;
/// 6. assembles the new copy in a staging folder beside the local one and swaps the two folders in one step.
///
/// Any failure (unreachable site, timeout, 5xx, a truncated or corrupted body, a path that would leave the folder)
/// throws a `SyncError` and leaves the local copy exactly as it was, still usable. Paths named by the manifest,
/// index and delta must be plain relative paths; nothing is ever written outside the folder.
///
/// ## Adding the library
///
/// ```swift
/// // Package.swift of the app (or File › Add Package Dependencies… in Xcode)
/// dependencies: [.package(url: "https://github.com/you/static-json-compiler", branch: "main")],
/// targets: [.target(name: "App", dependencies: [.product(name: "TreeClient", package: "static-json-compiler")])]
/// ```
///
/// ## Syncing
///
/// ```swift
/// import TreeClient
///
/// let site = URL(string: "https://you.github.io/repo/")!
/// let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
///     .appendingPathComponent("catalog")
/// let sync = TreeSync(site: site, directory: folder)
/// do {
///     let report = try await sync.run()
///     print(report.summary)   // "version 3 → 4 (2026.05.02.1): 12 patched, 2 downloaded, 1 deleted, 630 unchanged; …"
///     // Read files from `folder` as usual, e.g. folder/categories/index.json.
/// } catch {
///     // The previous copy in `folder` is intact and usable; try again later.
/// }
/// ```
public final class TreeSync: Sendable {
    public let site: URL
    public let directory: URL
    public let fetcher: HTTPFetcher
    /// The root the app pinned: only releases signed under it (or a root chained from it) are taken. Nil: the
    /// tree's hashes are checked, not who published it.
    public let trust: ReleaseTrust?

    /// `site`: the tree's base URL (the folder holding `update-manifest.json`); `directory`: the local copy (created
    /// when missing; it must be empty or a copy made earlier, since a sync replaces it whole); `trust`: the app's
    /// pinned root (see `ReleaseTrust`).
    public init(site: URL, directory: URL, fetcher: HTTPFetcher = HTTPFetcher(), trust: ReleaseTrust? = nil) {
        self.site = site
        self.directory = directory
        self.fetcher = fetcher
        self.trust = trust
    }

    public convenience init(site: URL, directory: URL, configuration: HTTPFetcher.Configuration, trust: ReleaseTrust? = nil) {
        self.init(site: site, directory: directory, fetcher: HTTPFetcher(configuration), trust: trust)
    }

    /// When a sync last found the local copy current with a release that had not expired (nil: never, or unsigned).
    public var lastSuccessfulCheck: Date? { LocalCopy(directory).readCheck()?.lastSuccessfulCheck }

    /// The same as `run(progress:)`, off the caller's thread.
    public func run() async throws -> SyncReport {
        try await withCheckedThrowingContinuation { c in
            DispatchQueue.global(qos: .utility).async { c.resume(with: Result { try self.run(progress: nil) }) }
        }
    }

    /// Syncs the local copy (blocking; see the type's documentation). `progress` is told, from worker threads, how
    /// many of the files to fetch or patch are done.
    public func run(progress: (@Sendable (SyncProgress) -> Void)?) throws -> SyncReport {
        let copy = LocalCopy(directory)
        if let why = copy.refusal() {
            throw SyncError(.refusedFolder, "refusing to sync into \(TreePath.shown(copy.directory.path)): \(why); choose a new or empty folder")
        }
        guard try copy.lock() else { throw SyncError(.busy, "another sync is updating \(copy.directory.path)") }
        defer { copy.unlock() }
        copy.removeAbandoned()
        let bytesBefore = fetcher.bytesReceived
        // Every request of this sync, retries and waits included, within one deadline.
        let bounded = TreeSync(site: site, directory: directory, fetcher: fetcher.bounded(for: "the sync"), trust: trust)
        var report = try SyncRun(sync: bounded, copy: copy, progress: progress).perform()
        report.bytesDownloaded = fetcher.bytesReceived - bytesBefore
        return report
    }

    func url(_ path: String) -> URL { TreePath.url(path, under: site) }

    /// The content-addressed copy of a file's listed bytes, asked when its path holds other bytes (an object store
    /// between a publish's manifest switch and its rewrite of the fixed paths; see `TreePath.contentAddressed`).
    func copyURL(_ f: IndexEntry) -> URL? { TreePath.contentAddressed(sha256: f.sha256, path: f.path).map(url) }
}
