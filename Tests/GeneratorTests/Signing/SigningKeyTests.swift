import Foundation
import XCTest
@testable import Generator
import TestTools
import TreeClient

/// Keys and envelopes against outside answers: RFC 8032's Ed25519 test vectors (section 7.1) for the keys, DSSE's
/// pre-authentication encoding as its protocol document spells it, and what a forged, altered or re-typed envelope
/// must not pass.
final class SigningKeyTests: XCTestCase {
    /// RFC 8032, section 7.1, TESTs 1–3: private key, public key, message, signature (hex).
    static let vectors: [(secret: String, public: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ]

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = [], chars = Array(hex.utf8)[...]
        while chars.count >= 2 { out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16)!); chars = chars.dropFirst(2) }
        return out
    }

    func testRFC8032Vectors() throws {
        for v in Self.vectors {
            let key = try SigningKey(rawRepresentation: Self.bytes(v.secret))
            XCTAssertEqual(key.publicKey.rawRepresentation, Self.bytes(v.public), "public key of \(v.secret.prefix(8))")
            let message = Self.bytes(v.message), expected = Self.bytes(v.signature)
            // Ed25519 is deterministic; where swift-crypto adds randomness (Apple's CryptoKit), only verification is
            // comparable, so both are asked.
            let made = try key.signature(for: message)
            #if os(Linux)
            XCTAssertEqual(made, expected, "signature of \(v.message.isEmpty ? "the empty message" : v.message)")
            #endif
            XCTAssertTrue(key.publicKey.isValidSignature(made, for: message))
            XCTAssertTrue(key.publicKey.isValidSignature(expected, for: message))
            var flipped = expected
            flipped[10] ^= 0x01
            XCTAssertFalse(key.publicKey.isValidSignature(flipped, for: message))
            XCTAssertFalse(key.publicKey.isValidSignature(expected, for: message + [0]))
        }
    }

    /// The key id is the SHA-256 of the public key's 32 bytes (hex), as an outside tool (`sha256sum`) computes it.
    func testKeyIDIsTheSHA256OfThePublicKey() throws {
        let key = try SigningKey(rawRepresentation: Self.bytes(Self.vectors[0].secret))
        let file = TestSupport.tempDir("keyid").appendingPathComponent("public.bin")
        try Data(key.publicKey.rawRepresentation).write(to: file)
        let sum = try Command.run(["sha256sum", file.path]).output
        XCTAssertEqual(key.publicKey.keyID, String(sum.prefix(64)))
    }

    func testTextFormRoundTripsAndRefusesAnythingElse() throws {
        let key = SigningKey.generate()
        XCTAssertTrue(key.text.hasSuffix("\n"))
        let again = try SigningKey(text: key.text, source: "key.txt")
        XCTAssertEqual(again.publicKey, key.publicKey)
        for bad in ["", "not base64!", Data(repeating: 7, count: 31).base64EncodedString(), Data(repeating: 7, count: 64).base64EncodedString()] {
            XCTAssertThrowsError(try SigningKey(text: bad, source: "key.txt")) { error in
                XCTAssertTrue("\(error)".contains("key.txt"), "\(error)")
                XCTAssertFalse(bad.count > 8 && "\(error)".contains(bad), "the key text is never printed: \(error)")
            }
        }
    }

    /// DSSE's protocol document: PAE("DSSEv1", type, body) = "DSSEv1 <len(type)> <type> <len(body)> <body>".
    func testPreAuthenticationEncodingAsDSSESpellsIt() {
        let pae = SignedEnvelope.preAuthenticationEncoding(payloadType: "http://example.com/HelloWorld", payload: Array("hello world".utf8))
        XCTAssertEqual(String(decoding: pae, as: UTF8.self), "DSSEv1 29 http://example.com/HelloWorld 11 hello world")
        // Lengths count bytes, not characters.
        let utf8 = SignedEnvelope.preAuthenticationEncoding(payloadType: "t", payload: Array("é".utf8))
        XCTAssertEqual(String(decoding: utf8, as: UTF8.self), "DSSEv1 1 t 2 é")
    }

    func testEnvelopeSignedVerifiedAndRefusedWhenAltered() throws {
        let a = try SigningKey(rawRepresentation: Self.bytes(Self.vectors[0].secret))
        let b = try SigningKey(rawRepresentation: Self.bytes(Self.vectors[1].secret))
        let stranger = SigningKey.generate()
        let type = "application/vnd.static-json-compiler.release+json"
        var envelope = SignedEnvelope(payloadType: type, payload: Array(#"{"version":3}"#.utf8))
        envelope = try b.sign(try a.sign(envelope))
        let trusted = [a.publicKey, b.publicKey]
        // Through its text and back.
        let read = try SignedEnvelope(json: envelope.json)
        XCTAssertEqual(read, envelope)
        XCTAssertEqual(read.validSigners(among: trusted), [a.publicKey.keyID, b.publicKey.keyID])
        // A key signing twice counts once; a stranger's signature counts for nothing.
        var twice = try a.sign(try stranger.sign(SignedEnvelope(payloadType: type, payload: envelope.payload)))
        twice = try a.sign(twice)
        XCTAssertEqual(twice.validSigners(among: trusted), [a.publicKey.keyID])
        // Another payload, another type, or a signature moved to another key's id: nothing valid.
        var altered = envelope
        altered.payload = Array(#"{"version":4}"#.utf8)
        XCTAssertEqual(altered.validSigners(among: trusted), [])
        var retyped = envelope
        retyped.payloadType = "application/vnd.static-json-compiler.root+json"
        XCTAssertEqual(retyped.validSigners(among: trusted), [])
        XCTAssertEqual(envelope.validSigners(among: [stranger.publicKey]), [])
        // The key id is only a hint: a signature under a wrong or missing id is still the key's (DSSE).
        var relabelled = try a.sign(SignedEnvelope(payloadType: type, payload: envelope.payload))
        relabelled.signatures[0].keyID = ""
        XCTAssertEqual(relabelled.validSigners(among: trusted), [a.publicKey.keyID])
    }

    func testEnvelopeTextAsDSSEWritesIt() throws {
        let key = try SigningKey(rawRepresentation: Self.bytes(Self.vectors[0].secret))
        let envelope = try key.sign(SignedEnvelope(payloadType: "t", payload: Array("hello".utf8)))
        let text = String(decoding: envelope.json, as: UTF8.self)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(envelope.json)) as? [String: Any])
        XCTAssertEqual(object["payloadType"] as? String, "t")
        XCTAssertEqual(object["payload"] as? String, "aGVsbG8=", text)
        let signatures = try XCTUnwrap(object["signatures"] as? [[String: String]])
        XCTAssertEqual(signatures.count, 1)
        XCTAssertEqual(signatures[0]["keyid"], key.publicKey.keyID)
        XCTAssertEqual(signatures[0]["sig"].flatMap { Data(base64Encoded: $0) }.map(Array.init), envelope.signatures[0].signature)
        // URL-safe base64 without padding, a missing key id and unknown members are read too (DSSE allows them).
        let loose = #"{"payload":"aGVsbG8","payloadType":"t","extra":1,"signatures":[{"sig":"\#(signatures[0]["sig"]!.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))"}]}"#
        let read = try SignedEnvelope(json: Array(loose.utf8))
        XCTAssertEqual(read.payload, Array("hello".utf8))
        XCTAssertEqual(read.validSigners(among: [key.publicKey]), [key.publicKey.keyID])
        for bad in [#"{}"#, #"{"payloadType":"t","payload":"***","signatures":[]}"#, #"{"payloadType":"t","payload":"","signatures":[{"keyid":"x"}]}"#, "[1"] {
            XCTAssertThrowsError(try SignedEnvelope(json: Array(bad.utf8)), bad) { XCTAssertTrue("\($0)".contains("not a signed envelope"), "\($0)") }
        }
    }

    /// `generator keys generate --out DIR`: a private key only its owner can read, a public key, both printed ids
    /// matching the files; a second run into the same folder, or into a folder where a link waits, writes nothing.
    func testKeysGenerateWritesAPairOnceAndNeverOverwrites() throws {
        let work = TestSupport.tempDir("keys")
        let run = try TestSupport.runCLI(["keys", "generate", "--out", "release-keys"], cwd: work)
        XCTAssertEqual(run.status, 0, run.output)
        let folder = work.appendingPathComponent("release-keys")
        let privateFile = folder.appendingPathComponent("signing-key"), publicFile = folder.appendingPathComponent("signing-key.pub")
        let key = try SigningKey(text: String(contentsOf: privateFile, encoding: .utf8), source: privateFile.path)
        let publicText = try String(contentsOf: publicFile, encoding: .utf8)
        XCTAssertEqual(publicText, Data(key.publicKey.rawRepresentation).base64EncodedString() + "\n")
        XCTAssertTrue(run.output.contains("key id:     \(key.publicKey.keyID)"), run.output)
        XCTAssertTrue(run.output.contains("public key: \(publicText.dropLast())"), run.output)
        XCTAssertFalse(run.output.contains(key.text.dropLast()), "the private key is never printed")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: privateFile.path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)
        let folderMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int)
        XCTAssertEqual(folderMode, 0o700)
        // Again: refused, the key untouched.
        let again = try TestSupport.runCLI(["keys", "generate", "--out", "release-keys"], cwd: work)
        XCTAssertEqual(again.status, 1, again.output)
        XCTAssertTrue(again.output.contains("already exists"), again.output)
        XCTAssertEqual(try SigningKey(text: String(contentsOf: privateFile, encoding: .utf8), source: "").publicKey, key.publicKey)
        // A dangling link where the public key would go: nothing is written through it, and no private key is left.
        let trap = work.appendingPathComponent("trap")
        try FileManager.default.createDirectory(at: trap, withIntermediateDirectories: true)
        let target = work.appendingPathComponent("elsewhere.pub")
        try FileManager.default.createSymbolicLink(atPath: trap.appendingPathComponent("signing-key.pub").path, withDestinationPath: target.path)
        let linked = try TestSupport.runCLI(["keys", "generate", "--out", "trap"], cwd: work)
        XCTAssertEqual(linked.status, 1, linked.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: trap.appendingPathComponent("signing-key").path))
    }
}
