import Foundation

/// One sync, from the manifest to the swap. `perform` runs the steps in order; each step is one method here or in
/// `SyncRun+Delta.swift` (what to carry, patch and download) and `SyncRun+Assembly.swift` (staging the new copy).
struct SyncRun {
    let sync: TreeSync
    let copy: LocalCopy
    let progress: (@Sendable (SyncProgress) -> Void)?

    var site: String { sync.site.absoluteString }

    func perform() throws -> SyncReport {
        let local = readLocal()
        var manifest = try fetchManifest(for: local)
        let accepted = try sync.trust.map { try checkSignature(of: &manifest, trust: $0, local: local) }
        var report = SyncReport(fromVersion: local.version, toVersion: manifest.release.version,
                                currentVersion: manifest.release.currentVersion, alreadyCurrent: false, deltaFrom: nil,
                                minimumAppVersion: manifest.release.minimumAppVersion, forceUpdate: manifest.release.forceUpdate)
        report.releaseTime = manifest.releaseTime
        if let accepted { record(accepted, in: &report) }
        // (A root that dropped a key resets the floor: see `ReleaseTrust`.)
        if accepted?.versionFloorReset != true { try refuseRollback(to: manifest.release, from: local) }
        if isCurrent(local, manifest.release) {
            // The same release signed again (a later expiry): the copy's manifest becomes the new one.
            if accepted != nil, let have = copy.read("update-manifest.json"), have.bytes != manifest.bytes { try copy.replaceManifest(manifest.bytes) }
            copy.writeState(manifest.state)
            saveCheck(report)
            report.alreadyCurrent = true
            return report
        }

        let index = try fetchIndex(of: manifest.release)
        report.freshCopyBytes = manifest.bytes.count + index.bytes.count + index.release.files.reduce(0) { $0 + $1.size }
        let plan = Plan(index.release, local: local)
        let delta = try fetchDelta(for: plan, manifest: manifest.release, index: index.release, local: local)
        report.deltaFrom = delta.fromVersion

        let staging = try LocalCopy.Staging(beside: copy)
        defer { staging.discard() }   // after a swap it holds the old copy; after a failure, the partial new one
        var assembly = Assembly(staging: staging, total: index.release.files.count, download: plan.download,
                                notes: local.notes + delta.notes, progress: progress)
        try assembly.carryOver(plan.carry, from: copy)
        try assembly.patch(plan.patchable, with: delta.patches, from: copy, listed: local.files)
        try assembly.downloadRest(alreadyFetched: delta.fetched, using: self)
        // The index and, last, the manifest: a copy is complete only with its manifest.
        try staging.write(manifest.release.index.path, index.bytes)
        try staging.write("update-manifest.json", manifest.bytes)

        try copy.swap(in: staging)
        copy.writeState(manifest.state)
        saveCheck(report)
        report.unchanged = assembly.unchanged
        report.patched = assembly.patched
        report.downloaded = assembly.download.count
        report.deleted = Self.deletedCount(local: local, index: index.release, indexPath: manifest.release.index.path)
        report.notes = assembly.notes
        return report
    }

    // MARK: The local copy

    /// What the local copy holds: its version, manifest and files by its own index (nil when there is no usable copy).
    struct Local {
        var version: Int?
        var manifestSha256: String?
        var indexSha256: String?
        /// Its index's entries, and the index itself.
        var files: [String: IndexEntry] = [:]
        /// Why the copy cannot be used as it is, if so.
        var notes: [String] = []
    }

    func readLocal() -> Local {
        var local = Local()
        guard let m = copy.read("update-manifest.json") else { return local }
        local.manifestSha256 = HTTPFetcher.sha256Hex(m.bytes)
        guard let manifest = try? ReleaseManifest(m.bytes) else {
            local.notes = ["the local update-manifest.json cannot be read: a full copy is downloaded"]
            return local
        }
        local.version = manifest.version
        // The local index is trusted only when it is the one its manifest names.
        guard let i = copy.read(manifest.index.path), i.bytes.count == manifest.index.size,
              HTTPFetcher.sha256Hex(i.bytes) == manifest.index.sha256, let index = try? ReleaseIndex(i.bytes, path: manifest.index.path) else {
            local.notes = ["the local file index does not match its manifest: a full copy is downloaded"]
            return local
        }
        local.indexSha256 = manifest.index.sha256
        local.files = index.byPath
        // The index is a file of the copy too (a later release carries it as an older index).
        local.files[manifest.index.path] = manifest.index
        return local
    }

    /// Files of the local copy the new release no longer lists.
    static func deletedCount(local: Local, index: ReleaseIndex, indexPath: String) -> Int {
        var gone = Set(local.files.keys)
        gone.subtract(index.byPath.keys)
        gone.remove(indexPath)
        return gone.count
    }

    // MARK: The manifest and the index

    /// The manifest as fetched (or, after a 304, as the local copy has it).
    struct FetchedManifest {
        var bytes: [UInt8]
        var release: ReleaseManifest
        /// The manifest's `lastUpdated`.
        var releaseTime: Date? { (try? TreeJSON.parse(bytes))?["lastUpdated"]?.string.flatMap(TrustTime.date) }
        /// The ETag to send with the next sync's request, kept once this manifest is the copy's (nil: none).
        var state: LocalCopy.State?
    }

