import Foundation
import XCTest
@testable import Generator
import Schemas
import TreeClient

/// Signed releases of the default input, built once for the signing tests (each a copy of the output after that
/// build), and the keys and roots behind them:
/// - root 1 lists key A (threshold 1, maxVersionJump 3); releases 1 and 2 are signed by A;
/// - root 2 lists A and B (signed by A, and by A and B); release 3 is signed by B under root 2;
/// - root 3 lists only B (A revoked; signed by A and B); release 4 is signed by B under root 3.
/// Release 1 was built two days ago, 2 one day ago, 3 and 4 now: each current for seven days from its build.
struct SignedTrees {
    let a = SigningKey.generate(), b = SigningKey.generate()
    let work: URL
    let input: URL
    /// The trees of releases 1 to 4 (`trees[0]` is release 1).
    var trees: [URL] = []
    /// The roots' texts (`roots[0]` is root 1).
    var roots: [[UInt8]] = []

    static let shared = Result { try SignedTrees() }

    static func get() throws -> SignedTrees { try shared.get() }

    private init() throws {
        work = TestSupport.tempDir("signed-trees")
        input = work.appendingPathComponent("input")
        try FileManager.default.copyItem(at: TestSupport.defaultInput, to: input)
        let rootsFolder = input.appendingPathComponent("roots"), out = work.appendingPathComponent("dist")
        let year = Date().addingTimeInterval(365 * 86_400), now = Int(Date().timeIntervalSince1970)
        func root(_ keys: [SigningKey], signers: [SigningKey]) throws {
            let made = try RootMaker.next(in: rootsFolder, keys: keys.map(\.publicKey), threshold: 1, expires: year, maxVersionJump: 3, signers: signers)
            roots.append(made.root.bytes)
        }
        func release(_ day: Int, _ keys: [SigningKey], edit: () throws -> Void = {}) throws {
            try edit()
            var o = BuildOptions(input: input, output: out, threads: 2, epochSeconds: now + day * 86_400)
            o.signingKeys = keys
            _ = try Build.run(o)
            let copy = work.appendingPathComponent("release\(trees.count + 1)")
            try FileManager.default.copyItem(at: out, to: copy)
            trees.append(copy)
        }
        try root([a], signers: [a])
        try release(-2, [a])
        try release(-1, [a]) { try Self.edit(input.appendingPathComponent("catalog/products.jsonl"), #""price": 73.97"#, #""price": 71.50"#) }
        try root([a, b], signers: [a, b])
        try release(0, [b]) { try Self.edit(input.appendingPathComponent("site.json"), #""appVersion": "2.1.0""#, #""appVersion": "2.2.0""#) }
        try root([b], signers: [a, b])
        try release(0, [b]) { try Self.edit(input.appendingPathComponent("catalog/products.jsonl"), #""price": 71.50"#, #""price": 70.25"#) }
    }

    static func edit(_ url: URL, _ old: String, _ new: String) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        guard text.contains(old) else { throw NSError(domain: "SignedTrees", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(url.path): \(old)"]) }
        try text.replacingOccurrences(of: old, with: new).write(to: url, atomically: true, encoding: .utf8)
    }

    /// A writable copy of release `n`'s tree (1-based) for a hostile server to serve.
    func hostileCopy(of n: Int, _ name: String) throws -> URL {
        let copy = TestSupport.tempDir("hostile-\(name)").appendingPathComponent("site")
        try FileManager.default.copyItem(at: trees[n - 1], to: copy)
        return copy
    }

    /// The unsigned part of a tree's manifest, as a mutable object (the signed payload: `expires` and
    /// `rootVersion` included).
    static func payload(of tree: URL) throws -> JSONObject {
        let manifest = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent("update-manifest.json")))
        let envelope = try SignedEnvelope(json: Array(try JSONWriter().bytes(manifest.objectValue!["signed"]!)))
        return try JSONReader.parse(envelope.payload).objectValue!
    }

    /// Writes into `tree` a manifest whose payload is `payload`, signed by `keys` (in this order, each once per
    /// listing); the plain members are the payload's.
    static func writeManifest(_ payload: JSONObject, signedBy keys: [SigningKey], into tree: URL) throws {
        var envelope = SignedEnvelope(payloadType: SignedRelease.payloadType, payload: try JSONWriter().bytes(.object(payload)))
        for k in keys { envelope = try k.sign(envelope) }
        var members = payload
        members.append("signed", try JSONReader.parse(envelope.json))
        try Data(try JSONWriter().bytes(.object(members))).write(to: tree.appendingPathComponent("update-manifest.json"))
    }

    /// A member of `object` replaced (kept in its place).
    static func replacing(_ object: JSONObject, _ key: String, with value: JSON) -> JSONObject {
        JSONObject(object.members.map { ($0.key, $0.key == key ? value : $0.value) })
    }

    /// What a thief holding a signing key publishes: `paths` of `tree` (already rewritten) listed again in its file
    /// index with their new sha256 and size, and the manifest's payload naming that index (to be signed).
    static func relist(_ paths: [String], in tree: URL) throws -> JSONObject {
        var payload = try payload(of: tree)
        let indexPath = payload["fileIndex"]!["path"]!.stringValue!
        let indexURL = tree.appendingPathComponent(indexPath)
        guard case .object(var index) = try JSONReader.parse(Data(contentsOf: indexURL)) else { throw CocoaError(.fileReadCorruptFile) }
        let files = index["files"]!.arrayValue!.map { entry -> JSON in
            guard let p = entry["path"]?.stringValue, paths.contains(p), let bytes = FileManager.default.contents(atPath: tree.appendingPathComponent(p).path) else { return entry }
            return .obj(["path": .string(p), "sha256": .string(Build.sha256Hex([UInt8](bytes))), "size": .int(bytes.count), "schema": entry["schema"] ?? .null])
        }
        index = replacing(index, "files", with: .array(files))
        let bytes = try JSONWriter().bytes(.object(index))
        try Data(bytes).write(to: indexURL)
        payload = replacing(payload, "fileIndex", with: .obj(["path": .string(indexPath), "sha256": .string(Build.sha256Hex(bytes)), "size": .int(bytes.count)]))
        return payload
    }
}
