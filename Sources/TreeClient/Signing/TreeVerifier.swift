import Foundation

/// Checks a built tree in a folder the way an app checks a release (`generator verify DIST --root root.json`): the
/// manifest's signature under the pinned root and the chain of roots the tree holds, its expiry, then the file index
/// against the signed sha256 and size, then every file the index lists. Each check that fails is named.
public struct TreeVerifier {
    public let folder: URL
    public let trust: ReleaseTrust

    public init(folder: URL, trust: ReleaseTrust) { self.folder = folder; self.trust = trust }

    /// What a verified tree is.
    public struct Verified: Sendable {
        public let version: Int
        public let currentVersion: String
        public let rootVersion: Int
        public let signers: Int
        public let expires: Date
        public let files: Int
    }

    /// Why the tree fails: the check, in words an app developer can act on.
    public struct Failed: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public func verify() throws -> Verified {
        let copy = LocalCopy(folder)
        func read(_ path: String) -> [UInt8]? { copy.read(path)?.bytes }
        guard let manifest = read("update-manifest.json") else { throw Failed(description: "update-manifest.json: missing or not a regular file") }
        let accepted: ReleaseTrust.Accepted
        do { accepted = try trust.check(manifest: manifest, copy: nil) { read("roots/\($0).root.json") } } catch {
            throw Failed(description: "signature: \(error)")
        }
        let release: ReleaseManifest
        do { release = try ReleaseManifest(accepted.release.payload) } catch { throw Failed(description: "signed manifest: \(error)") }
        guard let indexBytes = read(release.index.path) else { throw Failed(description: "\(release.index.path): missing (the signed manifest names it)") }
        if HTTPFetcher.mismatch(indexBytes, release.index.expected) != nil {
            throw Failed(description: "\(release.index.path): its bytes differ from the sha256 and size the signed manifest names")
        }
        let index: ReleaseIndex
        do { index = try ReleaseIndex(indexBytes, path: release.index.path) } catch { throw Failed(description: "\(error)") }
        for e in index.files {
            guard let bytes = read(e.path) else { throw Failed(description: "\(TreePath.shown(e.path)): missing (the file index lists it)") }
            if HTTPFetcher.mismatch(bytes, e.expected) != nil {
                throw Failed(description: "\(TreePath.shown(e.path)): its bytes differ from the sha256 and size the file index lists")
            }
        }
        return Verified(version: release.version, currentVersion: release.currentVersion, rootVersion: accepted.root.version,
                        signers: accepted.release.envelope.validSigners(among: accepted.root.keys).count, expires: accepted.release.expires,
                        files: index.files.count + 1)
    }
}
