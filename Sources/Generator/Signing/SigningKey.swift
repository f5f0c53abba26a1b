import Crypto
import Foundation
import TreeClient

/// A private Ed25519 key that signs releases and roots (swift-crypto's Curve25519 signing; apps check the signatures
/// with `PublicSigningKey`). Its text form is the base64 of RFC 8032's 32-byte private key, on one line: what
/// `generator keys generate` writes (file mode 0600) and what `GENERATOR_SIGNING_KEY` holds in CI.
public struct SigningKey: Sendable {
    private let key: Curve25519.Signing.PrivateKey
    /// The key apps are given (in a root) to check its signatures.
    public let publicKey: PublicSigningKey

    /// A new key from the system's secure random source.
    public static func generate() -> SigningKey { SigningKey(Curve25519.Signing.PrivateKey()) }

    /// The key of RFC 8032's 32 private bytes.
    public init(rawRepresentation raw: [UInt8]) throws { self.init(try Curve25519.Signing.PrivateKey(rawRepresentation: raw)) }

    private init(_ key: Curve25519.Signing.PrivateKey) {
        self.key = key
        publicKey = try! PublicSigningKey(rawRepresentation: Array(key.publicKey.rawRepresentation))   // (always 32 bytes)
    }

    /// The key in its text form (`source` names where it came from in the error, never the text itself).
    public init(text: String, source: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let raw = Data(base64Encoded: trimmed), raw.count == 32 else {
            throw BuildError(file: source, "not a signing key: expected the base64 of 32 bytes, as `generator keys generate` writes")
        }
        try self.init(rawRepresentation: Array(raw))
    }

    /// The text form: base64 of the 32 private bytes, and a newline.
    public var text: String { Data(key.rawRepresentation).base64EncodedString() + "\n" }

    /// The Ed25519 signature of `message`.
    public func signature(for message: [UInt8]) throws -> [UInt8] { Array(try key.signature(for: message)) }

    /// `envelope` with this key's signature added (DSSE: over the pre-authentication encoding of its type and payload).
    public func sign(_ envelope: SignedEnvelope) throws -> SignedEnvelope {
        var signed = envelope
        signed.signatures.append(.init(keyID: publicKey.keyID, signature: try signature(for: envelope.signedBytes)))
        return signed
    }
}

extension SigningKey {
    /// The names `generator keys generate` gives the two files in its folder.
    public static let privateFileName = "signing-key", publicFileName = "signing-key.pub"

    /// Writes the key (`signing-key`, mode 0600) and its public key (`signing-key.pub`: base64 of the 32 public
    /// bytes) into `folder`, made (0700) when missing. Neither file may exist already, nor be a symlink: a key is
    /// never overwritten, and never written through a link.
    public func write(to folder: URL) throws -> (privateKey: URL, publicKey: URL) {
        if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
            throw BuildError(file: folder.path, "cannot make the folder (\(String(cString: strerror(errno))))")
        }
        let privateURL = folder.appendingPathComponent(Self.privateFileName), publicURL = folder.appendingPathComponent(Self.publicFileName)
        var st = stat()
        for url in [privateURL, publicURL] where lstat(url.path, &st) == 0 {   // (anything there, a dangling link too)
            throw BuildError(file: url.path, "already exists; a key is never overwritten (move it away first)")
        }
        try Self.create(privateURL, text, mode: 0o600)
        try Self.create(publicURL, Data(publicKey.rawRepresentation).base64EncodedString() + "\n", mode: 0o644)
        return (privateURL, publicURL)
    }

    /// A new file holding `text` (O_EXCL: never one that exists, nor through a symlink).
    private static func create(_ url: URL, _ text: String, mode: mode_t) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw BuildError(file: url.path, "cannot create (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0, FileIO.writeAll(fd, Array(text.utf8)), fsync(fd) == 0 else {
            throw BuildError(file: url.path, "cannot write (\(String(cString: strerror(errno))))")
        }
    }
}
