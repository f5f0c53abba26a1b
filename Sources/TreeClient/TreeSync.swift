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
public final class TreeSync: @unchecked Sendable {
    public let site: URL
    public let directory: URL
    public let fetcher: HTTPFetcher

    /// `site`: the tree's base URL (the folder holding `update-manifest.json`); `directory`: the local copy (created
    /// when missing; it must be empty or a copy made earlier, since a sync replaces it whole).
    public init(site: URL, directory: URL, fetcher: HTTPFetcher = HTTPFetcher()) {
        self.site = site
        self.directory = directory
        self.fetcher = fetcher
    }

    public convenience init(site: URL, directory: URL, configuration: HTTPFetcher.Configuration) {
        self.init(site: site, directory: directory, fetcher: HTTPFetcher(configuration))
    }

    /// The same as `run(progress:)`, off the caller's thread.
    public func run() async throws -> SyncReport {
        try await withCheckedThrowingContinuation { c in
            DispatchQueue.global(qos: .utility).async { c.resume(with: Result { try self.run(progress: nil) }) }
        }
    }

    /// Syncs the local copy (blocking; see the type's documentation). `progress` is told, from worker threads, how
    /// many of the files to fetch or patch are done.
    public func run(progress: ((SyncProgress) -> Void)?) throws -> SyncReport {
        let copy = LocalCopy(directory)
        if let why = copy.refusal() {
            throw SyncError(.refusedFolder, "refusing to sync into \(TreePath.shown(copy.directory.path)): \(why); choose a new or empty folder")
        }
        guard try copy.lock() else { throw SyncError(.busy, "another sync is updating \(copy.directory.path)") }
        defer { copy.unlock() }
        copy.removeAbandoned()
        let bytesBefore = fetcher.bytesReceived
        var report = try Run(sync: self, copy: copy, progress: progress).perform()
        report.bytesDownloaded = fetcher.bytesReceived - bytesBefore
        return report
    }

    func url(_ path: String) -> URL { TreePath.url(path, under: site) }

    /// The content-addressed copy of a file's listed bytes, asked when its path holds other bytes (an object store
    /// between a publish's manifest switch and its rewrite of the fixed paths; see `TreePath.contentAddressed`).
    func copyURL(_ f: IndexEntry) -> URL? { TreePath.contentAddressed(sha256: f.sha256, path: f.path).map(url) }
}

/// How far a sync is: files fetched, patched or carried over, of those the new release needs.
public struct SyncProgress: Sendable {
    public var done: Int
    public var total: Int
}

/// What a sync did.
public struct SyncReport: Sendable {
    /// The local copy's version before (nil: there was none).
    public var fromVersion: Int?
    public var toVersion: Int
    public var currentVersion: String
    /// Nothing to do: the local copy was already this release.
    public var alreadyCurrent: Bool
    /// The delta used (its fromVersion), if any.
    public var deltaFrom: Int?
    public var patched = 0, downloaded = 0, deleted = 0, unchanged = 0
    /// Body bytes received over HTTP (manifest, index, delta and files, after any transfer decoding).
    public var bytesDownloaded = 0
    /// What a fresh copy would download: manifest, index and every file whole.
    public var freshCopyBytes = 0
    /// The release asks apps older than this to update (from the manifest).
    public var minimumAppVersion: String?
    public var forceUpdate = false
    /// Things worth knowing that did not stop the sync (a patch that did not give the published bytes, a damaged
    /// local file downloaded again).
    public var notes: [String] = []

    public var summary: String {
        let from = fromVersion.map(String.init) ?? "none"
        if alreadyCurrent { return "already current at version \(toVersion) (\(currentVersion)); downloaded \(bytesDownloaded) bytes" }
        return "version \(from) → \(toVersion) (\(currentVersion)): \(patched) patched, \(downloaded) downloaded, \(deleted) deleted, "
            + "\(unchanged) unchanged; downloaded \(bytesDownloaded) bytes (a fresh copy: \(freshCopyBytes) bytes)"
    }
}

/// Why a sync stopped; the local copy is as it was before it started.
public struct SyncError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The local folder is not one a sync may replace.
        case refusedFolder
        /// Another sync holds the folder.
        case busy
        /// The site has no `update-manifest.json` (nothing published yet).
        case notPublished
        /// The site could not be read: no connection, a timeout, an HTTP error, a body cut short.
        case unreachable
        /// The site offers an older version than the local copy's.
        case rollback
        /// The release's files are inconsistent: a hash or size that does not match, a malformed document, a path
        /// that would leave the folder.
        case invalidRelease
        /// The local folder could not be written.
        case localFailure
    }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }
}

