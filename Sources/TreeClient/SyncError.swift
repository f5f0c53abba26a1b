import Foundation

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
        /// The release is not signed as the pinned root requires: no signature, too few valid ones, a broken chain
        /// of roots, a version jump or replay the roots do not allow.
        case untrusted
        /// The release is signed well but has expired: the copy is stale (see `lastSuccessfulCheck`).
        case expired
    }
    public let kind: Kind
    public let message: String
    /// For `.expired`: when a sync last found the copy current with a release that had not expired (nil: never).
    public var lastSuccessfulCheck: Date?
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }
}
