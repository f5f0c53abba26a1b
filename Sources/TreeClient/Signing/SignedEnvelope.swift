import Crypto
import Foundation

/// A signed document as the tree publishes it: a Dead Simple Signing Envelope (DSSE v1, the envelope of in-toto and
/// Sigstore). The payload's exact bytes travel base64-encoded beside their type, and each Ed25519 signature covers
/// DSSE's pre-authentication encoding of both. Nothing is re-serialised or canonicalised to check a signature: what
/// is verified is byte for byte what was signed, and the type binds a signature to one kind of document (a signed
/// root can never be passed off as a signed release).
///
/// ```json
/// {"payloadType":"application/vnd.static-json-compiler.release+json","payload":"eyJ2ZXJzaW9uIjoz…",
///  "signatures":[{"keyid":"5f1c…","sig":"q0d4…"}]}
/// ```
public struct SignedEnvelope: Sendable, Equatable {
    public struct Signature: Sendable, Equatable {
        /// The signing key's id (`PublicSigningKey.keyID`).
        public var keyID: String
        /// The 64-byte Ed25519 signature.
        public var signature: [UInt8]

        public init(keyID: String, signature: [UInt8]) { self.keyID = keyID; self.signature = signature }
    }

    public var payloadType: String
    public var payload: [UInt8]
    public var signatures: [Signature]

    public init(payloadType: String, payload: [UInt8], signatures: [Signature] = []) {
        self.payloadType = payloadType; self.payload = payload; self.signatures = signatures
    }

    /// DSSE's pre-authentication encoding, the bytes a signature covers:
    /// `"DSSEv1" SP len(type) SP type SP len(payload) SP payload`, lengths in ASCII decimal bytes.
    public static func preAuthenticationEncoding(payloadType: String, payload: [UInt8]) -> [UInt8] {
        let type = Array(payloadType.utf8)
        return Array("DSSEv1 \(type.count) ".utf8) + type + Array(" \(payload.count) ".utf8) + payload
    }

    /// The bytes each signature covers.
    public var signedBytes: [UInt8] { Self.preAuthenticationEncoding(payloadType: payloadType, payload: payload) }

    /// The ids of `keys` with a valid signature in the envelope, each key counted once however often it signed (a
    /// threshold counts keys, not signatures). Signatures by other keys, and invalid ones, count for nothing. A
    /// signature's key id only says which key to try first (DSSE: it is an unauthenticated hint); one without a
    /// known id is tried against every key.
    public func validSigners(among keys: [PublicSigningKey]) -> Set<String> {
        let message = signedBytes
        var valid = Set<String>()
        for s in signatures {
            let named = keys.filter { $0.keyID == s.keyID }
            for key in named.isEmpty ? keys : named where !valid.contains(key.keyID) && key.isValidSignature(s.signature, for: message) {
                valid.insert(key.keyID)
                break
            }
        }
        return valid
    }

    // MARK: Text

    /// The envelope's JSON: `payloadType`, `payload` (standard base64), `signatures` of `keyid` and `sig` (base64).
    public var json: [UInt8] {
        let signatures = self.signatures.map {
            TreeJSON.object([.init("keyid", .string($0.keyID)), .init("sig", .string(Data($0.signature).base64EncodedString()))])
        }
        return TreeJSON.object([
            .init("payloadType", .string(payloadType)),
            .init("payload", .string(Data(payload).base64EncodedString())),
            .init("signatures", .array(signatures)),
        ]).bytes
    }

    /// Reads an envelope; `SignedEnvelope.Malformed` names what is wrong. (Whether it is signed well enough is
    /// `validSigners(among:)`'s question.)
    public init(json bytes: [UInt8]) throws {
        let doc: TreeJSON
        do { doc = try TreeJSON.parse(bytes) } catch { throw Malformed("\(error)") }
        guard let type = doc["payloadType"]?.string else { throw Malformed("no payloadType string") }
        guard let text = doc["payload"]?.string, let payload = Self.base64(text) else { throw Malformed("no base64 payload") }
        guard let list = doc["signatures"]?.array else { throw Malformed("no signatures list") }
        var signatures: [Signature] = []
        for (k, s) in list.enumerated() {
            // (DSSE: the key id may be left out, meaning empty; unknown members are ignored.)
            guard let sigText = s["sig"]?.string, let sig = Self.base64(sigText) else { throw Malformed("signature \(k): no base64 sig") }
            guard let id = s["keyid"].map({ $0.string ?? ($0.isNull ? "" : nil) }) ?? "" else {
                throw Malformed("signature \(k): keyid is not a string")
            }
            signatures.append(Signature(keyID: id, signature: sig))
        }
        self.init(payloadType: type, payload: payload, signatures: signatures)
    }

    /// Standard or URL-safe base64, padded or not (DSSE allows either alphabet).
    static func base64(_ text: String) -> [UInt8]? {
        var t = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        if t.count % 4 != 0 { t += String(repeating: "=", count: 4 - t.count % 4) }
        return Data(base64Encoded: t).map(Array.init)
    }

    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ why: String) { description = "not a signed envelope: \(why)" }
    }
}

/// An Ed25519 public key, as a root lists the keys allowed to sign.
public struct PublicSigningKey: Sendable, Hashable {
    /// The key's 32 bytes (RFC 8032's encoding).
    public let rawRepresentation: [UInt8]
    /// The key's id: the SHA-256 of its 32 bytes, in lowercase hex.
    public let keyID: String

    public init(rawRepresentation raw: [UInt8]) throws {
        _ = try Curve25519.Signing.PublicKey(rawRepresentation: raw)   // (32 bytes, or an error)
        rawRepresentation = raw
        keyID = HTTPFetcher.sha256Hex(raw)
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
