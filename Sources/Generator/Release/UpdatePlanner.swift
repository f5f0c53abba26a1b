import Foundation
import Schemas
import Crypto

/// The app side of an update, as a reference implementation: given the file index the app has,
/// the new manifest and (when offered) the delta from the app's version, plan the downloads
/// (JSON patches or whole files), then apply them verifying every length and hash. A manifest
/// older than what the app has is refused (no rollback), and a file that fails verification is
/// never used: the update stops and the app keeps its current files.
public enum UpdatePlanner {
    public enum Step: Sendable, Equatable {
        case download(path: String, sha256: String, size: Int)
        case patch(path: String, patch: JSON, sha256: String, size: Int)
        case delete(path: String)
    }

    public struct Plan: Sendable {
        public var fromVersion: Int
        public var toVersion: Int
        public var steps: [Step]
        public var bytesToDownload: Int
    }

    public struct UpdateError: Error, CustomStringConvertible { public let description: String }

    /// `current`: path → (sha256, size) of the files the app has; `newIndex`: the release's file index
    /// (already fetched and verified against the manifest's fileIndex hash).
    public static func plan(currentVersion: Int, current: [String: (sha256: String, size: Int)],
                            manifest: JSON, newIndex: JSON, delta: JSON?) throws -> Plan {
        guard let version = manifest["version"]?.intValue else { throw UpdateError(description: "manifest without a version") }
        guard version >= currentVersion else {
            throw UpdateError(description: "manifest version \(version) is older than the installed \(currentVersion): refusing to roll back")
        }
        guard let files = newIndex["files"]?.arrayValue else { throw UpdateError(description: "file index without files") }
        var patches: [String: JSON] = [:]
        if let delta, delta["fromVersion"]?.intValue == currentVersion, delta["toVersion"]?.intValue == version {
            for c in delta["changed"]?.arrayValue ?? [] {
                if let p = c["path"]?.stringValue, let patch = c["patch"], let oldSha = c["oldSha256"]?.stringValue,
                   current[p]?.sha256 == oldSha { patches[p] = patch }
            }
        }
        var steps: [Step] = []
        var bytes = 0
        var wanted = Set<String>()
        for f in files {
            guard let p = f["path"]?.stringValue, let h = f["sha256"]?.stringValue, let s = f["size"]?.intValue else { continue }
            wanted.insert(p)
            if current[p]?.sha256 == h { continue }
            if let patch = patches[p] {
                steps.append(.patch(path: p, patch: patch, sha256: h, size: s))
                bytes += (try? JSONWriter().bytes(patch).count) ?? s
            } else {
                steps.append(.download(path: p, sha256: h, size: s))
                bytes += s
            }
        }
        for p in current.keys.sorted() where !wanted.contains(p) { steps.append(.delete(path: p)) }
        return Plan(fromVersion: currentVersion, toVersion: version, steps: steps, bytesToDownload: bytes)
    }

    /// Runs a plan against the app's files; every result is checked before anything is returned.
    public static func apply(_ plan: Plan, files: [String: [UInt8]], fetch: (String) throws -> [UInt8]) throws -> [String: [UInt8]] {
        var out = files
        for step in plan.steps {
            switch step {
            case .delete(let p): out[p] = nil
            case .download(let p, let h, let s):
                let bytes = try fetch(p)
                try verify(p, bytes, h, s)
                out[p] = bytes
            case .patch(let p, let patch, let h, let s):
                guard let old = files[p] else { throw UpdateError(description: "\(p): nothing to patch") }
                let doc = try JSONPatch.apply(patch, to: try JSONReader.parse(old))
                let bytes = try JSONWriter().bytes(doc)
                try verify(p, bytes, h, s)
                out[p] = bytes
            }
        }
        return out
    }

    static func verify(_ path: String, _ bytes: [UInt8], _ sha: String, _ size: Int) throws {
        guard bytes.count == size else { throw UpdateError(description: "\(path): \(bytes.count) bytes, expected \(size)") }
        let h = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        guard h == sha else { throw UpdateError(description: "\(path): sha256 mismatch") }
    }
}
