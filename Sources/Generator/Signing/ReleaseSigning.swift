import Foundation
import Schemas
import TreeClient

/// A signed build: the chain of roots the publisher keeps in `input/roots/` (`1.root.json`, `2.root.json`, …, made
/// by `generator keys rotate`) and the private keys the build was given (`--signing-key`, `GENERATOR_SIGNING_KEY`;
/// never read from the input or output folders). The tree then holds `root.json` (the newest root),
/// `roots/N.root.json` (every root, for apps that pinned an older one), and its `update-manifest.json` carries the
/// release's signature (see `SignedRelease`), made once the manifest is.
///
/// Refused with a clear error: keys without roots, roots without keys, a broken chain, an expired newest root, or
/// fewer of its keys than its threshold.
struct ReleaseSigning: Sendable {
    /// The roots, version 1 first.
    let roots: [SignedRoot]
    /// Empty for an `unsigned` build.
    let keys: [SigningKey]
    /// Seconds a signed release stays current after the build.
    let lifetime: Int

    var newest: SignedRoot { roots[roots.count - 1] }

    /// Where the roots are kept in the input folder.
    static let folder = "roots"

    /// The signing of a build from `input` with `keys`; nil for an unsigned build (no roots, no keys). `unsigned`: the
    /// roots are published and a previous site release checked under them, but nothing is signed (a pull request's
    /// preview build, which must not hold the key; apps that pin a root refuse such a tree).
    static func read(input: URL, keys: [SigningKey], unsigned: Bool = false, epochSeconds: Int, expiresDays: Int) throws -> ReleaseSigning? {
        let root = try InputFiles.root(input)
        let folder = try InputFiles.resolve(folder, root: root, file: "\(input.lastPathComponent)/\(folder)", field: nil)
        let display = "\(input.lastPathComponent)/\(Self.folder)"
        let kind = InputFiles.kind(folder)
        guard kind == .folder || kind == .missing else { throw BuildError(file: display, "must be a folder of roots (1.root.json, …)") }
        let names = kind == .folder ? try InputFiles.list(folder, display: display) : []
        let files = names.filter { $0.hasSuffix(".root.json") }
        if files.isEmpty {
            guard keys.isEmpty else {
                throw BuildError(file: display, "a signing key was given but there is no root: make the first one with "
                                 + "`generator keys rotate --roots \(display) --key KEY.pub --sign KEY`")
            }
            return nil
        }
        func number(_ name: String) -> Int { Int(name.prefix { c in c.isNumber }) ?? 0 }
        var roots: [SignedRoot] = []
        for (k, name) in files.sorted(by: { number($0) < number($1) }).enumerated() {
            let shown = "\(display)/\(name)"
            guard name == "\(k + 1).root.json" else {
                throw BuildError(file: shown, "roots must be 1.root.json, 2.root.json, … with none missing (expected \(k + 1).root.json)")
            }
            let url = try InputFiles.resolve(name, root: root, from: folder, file: shown, field: nil)
            let r: SignedRoot
            do { r = try SignedRoot(json: [UInt8](try InputFiles.read(url, display: shown)), source: shown) } catch let e as TrustFailure {
                throw BuildError(file: shown, "\(e)")
            }
            do { try SignedRoot.checkLink(r, after: roots.last) } catch { throw BuildError(file: shown, "\(error)") }
            roots.append(r)
        }
        let newest = roots[roots.count - 1], shown = "\(display)/\(newest.version).root.json"
        if unsigned {
            guard keys.isEmpty else { throw BuildError(file: shown, "--unsigned and a signing key together: choose one") }
            return ReleaseSigning(roots: roots, keys: [], lifetime: expiresDays * 86_400)
        }
        guard !keys.isEmpty else {
            throw BuildError(file: shown, "the tree is signed under this root, but no signing key was given: pass "
                             + "--signing-key FILE or set GENERATOR_SIGNING_KEY (an unsigned tree would be refused by every app)")
        }
        guard newest.expires > Date(timeIntervalSince1970: TimeInterval(epochSeconds)) else {
            throw BuildError(file: shown, "root \(newest.version) expired at \(TrustTime.text(newest.expires)): make the next one with "
                             + "`generator keys rotate` (it may list the same keys)")
        }
        let listed = keys.filter { newest.keyIDs.contains($0.publicKey.keyID) }
        for k in keys where !newest.keyIDs.contains(k.publicKey.keyID) {
            throw BuildError(file: shown, "signing key \(k.publicKey.keyID.prefix(16))… is not one of root \(newest.version)'s keys")
        }
        guard Set(listed.map(\.publicKey.keyID)).count >= newest.threshold else {
            throw BuildError(file: shown, "root \(newest.version) needs \(newest.threshold) signatures; \(listed.count) of its keys were given")
        }
        return ReleaseSigning(roots: roots, keys: keys, lifetime: expiresDays * 86_400)
    }

    /// `root.json` and `roots/N.root.json`, as the input has them (each file's JSON; the signatures cover the
    /// payload, which is carried as the same text).
    func rootFiles() throws -> [OutputFile] {
        var files: [OutputFile] = []
        for r in roots {
            let json = try JSONReader.parse(r.bytes)
            files.append(OutputFile(path: "roots/\(r.version).root.json", json: json, kind: SigningKinds.root))
            if r.version == newest.version { files.append(OutputFile(path: "root.json", json: json, kind: SigningKinds.newestRoot)) }
        }
        return files
    }

    /// The manifest signed (see `SignedRelease`): `expires` and `rootVersion` added, that text signed by every key,
    /// and the envelope added as `signed`.
    func sign(manifest bytes: [UInt8], epochSeconds: Int) throws -> [UInt8] {
        guard case .object(var members) = try JSONReader.parse(bytes) else { preconditionFailure("a manifest is an object") }
        let built = Date(timeIntervalSince1970: TimeInterval(epochSeconds))
        members.append("expires", .string(TrustTime.text(built.addingTimeInterval(TimeInterval(lifetime)))))
        members.append("rootVersion", .int(newest.version))
        var envelope = SignedEnvelope(payloadType: SignedRelease.payloadType, payload: try JSONWriter().bytes(.object(members)))
        // (In key id order: the same keys sign the same bytes into the same file.)
        for key in keys.sorted(by: { $0.publicKey.keyID < $1.publicKey.keyID }) { envelope = try key.sign(envelope) }
        members.append("signed", try JSONReader.parse(envelope.json))
        return try JSONWriter().bytes(.object(members))
    }
}

/// The kinds of the signed files: a root (`root.json`, `roots/N.root.json`), a DSSE envelope (`SignedEnvelope`). (A
/// signed manifest is the manifest's kind: see `ManifestKinds.manifest`.)
enum SigningKinds {
    static let envelope = Schema.object([
        "payloadType": Schema.nonEmptyString,
        "payload": Schema.string(pattern: "^[A-Za-z0-9+/]*={0,2}$"),
        "signatures": Schema.array(Schema.object(["keyid": Schema.string(pattern: "^[0-9a-f]{64}$"),
                                                  "sig": Schema.string(pattern: "^[A-Za-z0-9+/]{86}==$")]), minItems: 1),
    ])
    static let root = OutputKind(
        name: "root", pathTemplate: "roots/{version}.root.json",
        summary: "A root of trust (signed envelope): the keys that sign releases, their threshold and expiry; each signed by the root before it.",
        schema: envelope)
    static let newestRoot = OutputKind(
        name: "newest-root", pathTemplate: "root.json",
        summary: "The newest root of trust (the same file as the last roots/{version}.root.json): what an app pins.",
        schema: envelope)
}
