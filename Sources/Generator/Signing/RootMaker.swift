import Foundation
import TreeClient

/// `generator keys rotate`: the first root, or the next one in a folder of roots (`1.root.json`, `2.root.json`, …,
/// kept in the input's `roots/` and published by every build). A next root must be signed by a threshold of the
/// current root's keys and by a threshold of its own, so the keys given with `sign` must cover both: that is what
/// lets an app that pinned an old root follow the chain, and what keeps a thief of one old key from making roots.
public enum RootMaker {
    public struct Made: Sendable {
        public let file: URL
        public let root: SignedRoot
        /// Keys of the previous root this one no longer lists (their later signatures are refused).
        public let revoked: [String]
    }

    /// Writes the next root into `folder` (made when missing; the file never overwrites one).
    public static func next(in folder: URL, keys: [PublicSigningKey], threshold: Int, expires: Date, maxVersionJump: Int,
                            signers: [SigningKey]) throws -> Made {
        let current = try chain(folder).last
        let version = (current?.version ?? 0) + 1
        let name = "\(version).root.json", shown = folder.appendingPathComponent(name).path
        guard !keys.isEmpty else { throw BuildError(file: shown, "a root lists at least one key (--key)") }
        guard Set(keys).count == keys.count else { throw BuildError(file: shown, "a key is listed twice") }
        guard (1...keys.count).contains(threshold) else { throw BuildError(file: shown, "--threshold must be between 1 and the \(keys.count) key(s) listed") }
        guard maxVersionJump >= 1 else { throw BuildError(file: shown, "--max-version-jump must be 1 or more") }
        guard expires > Date() else { throw BuildError(file: shown, "the root would already have expired") }
        var envelope = SignedEnvelope(payloadType: SignedRoot.payloadType,
                                      payload: SignedRoot.payload(version: version, expires: expires, threshold: threshold,
                                                                  maxVersionJump: maxVersionJump, keys: keys))
        var seen = Set<String>()
        for key in signers.sorted(by: { $0.publicKey.keyID < $1.publicKey.keyID }) where seen.insert(key.publicKey.keyID).inserted {
            envelope = try key.sign(envelope)
        }
        let root = try SignedRoot(json: envelope.json, source: shown)
        guard root.isSelfSigned else {
            throw BuildError(file: shown, "root \(version) needs \(threshold) signature(s) by its own keys: sign with them (--sign)")
        }
        if let current {
            do { try current.accepts(next: root) } catch {
                throw BuildError(file: shown, "root \(version) needs \(current.threshold) signature(s) by the keys of root \(current.version) "
                                 + "too: sign with them (--sign), so apps that pinned it accept the new root")
            }
        }
        if mkdir(folder.path, 0o755) != 0 && errno != EEXIST {
            throw BuildError(file: folder.path, "cannot make the folder (\(String(cString: strerror(errno))))")
        }
        try SigningKey.create(folder.appendingPathComponent(name), String(decoding: root.bytes, as: UTF8.self) + "\n", mode: 0o644)
        let revoked = current.map { $0.keyIDs.subtracting(root.keyIDs).sorted() } ?? []
        return Made(file: folder.appendingPathComponent(name), root: root, revoked: revoked)
    }

    /// The roots in `folder`, checked as a chain (empty when there are none).
    static func chain(_ folder: URL) throws -> [SignedRoot] {
        var roots: [SignedRoot] = []
        while true {
            let url = folder.appendingPathComponent("\(roots.count + 1).root.json")
            guard let data = FileManager.default.contents(atPath: url.path) else { return roots }
            let root: SignedRoot
            do { root = try SignedRoot(json: Array(data), source: url.path) } catch { throw BuildError(file: url.path, "\(error)") }
            do { try SignedRoot.checkLink(root, after: roots.last) } catch { throw BuildError(file: url.path, "\(error)") }
            roots.append(root)
        }
    }
}
