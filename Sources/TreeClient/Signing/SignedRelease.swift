import Foundation

/// A signed release: `update-manifest.json` carrying its own signature. The manifest's members are those of an
/// unsigned tree plus `expires` (an app told of no newer release for longer knows its data is stale, whatever a host
/// keeps serving) and `rootVersion` (the root it was signed under), and `signed`: a `SignedEnvelope` of type
/// `SignedRelease.payloadType` whose payload is the exact text of the manifest without `signed`. A checking client
/// reads the release from that payload only; clients that do not check signatures read the manifest as before. The
/// file index is named by its sha256 and size, and every file by the index, so the whole tree hangs from the
/// signature.
///
/// ```json
/// {"currentVersion":"2026.11.27.1","version":3,…,"fileIndex":{"path":"releases/3/files.json","sha256":"…","size":90210},
///  "expires":"2026-12-04T14:00:00Z","rootVersion":1,
///  "signed":{"payloadType":"application/vnd.static-json-compiler.release+json","payload":"eyJjdXJyZW50…","signatures":[…]}}
/// ```
public struct SignedRelease: Sendable {
    public static let payloadType = "application/vnd.static-json-compiler.release+json"

    public let envelope: SignedEnvelope
    public let version: Int
    public let currentVersion: String
    public let expires: Date
    public let rootVersion: Int
    public let fileIndex: Reference
    /// The signed manifest's text (the envelope's payload): what a checking client reads the release from.
    public var payload: [UInt8] { envelope.payload }

    /// A file the release names by its exact bytes.
    public struct Reference: Sendable, Equatable {
        public var path: String
        public var sha256: String
        public var size: Int
        public init(path: String, sha256: String, size: Int) { self.path = path; self.sha256 = sha256; self.size = size }
    }

    /// Reads the signed release of a manifest's text: nil when the manifest carries no signature (an unsigned
    /// tree); `TrustFailure` when the signature or its payload is malformed. (Whether it is trusted is
    /// `ReleaseTrust.check`'s question.)
    public static func of(manifest bytes: [UInt8]) throws -> SignedRelease? {
        let source = "update-manifest.json"
        let doc: TreeJSON
        do { doc = try TreeJSON.parse(bytes) } catch { throw TrustFailure("\(source): \(error)") }
        guard let signed = doc["signed"] else { return nil }
        let envelope: SignedEnvelope
        do { envelope = try SignedEnvelope(json: signed.bytes) } catch { throw TrustFailure("\(source): signed: \(error)") }
        return try SignedRelease(envelope: envelope)
    }

    init(envelope: SignedEnvelope) throws {
        let source = "update-manifest.json: signed payload"
        guard envelope.payloadType == Self.payloadType else { throw TrustFailure("\(source): a \(envelope.payloadType) envelope, not a release") }
        let p: TreeJSON
        do { p = try TreeJSON.parse(envelope.payload) } catch { throw TrustFailure("\(source): \(error)") }
        guard p["signed"] == nil else { throw TrustFailure("\(source): holds a signature itself") }
        guard let version = p["version"]?.int, version >= 1 else { throw TrustFailure("\(source): version must be 1 or more") }
        guard let expires = p["expires"]?.string.flatMap(TrustTime.date) else {
            throw TrustFailure("\(source): expires must be a UTC time like 2027-01-31T00:00:00Z")
        }
        guard let rootVersion = p["rootVersion"]?.int, rootVersion >= 1 else { throw TrustFailure("\(source): rootVersion must be 1 or more") }
        guard let r = p["fileIndex"], let path = r["path"]?.string, let sha = r["sha256"]?.string, let size = r["size"]?.int,
              let entry = try? IndexEntry(path: path, sha256: sha, size: size, in: "fileIndex") else {
            throw TrustFailure("\(source): fileIndex must give a path in the tree, a sha256 and a size")
        }
        self.envelope = envelope; self.version = version; self.currentVersion = p["currentVersion"]?.string ?? String(version)
        self.expires = expires; self.rootVersion = rootVersion
        self.fileIndex = Reference(path: entry.path, sha256: entry.sha256, size: entry.size)
    }
}