/// One sync, from the manifest to the swap.
private struct Run {
    let sync: TreeSync
    let copy: LocalCopy
    let progress: ((SyncProgress) -> Void)?

    var site: String { sync.site.absoluteString }

    func fetch(_ path: String, expected: IndexEntry? = nil, ifNoneMatch: String? = nil) throws -> HTTPFetcher.Response {
        do { return try sync.fetcher.fetch(sync.url(path), ifNoneMatch: ifNoneMatch, expected: expected?.expected, alternate: expected.flatMap(sync.copyURL)) }
        catch let f as HTTPFetcher.Failure { throw Self.failure(f) }
    }

    static func failure(_ f: HTTPFetcher.Failure) -> SyncError {
        switch f.kind {
        case .mismatch: return SyncError(.invalidRelease, "\(f)")
        default: return SyncError(.unreachable, "\(f)")
        }
    }

    /// What the local copy holds: its version, manifest and files by its own index (nil when there is no usable copy).
    struct Local {
        var version: Int?
        var manifestSha256: String?
        var indexSha256: String?
        /// Its index's entries, and the index itself.
        var files: [String: IndexEntry] = [:]
    }

    func readLocal() -> (Local, notes: [String]) {
        var local = Local()
        guard let m = copy.read("update-manifest.json") else { return (local, []) }
        local.manifestSha256 = HTTPFetcher.sha256Hex(m.bytes)
        guard let manifest = try? ReleaseManifest(m.bytes) else {
            return (local, ["the local update-manifest.json cannot be read: a full copy is downloaded"])
        }
        local.version = manifest.version
        // The local index is trusted only when it is the one its manifest names.
        guard let i = copy.read(manifest.index.path), i.bytes.count == manifest.index.size,
              HTTPFetcher.sha256Hex(i.bytes) == manifest.index.sha256, let index = try? ReleaseIndex(i.bytes, path: manifest.index.path) else {
            return (local, ["the local file index does not match its manifest: a full copy is downloaded"])
        }
        local.indexSha256 = manifest.index.sha256
        local.files = index.byPath
        // The index is a file of the copy too (a later release carries it as an older index).
        local.files[manifest.index.path] = manifest.index
        return (local, [])
    }