    /// Fetches the manifest, conditionally when an earlier sync left its ETag for the manifest the copy has.
    func fetchManifest(for local: Local) throws -> FetchedManifest {
        let saved = copy.readState()
        let etag = saved.flatMap { $0.manifestSha256 == local.manifestSha256 ? $0.etag : nil }
        let response: HTTPFetcher.Response
        do { response = try sync.fetcher.fetch(sync.url("update-manifest.json"), ifNoneMatch: etag) } catch let f as HTTPFetcher.Failure {
            // Only the manifest's own URL answering 404 says nothing is published (a redirect is never followed).
            if f.isNotFound { throw SyncError(.notPublished, "\(f): nothing is published at \(site) yet") }
            throw Self.failure(f, treePath: "update-manifest.json")
        }
        var bytes = response.body
        if response.notModified, let have = copy.read("update-manifest.json") { bytes = have.bytes }
        let manifest: ReleaseManifest
        do { manifest = try ReleaseManifest(bytes) } catch { throw SyncError(.invalidRelease, "\(site): \(error)") }
        let kept = response.etag ?? (response.notModified ? etag : nil)
        return FetchedManifest(bytes: bytes, release: manifest, state: kept.map { .init(etag: $0, manifestSha256: HTTPFetcher.sha256Hex(bytes)) })
    }

    /// Never backwards: a site rolled back never rolls the app back.
    func refuseRollback(to manifest: ReleaseManifest, from local: Local) throws {
        if let have = local.version, manifest.version < have {
            throw SyncError(.rollback, "\(sync.url("update-manifest.json").absoluteString) offers version \(manifest.version), older than "
                            + "the local copy's version \(have): refusing to roll back (\(copy.directory.path) is unchanged)")
        }
    }

    /// Already this release, every file present at its size (a damaged copy is repaired by a sync like any other).
    func isCurrent(_ local: Local, _ manifest: ReleaseManifest) -> Bool {
        local.version == manifest.version && local.indexSha256 == manifest.index.sha256
            && local.files.values.allSatisfy { copy.size($0.path) == $0.size }
    }

    struct FetchedIndex {
        var bytes: [UInt8]
        var release: ReleaseIndex
    }

    /// The new index, checked against the manifest.
    func fetchIndex(of manifest: ReleaseManifest) throws -> FetchedIndex {
        let bytes = try fetch(manifest.index)
        do { return FetchedIndex(bytes: bytes, release: try ReleaseIndex(bytes, path: manifest.index.path)) }
        catch { throw SyncError(.invalidRelease, "\(site): \(error)") }
    }

    // MARK: Requests

    /// A file the release lists, checked against its entry; asked at its content-addressed copy too when its path
    /// holds other bytes.
    func fetch(_ entry: IndexEntry) throws -> [UInt8] {
        do { return try sync.fetcher.fetch(sync.url(entry.path), expected: entry.expected, alternate: sync.copyURL(entry)).body }
        catch let f as HTTPFetcher.Failure { throw Self.failure(f, treePath: entry.path) }
    }

    /// `treePath`: the file asked for, to name the site a redirect points at.
    static func failure(_ f: HTTPFetcher.Failure, treePath: String? = nil) -> SyncError {
        switch f.kind {
        case .mismatch, .tooLarge: return SyncError(.invalidRelease, "\(f)")
        case .redirected:
            let site = treePath.flatMap { f.movedSite(treePath: $0) }
            return SyncError(.unreachable, "\(f)" + (site.map { ": point the site URL at \($0)" } ?? ""))
        default: return SyncError(.unreachable, "\(f)")
        }
    }

    // MARK: Signatures

    /// The manifest's signature checked under the pinned root (see `ReleaseTrust`), the roots read from the copy when
    /// it has them and from the site otherwise; the release is then read from the signed payload alone.
    func checkSignature(of manifest: inout FetchedManifest, trust: ReleaseTrust, local: Local) throws -> ReleaseTrust.Accepted {
        let held = local.version.flatMap { v in local.indexSha256.map { (version: v, indexSha256: $0) } }
        let accepted: ReleaseTrust.Accepted
        do {
            accepted = try trust.check(manifest: manifest.bytes, copy: held) { n in
                let path = "roots/\(n).root.json"
                if let have = copy.read(path) { return have.bytes }
                do { return try sync.fetcher.fetch(sync.url(path)).body } catch let f as HTTPFetcher.Failure where f.isNotFound { return nil }
            }
        } catch let e as ReleaseTrust.ExpiredRelease {
            var error = SyncError(.expired, "\(site): \(e); \(copy.directory.path) is unchanged and stale")
            error.lastSuccessfulCheck = copy.readCheck()?.lastSuccessfulCheck
            throw error
        } catch let e as TrustFailure {
            throw SyncError(.untrusted, "\(site): \(e)")
        } catch let f as HTTPFetcher.Failure {
            throw Self.failure(f)
        }
        do { manifest.release = try ReleaseManifest(accepted.release.payload) } catch { throw SyncError(.invalidRelease, "\(site): signed \(error)") }
        return accepted
    }

    /// With a pinned root: the copy is known current as of this sync (read back for an expired release's error).
    func saveCheck(_ report: SyncReport) {
        guard let time = report.lastSuccessfulCheck else { return }
        copy.writeCheck(.init(lastSuccessfulCheck: time, releaseTime: report.releaseTime, expires: report.expires))
    }

    func record(_ accepted: ReleaseTrust.Accepted, in report: inout SyncReport) {
        report.expires = accepted.release.expires
        report.rootVersion = accepted.root.version
        report.rootsTaken = accepted.rootsTaken
        report.lastSuccessfulCheck = sync.trust?.now()
        if accepted.versionFloorReset { report.notes.append("a new root revoked a key: the copy's version no longer bounds the release's") }
    }
}
