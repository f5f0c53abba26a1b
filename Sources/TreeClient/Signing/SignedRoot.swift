import Foundation

/// A root of trust: which keys may sign releases, how many of them must (`threshold`), until when, and how far one
/// release may jump ahead of the copy an app holds. An app ships (pins) one root; the publisher's later roots are
/// published as `roots/N.root.json`, each signed by a threshold of the previous root's keys and of its own
/// (`accepts(next:)`), and `root.json` is the newest one.
///
/// The file is a `SignedEnvelope` of type `SignedRoot.payloadType` whose payload is:
///
/// ```json
/// {"type":"root","version":2,"expires":"2027-11-27T00:00:00Z","threshold":1,"maxVersionJump":1000,
///  "keys":[{"keyid":"5f1c…","publicKey":"MCow…"}]}
/// ```
public struct SignedRoot: Sendable {
    public static let payloadType = "application/vnd.static-json-compiler.root+json"

    /// The file as published (the envelope's text).
    public let bytes: [UInt8]
    public let envelope: SignedEnvelope
    public let version: Int
    public let expires: Date
    /// How many distinct keys of `keys` must sign a release (and a root that follows this one).
    public let threshold: Int
    public let keys: [PublicSigningKey]
    /// The most a release's version may exceed the app's copy's without a newer root in between (fast-forward
    /// attacks: a stolen key's release 999999999 would block every genuine one after it).
    public let maxVersionJump: Int

    public var keyIDs: Set<String> { Set(keys.map(\.keyID)) }

    /// Reads a root; `TrustFailure` names what is wrong with its shape. Its signatures are checked by
    /// `isSelfSigned` and `accepts(next:)`.
    public init(json bytes: [UInt8], source: String = "root") throws {
        let envelope: SignedEnvelope
        do { envelope = try SignedEnvelope(json: bytes) } catch { throw TrustFailure("\(source): \(error)") }
        guard envelope.payloadType == Self.payloadType else {
            throw TrustFailure("\(source): a \(envelope.payloadType) envelope, not a root")
        }
        let p: TreeJSON
        do { p = try TreeJSON.parse(envelope.payload) } catch { throw TrustFailure("\(source): payload: \(error)") }
        guard p["type"]?.string == "root" else { throw TrustFailure("\(source): payload type is not \"root\"") }
        guard let version = p["version"]?.int, version >= 1 else { throw TrustFailure("\(source): version must be 1 or more") }
        guard let expiresText = p["expires"]?.string, let expires = TrustTime.date(expiresText) else {
            throw TrustFailure("\(source): expires must be a UTC time like 2027-01-31T00:00:00Z")
        }
        guard let list = p["keys"]?.array, !list.isEmpty else { throw TrustFailure("\(source): keys must list at least one key") }
        var keys: [PublicSigningKey] = []
        for (k, item) in list.enumerated() {
            guard let text = item["publicKey"]?.string, let raw = SignedEnvelope.base64(text),
                  let key = try? PublicSigningKey(rawRepresentation: raw) else {
                throw TrustFailure("\(source): keys[\(k)]: publicKey is not a base64 Ed25519 public key")
            }
            guard item["keyid"]?.string == key.keyID else { throw TrustFailure("\(source): keys[\(k)]: keyid is not the sha256 of its key") }
            guard !keys.contains(key) else { throw TrustFailure("\(source): keys[\(k)]: listed twice") }
            keys.append(key)
        }
        guard let threshold = p["threshold"]?.int, (1...keys.count).contains(threshold) else {
            throw TrustFailure("\(source): threshold must be between 1 and the number of keys (\(keys.count))")
        }
        guard let jump = p["maxVersionJump"]?.int, jump >= 1 else { throw TrustFailure("\(source): maxVersionJump must be 1 or more") }
        self.bytes = bytes; self.envelope = envelope; self.version = version; self.expires = expires
        self.threshold = threshold; self.keys = keys; self.maxVersionJump = jump
    }

    /// Whether `envelope` carries valid signatures of at least `threshold` of this root's keys.
    public func isSignedEnough(_ envelope: SignedEnvelope) -> Bool {
        envelope.validSigners(among: keys).count >= threshold
    }

    /// A first root signs itself (a threshold of its own keys).
    public var isSelfSigned: Bool { isSignedEnough(envelope) }

    /// Checks `next` as the root that follows this one: version exactly one more, signed by a threshold of this
    /// root's keys and by a threshold of its own. (Expiry is the caller's question: an expired root may still lead
    /// to a current one.)
    public func accepts(next: SignedRoot) throws {
        guard next.version == version + 1 else {
            throw TrustFailure("root \(next.version) cannot follow root \(version): the next root is version \(version + 1)")
        }
        guard isSignedEnough(next.envelope) else {
            throw TrustFailure("root \(next.version) lacks \(threshold) valid signature(s) by the keys of root \(version)")
        }
        guard next.isSelfSigned else {
            throw TrustFailure("root \(next.version) lacks \(next.threshold) valid signature(s) by its own keys")
        }
    }

    /// `next` checked as the root after `previous` in the chain a publisher keeps (`previous` nil: `next` must be
    /// root 1 and sign itself); see `accepts(next:)`.
    public static func checkLink(_ next: SignedRoot, after previous: SignedRoot?) throws {
        if let previous { return try previous.accepts(next: next) }
        guard next.version == 1 else { throw TrustFailure("the first root is version \(next.version), not 1") }
        guard next.isSelfSigned else { throw TrustFailure("root 1 lacks \(next.threshold) valid signature(s) by its own keys") }
    }

    /// The payload of a new root (for the publisher's tools): keys in the given order.
    public static func payload(version: Int, expires: Date, threshold: Int, maxVersionJump: Int, keys: [PublicSigningKey]) -> [UInt8] {
        let list = keys.map {
            TreeJSON.object([.init("keyid", .string($0.keyID)), .init("publicKey", .string(Data($0.rawRepresentation).base64EncodedString()))])
        }
        return TreeJSON.object([
            .init("type", .string("root")), .init("version", .number(String(version))),
            .init("expires", .string(TrustTime.text(expires))), .init("threshold", .number(String(threshold))),
            .init("maxVersionJump", .number(String(maxVersionJump))), .init("keys", .array(list)),
        ]).bytes
    }
}

/// Why a root or a signed release is not trusted (a message naming the file and the check that failed).
public struct TrustFailure: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The one time format of signed documents: UTC, whole seconds, `2027-01-31T00:00:00Z`.
public enum TrustTime {
    public static func text(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: date)
    }

    public static func date(_ text: String) -> Date? {
        // (Exactly the one form: 20 characters ending in Z.)
        guard text.utf8.count == 20, text.hasSuffix("Z") else { return nil }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }
}