    func perform() throws -> SyncReport {
        let (local, localNotes) = readLocal()
        var notes = localNotes

        // 1. The manifest, conditionally when an earlier sync left its ETag for the manifest the copy has.
        let saved = copy.readState()
        let etag = saved.flatMap { $0.manifestSha256 == local.manifestSha256 ? $0.etag : nil }
        let manifestResponse: HTTPFetcher.Response
        do { manifestResponse = try sync.fetcher.fetch(sync.url("update-manifest.json"), ifNoneMatch: etag) } catch let f as HTTPFetcher.Failure {
            if f.isNotFound { throw SyncError(.notPublished, "\(f): nothing is published at \(site) yet") }
            throw Self.failure(f)
        }
        let manifestBytes: [UInt8]
        if manifestResponse.notModified, let have = copy.read("update-manifest.json") {
            manifestBytes = have.bytes
        } else {
            manifestBytes = manifestResponse.body
        }
        let manifest: ReleaseManifest
        do { manifest = try ReleaseManifest(manifestBytes) } catch { throw SyncError(.invalidRelease, "\(site): \(error)") }
        var report = SyncReport(fromVersion: local.version, toVersion: manifest.version, currentVersion: manifest.currentVersion,
                                alreadyCurrent: false, deltaFrom: nil, minimumAppVersion: manifest.minimumAppVersion,
                                forceUpdate: manifest.forceUpdate)
        func remember() {
            if let e = manifestResponse.etag ?? (manifestResponse.notModified ? etag : nil) {
                copy.writeState(.init(etag: e, manifestSha256: HTTPFetcher.sha256Hex(manifestBytes)))
            } else { copy.writeState(nil) }
        }

        // 2. Never backwards.
        if let have = local.version, manifest.version < have {
            throw SyncError(.rollback, "\(sync.url("update-manifest.json").absoluteString) offers version \(manifest.version), older than "
                            + "the local copy's version \(have): refusing to roll back (\(copy.directory.path) is unchanged)")
        }
        // Already this release, every file present at its size (a damaged copy is repaired below).
        if local.version == manifest.version, local.indexSha256 == manifest.index.sha256,
           local.files.values.allSatisfy({ copy.size($0.path) == $0.size }) {
            remember()
            report.alreadyCurrent = true
            report.fromVersion = local.version
            return report
        }

        // 3. The new index, checked against the manifest.
        let indexBytes = try fetch(manifest.index.path, expected: manifest.index).body
        let index: ReleaseIndex
        do { index = try ReleaseIndex(indexBytes, path: manifest.index.path) } catch { throw SyncError(.invalidRelease, "\(site): \(error)") }
        report.freshCopyBytes = manifestBytes.count + indexBytes.count + index.files.reduce(0) { $0 + $1.size }

        // 4. Plan: carry over what is unchanged, patch what the delta can, download the rest.
        var carry: [IndexEntry] = [], candidates: [IndexEntry] = [], download: [IndexEntry] = []
        for f in index.files {
            if let old = local.files[f.path], old.sha256 == f.sha256 { carry.append(f) }
            else if let old = local.files[f.path], f.path.hasSuffix(".json"), old.sha256 != f.sha256 { candidates.append(f) }
            else { download.append(f) }
        }
        var patches: [String: TreeJSON] = [:]
        // Bytes already fetched for a file of the new tree (the delta is one of its files), so none is fetched twice.
        var fetched: [String: [UInt8]] = [:]
        // The delta is worth it when it costs less than the changed files it can patch; nothing when the copy needs it
        // anyway (it is a file of the new tree).
        if let from = local.version, let deltaPath = manifest.deltas[from], let deltaEntry = index.byPath[deltaPath], !candidates.isEmpty,
           download.contains(deltaEntry) || deltaEntry.size < candidates.reduce(0, { $0 + $1.size }) {
            let bytes = try fetch(deltaPath, expected: deltaEntry).body
            fetched[deltaPath] = bytes
            if let delta = try? ReleaseDelta(bytes, path: deltaPath), delta.fromVersion == from, delta.toVersion == manifest.version {
                report.deltaFrom = from
                for f in candidates {
                    if let c = delta.changed[f.path], let patch = c.patch, c.sha256 == f.sha256, c.oldSha256 == local.files[f.path]?.sha256 {
                        patches[f.path] = patch
                    }
                }
            } else { notes.append("\(deltaPath) cannot be used: every changed file is downloaded whole") }
        }

        let staging = try LocalCopy.Staging(beside: copy)
        defer { staging.discard() }   // after a swap it holds the old copy; after a failure, the partial new one
        let total = index.files.count
        let counter = Counter()
        func step() { let d = counter.increment(); progress?(SyncProgress(done: d, total: total)) }

        // Local files are checked byte for byte before they are carried over or patched; a damaged one is downloaded.
        for f in carry {
            guard let have = copy.read(f.path), have.bytes.count == f.size, HTTPFetcher.sha256Hex(have.bytes) == f.sha256 else {
                if local.files[f.path] != nil { notes.append("\(TreePath.shown(f.path)): the local file is damaged or missing: downloaded again") }
                download.append(f)
                continue
            }
            if !staging.link(f.path, from: copy, identity: have.identity) { try staging.write(f.path, have.bytes) }
            report.unchanged += 1
            step()
        }
        for f in candidates {
            guard let patch = patches[f.path] else { download.append(f); continue }
            guard let have = copy.read(f.path), let old = local.files[f.path], have.bytes.count == old.size,
                  HTTPFetcher.sha256Hex(have.bytes) == old.sha256 else {
                notes.append("\(TreePath.shown(f.path)): the local file is damaged or missing: downloaded whole")
                download.append(f)
                continue
            }
            // A patch that does not give the published bytes is never used: the file is downloaded instead.
            guard let doc = try? TreeJSON.parse(have.bytes), let result = try? TreePatch.apply(patch, to: doc), case let bytes = result.bytes,
                  bytes.count == f.size, HTTPFetcher.sha256Hex(bytes) == f.sha256 else {
                notes.append("\(TreePath.shown(f.path)): its patch did not give the published bytes: downloaded whole")
                download.append(f)
                continue
            }
            try staging.write(f.path, bytes)
            report.patched += 1
            step()
        }
        for f in download where fetched[f.path] != nil {
            try staging.write(f.path, fetched[f.path]!)
            step()
        }
        do {
            try sync.fetcher.fetchAll(download.filter { fetched[$0.path] == nil }, url: { sync.url($0.path) }, expected: { $0.expected },
                                      alternate: sync.copyURL) { f, bytes in
                try staging.write(f.path, bytes)
                step()
            }
        } catch let f as HTTPFetcher.Failure { throw Self.failure(f) }
        report.downloaded = download.count

        // 5. The index and, last, the manifest: a copy is complete only with its manifest.
        try staging.write(manifest.index.path, indexBytes)
        try staging.write("update-manifest.json", manifestBytes)
        var gone = Set(local.files.keys)
        gone.subtract(index.byPath.keys)
        gone.remove(manifest.index.path)
        report.deleted = gone.count

        // 6. One swap.
        try copy.swap(in: staging)
        remember()
        report.notes = notes
        return report
    }
}

/// A thread-safe count of finished files, for progress.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}
