import Foundation
import Schemas
import TreeClient

extension TreePublisher {
    /// The release the store's `update-manifest.json` names; nil when there is none (or, with --force, when it is
    /// not one of ours).
    func readPublished(_ report: inout Report) throws -> Release? {
        guard let manifest = try store.get(location.key("update-manifest.json")) else { return nil }
        do {
            return try Self.parseRelease(manifest: manifest) { try store.get(location.key($0)) }
        } catch let n as NotOurs {
            guard options.force else {
                throw Failure(kind: .refused, description: "\(location) holds an update-manifest.json that is not a release published by "
                              + "generator (\(n.why)); nothing was uploaded (give --force to publish over it: its objects are never pruned)")
            }
            report.notes.append("\(location)'s update-manifest.json is not one of ours (\(n.why)): replaced (--force)")
            return nil
        }
    }

    /// The publish log; empty when there is none. One that cannot be read as ours is set aside (noted): it only
    /// limits what --prune and the clean-up can find.
    func readLog(_ report: inout Report) throws -> Log {
        guard let bytes = try store.get(location.key(Self.logPath)) else { return Log() }
        guard let json = try? JSONReader.parse(bytes), json["format"]?.intValue == 1, let list = json["releases"]?.arrayValue else {
            report.notes.append("\(Self.logPath) on the store is not a publish log of ours: ignored (--prune finds only the releases it can vouch for)")
            return Log()
        }
        var pending: [Pending] = []
        for e in json["pending"]?.arrayValue ?? [] {
            guard let p = e["path"]?.stringValue, TreePath.rejection(p) == nil, !p.hasPrefix(TreePath.objectsFolder),
                  let h = e["sha256"]?.stringValue, Self.isSha256(h) else {
                report.notes.append("\(Self.logPath): a pending entry is malformed: ignored")
                continue
            }
            let entry = Pending(path: p, sha256: h)
            if !pending.contains(entry) { pending.append(entry) }
        }
        var out: [LogEntry] = []
        for e in list {
            guard let v = e["version"]?.intValue, v >= 1, let h = e["sha256"]?.stringValue, Self.isSha256(h), let s = e["size"]?.intValue, s >= 0 else {
                report.notes.append("\(Self.logPath): an entry is malformed: ignored")
                continue
            }
            out.removeAll { $0.version == v }
            out.append(LogEntry(version: v, sha256: h, size: s, contentPruned: e["contentPruned"]?.boolValue ?? false))
        }
        return Log(releases: out.sorted { $0.version < $1.version }, pending: pending)
    }

    func putLog(_ log: Log) throws {
        var fields: [(String, JSON)] = [
            ("format", .int(1)),
            ("about", .string("Written by generator publish: every file index it uploaded here (what --prune may delete files of), and the "
                              + "content-addressed copies of a publish not completed yet (pending: deleted once every path holds its new bytes).")),
            ("releases", .array(log.releases.map { .obj(["version": .int($0.version), "path": .string($0.path), "sha256": .string($0.sha256), "size": .int($0.size),
                                                         "contentPruned": .bool($0.contentPruned)]) })),
        ]
        if !log.pending.isEmpty {
            fields.append(("pending", .array(log.pending.map { .obj(["path": .string($0.path), "sha256": .string($0.sha256), "object": .string($0.object)]) })))
        }
        let json: JSON = .object(JSONObject(fields.map { JSONObject.Member(key: $0.0, value: $0.1) }))
        let bytes = try JSONWriter(pretty: true).bytes(json)
        try store.put(location.key(Self.logPath), body: bytes, sha256: HTTPFetcher.sha256Hex(bytes),
                      contentType: ContentTypes.entry(for: Self.logPath).type, cacheControl: Self.manifestCache)
    }
}
