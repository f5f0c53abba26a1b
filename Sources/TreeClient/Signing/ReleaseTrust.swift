import Foundation

/// What an app trusts (one pinned root) and how it decides whether a signed release may replace its copy. The sync
/// (`TreeSync`) and `generator verify` both ask it; it reads nothing itself: roots come through `nextRoot`.
///
/// A release is accepted when:
/// 1. the chain of roots from the pinned one (`roots/N.root.json`, each signed by a threshold of the previous root's
///    keys and of its own) reaches the root the release names, and that root has not expired;
/// 2. a threshold of that root's keys signed the release, and the release has not expired;
/// 3. its version is above the copy's (the same version only with the same file index), and at most the root's
///    `maxVersionJump` above it — unless a root that dropped a key was taken on the way, which resets the copy's
///    version floor (the recovery after a stolen key signed a far-ahead release).
public struct ReleaseTrust: Sendable {
    public let pinned: SignedRoot
    /// The current time (a parameter for tests).
    public let now: @Sendable () -> Date

    /// At most this many roots are taken in one check (a hostile site could otherwise offer endless ones).
    public static let maxRootSteps = 100

    /// `pinned`: the root the app ships, read from its text. It must sign itself.
    public init(pinned: SignedRoot, now: @escaping @Sendable () -> Date = { Date() }) throws {
        guard pinned.isSelfSigned else {
            throw TrustFailure("the pinned root (version \(pinned.version)) lacks \(pinned.threshold) valid signature(s) by its own keys")
        }
        self.pinned = pinned; self.now = now
    }

    /// What a check decided.
    public struct Accepted: Sendable {
        public let release: SignedRelease
        /// The root the release was checked under (the newest of the chain).
        public let root: SignedRoot
        /// The roots taken after the pinned one, in order.
        public let rootsTaken: [Int]
        /// A root taken on the way dropped a key: the copy's version no longer bounds the release's.
        public let versionFloorReset: Bool
    }

    /// The newest root reachable from the pinned one: `nextRoot(N)` gives the text of root N, or nil when there is
    /// none (a missing `roots/N.root.json`). Each is checked before the next is asked for.
    public func newestRoot(_ nextRoot: (Int) throws -> [UInt8]?) throws -> (root: SignedRoot, taken: [Int], droppedKey: Bool) {
        var root = pinned, taken: [Int] = [], dropped = false
        for _ in 0..<Self.maxRootSteps {
            guard let text = try nextRoot(root.version + 1) else { return (root, taken, dropped) }
            let next = try SignedRoot(json: text, source: "roots/\(root.version + 1).root.json")
            try root.accepts(next: next)
            if !root.keyIDs.isSubset(of: next.keyIDs) { dropped = true }
            taken.append(next.version)
            root = next
        }
        throw TrustFailure("more than \(Self.maxRootSteps) new roots at once: refusing to go on")
    }

    /// Checks the signed release of `manifest` (`update-manifest.json`'s text) against the roots (see the type's
    /// rules). `copy`: the local copy's version and file index sha256, if it has one.
    /// `ignoringExpiry`: for a build that continues from the release (it signs a new one; a site not rebuilt for a
    /// week holds an expired release, and is still the release to continue from).
    public func check(manifest: [UInt8], copy: (version: Int, indexSha256: String)?, ignoringExpiry: Bool = false,
                      nextRoot: (Int) throws -> [UInt8]?) throws -> Accepted {
        let (root, taken, dropped) = try newestRoot(nextRoot)
        guard let release = try SignedRelease.of(manifest: manifest) else {
            throw TrustFailure("update-manifest.json is not signed, but the app trusts only releases signed under root \(root.version)")
        }
        let time = now()
        guard release.rootVersion == root.version else {
            if release.rootVersion < root.version {
                throw TrustFailure("update-manifest.json is signed under root \(release.rootVersion), but root \(root.version) is current: "
                                   + "refusing a release signed under a replaced root")
            }
            throw TrustFailure("update-manifest.json is signed under root \(release.rootVersion), but roots/\(root.version + 1).root.json "
                               + "is missing: the chain of roots does not reach it")
        }
        guard root.expires > time || ignoringExpiry else {
            throw TrustFailure("root \(root.version) expired at \(TrustTime.text(root.expires)): the publisher must publish a new root")
        }
        let signers = release.envelope.validSigners(among: root.keys)
        guard signers.count >= root.threshold else {
            let named = Set(release.envelope.signatures.map(\.keyID)).subtracting(root.keyIDs)
            let unknown = named.isEmpty ? "" : " (signed by key(s) root \(root.version) does not list: \(named.sorted().map { String($0.prefix(16)) }.joined(separator: ", ")))"
            throw TrustFailure("update-manifest.json has \(signers.count) valid signature(s) by the keys of root \(root.version); "
                               + "it needs \(root.threshold)\(unknown)")
        }
        guard release.expires > time || ignoringExpiry else {
            throw ExpiredRelease(version: release.version, expires: release.expires)
        }
        try checkVersion(release, root: root, copy: copy, floorReset: dropped, rootTaken: !taken.isEmpty)
        return Accepted(release: release, root: root, rootsTaken: taken, versionFloorReset: dropped)
    }

    /// The release's version against the copy's.
    func checkVersion(_ release: SignedRelease, root: SignedRoot, copy: (version: Int, indexSha256: String)?,
                      floorReset: Bool, rootTaken: Bool) throws {
        guard let copy, !floorReset else { return }
        if release.version < copy.version {
            throw TrustFailure("update-manifest.json offers version \(release.version), older than the local copy's version "
                               + "\(copy.version): refusing to roll back")
        }
        if release.version == copy.version && release.fileIndex.sha256 != copy.indexSha256 {
            throw TrustFailure("update-manifest.json offers version \(release.version) with other bytes than the local copy's "
                               + "version \(copy.version): refusing a release relabelled as another")
        }
        if release.version - copy.version > root.maxVersionJump && !rootTaken {
            throw TrustFailure("update-manifest.json jumps from version \(copy.version) to \(release.version), more than root "
                               + "\(root.version)'s maxVersionJump of \(root.maxVersionJump): refusing without a new root")
        }
    }

    /// The release is signed well but its time has passed: no newer one was published (or a host keeps serving an
    /// old one). The local copy stays usable; the app should say its data is stale.
    public struct ExpiredRelease: Error, CustomStringConvertible, Sendable {
        public let version: Int
        public let expires: Date
        public var description: String {
            "update-manifest.json (version \(version)) expired at \(TrustTime.text(expires)): the site offers no current release"
        }
    }
}
