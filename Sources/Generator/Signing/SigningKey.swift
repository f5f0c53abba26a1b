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
        // Both or neither: a private key without its public file would be refused as existing by the next try.
        do { try Self.create(publicURL, Data(publicKey.rawRepresentation).base64EncodedString() + "\n", mode: 0o644) } catch {
            unlink(privateURL.path)
            throw error
        }
        return (privateURL, publicURL)
    }

    /// Reads a key file (`--signing-key`, `keys rotate --sign`), refused when its real path (links resolved) lies
    /// in one of `folders` (the build's input and output: a pull request controls the input, and the output is
    /// published). Only a small regular file is read.
    public static func read(_ path: String, notInside folders: [URL]) throws -> SigningKey {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL
        for f in folders {
            let folder = f.resolvingSymlinksInPath().standardizedFileURL.pathComponents
            if real.pathComponents.starts(with: folder) {
                throw BuildError(file: path, "a signing key is never read from inside \(f.path) (the input and output "
                                 + "folders are public); keep it elsewhere, or pass it in GENERATOR_SIGNING_KEY")
            }
        }
        var st = stat()
        guard stat(real.path, &st) == 0 else { throw BuildError(file: path, "cannot read the key (\(String(cString: strerror(errno))))") }
        guard (st.st_mode & S_IFMT) == S_IFREG, st.st_size < 4096 else { throw BuildError(file: path, "not a key file (a small regular file)") }
        guard let data = FileManager.default.contents(atPath: real.path) else { throw BuildError(file: path, "cannot read the key") }
        return try SigningKey(text: String(decoding: data, as: UTF8.self), source: path)
    }

    /// Reads a public key file (`signing-key.pub`: base64 of its 32 bytes) or, given a private key file, its public key.
    public static func readPublic(_ path: String) throws -> PublicSigningKey {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size < 4096, let data = FileManager.default.contents(atPath: path) else {
            throw BuildError(file: path, "cannot read the key (a small regular file)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let raw = Data(base64Encoded: text), raw.count == 32 else {
            throw BuildError(file: path, "not a key: expected the base64 of 32 bytes, as `generator keys generate` writes")
        }
        // A private key's file holds its 32 private bytes: told apart by the name `keys generate` gives it.
        if !path.hasSuffix(".pub") { return try SigningKey(rawRepresentation: Array(raw)).publicKey }
        return try PublicSigningKey(rawRepresentation: Array(raw))
    }

    /// A new file holding `text` (O_EXCL: never one that exists, nor through a symlink).
    static func create(_ url: URL, _ text: String, mode: mode_t) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw BuildError(file: url.path, "cannot create (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0, FileIO.writeAll(fd, Array(text.utf8)), fsync(fd) == 0 else {
            throw BuildError(file: url.path, "cannot write (\(String(cString: strerror(errno))))")
        }
    }
}
