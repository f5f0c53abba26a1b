import Foundation

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
    /// When the release was built (the manifest's `lastUpdated`).
    public var releaseTime: Date?
    /// When a signed release stops being current (nil: unsigned).
    public var expires: Date?
    /// The root the release was checked under, and the roots taken on the way (with a pinned root).
    public var rootVersion: Int?
    public var rootsTaken: [Int] = []
    /// This sync's time: the copy is known current as of now.
    public var lastSuccessfulCheck: Date?
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
