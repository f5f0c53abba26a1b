import Foundation
import Schemas
import TreeClient

extension TreePublisher {
    /// Refuses anything but a complete, valid tree (every file's size, sha256 and schema checked) before the store is
    /// even read: a corrupt or tampered tree is never published.
    func readLocalTree() throws -> (TreeReader, Release, [UInt8]) {
        let validation: TreeValidation.Report
        do { validation = try TreeValidation.check(dist, threads: 2) } catch {
            throw Failure(kind: .refused, description: "\(error); nothing was uploaded")
        }
        guard validation.isValid else {
            let first = validation.problems.prefix(5).map { "  \($0.path): \($0.message)" }.joined(separator: "\n")
            throw Failure(kind: .refused, description: "\(dist.path) is not a valid built tree (generator validate finds "
                          + "\(validation.problems.count) problem(s)); nothing was uploaded:\n\(first)")
        }
        let reader: TreeReader
        let manifest: [UInt8]
        do {
            reader = try TreeReader(root: dist)
            manifest = try reader.read("update-manifest.json")
        } catch { throw Failure(kind: .refused, description: "\(dist.path): \(error); nothing was uploaded") }
        do {
            let release = try Self.parseRelease(manifest: manifest) { path in try reader.read(path) }
            return (reader, release, manifest)
        } catch let n as NotOurs {
            throw Failure(kind: .refused, description: "\(dist.path): \(n.why); nothing was uploaded")
        } catch { throw Failure(kind: .refused, description: "\(dist.path): \(error); nothing was uploaded") }
    }

    struct NotOurs: Error { let why: String }

    /// A release from its manifest and the index it names (read by `index`): the shape this tool writes, every path
    /// plain and relative, the index's size and sha256 those of the manifest, its version the manifest's.
    static func parseRelease(manifest bytes: [UInt8], index read: (String) throws -> [UInt8]?) throws -> Release {
        func parse(_ what: String, _ b: [UInt8]) throws -> JSON {
            do { return try JSONReader.parse(b) } catch { throw NotOurs(why: "\(what) is not JSON") }
        }
        let m = try parse("update-manifest.json", bytes)
        guard let version = m["version"]?.intValue, version >= 1 else { throw NotOurs(why: "update-manifest.json has no version") }
        guard let ref = m["fileIndex"], let path = ref["path"]?.stringValue, let sha = ref["sha256"]?.stringValue, let size = ref["size"]?.intValue else {
            throw NotOurs(why: "update-manifest.json has no fileIndex {path, sha256, size}")
        }
        guard path == "releases/\(version)/files.json", isSha256(sha), size >= 0 else {
            throw NotOurs(why: "update-manifest.json's fileIndex is not releases/\(version)/files.json with a sha256")
        }
        guard let indexBytes = try read(path) else { throw NotOurs(why: "\(path), named by update-manifest.json, is missing") }
        guard indexBytes.count == size, HTTPFetcher.sha256Hex(indexBytes) == sha else {
            throw NotOurs(why: "\(path) differs from the size and sha256 update-manifest.json gives")
        }
        let index = try parse(path, indexBytes)
        guard index["version"]?.intValue == version, let list = index["files"]?.arrayValue else {
            throw NotOurs(why: "\(path) is not the file index of version \(version)")
        }
        var files: [(path: String, sha256: String, size: Int)] = []
        var byPath: [String: String] = [:]
        for (i, e) in list.enumerated() {
            guard let p = e["path"]?.stringValue, let h = e["sha256"]?.stringValue, let s = e["size"]?.intValue, isSha256(h), s >= 0 else {
                throw NotOurs(why: "\(path): entry \(i) lacks a path, a sha256 or a size")
            }
            if let why = TreePath.rejection(p) { throw NotOurs(why: "\(path): entry \(i) \(TreePath.shown(p)): \(why)") }
            guard p != "update-manifest.json", p != path, p != logPath, !p.hasPrefix(TreePath.objectsFolder), byPath.updateValue(h, forKey: p) == nil else {
                throw NotOurs(why: "\(path): entry \(i) \(TreePath.shown(p)) cannot be listed (twice, or a path the publish writes itself: "
                              + "the manifest, \(logPath), \(TreePath.objectsFolder)…)")
            }
            files.append((p, h, s))
        }
        return Release(version: version, currentVersion: m["currentVersion"]?.stringValue ?? String(version), indexPath: path,
                       indexSha: sha, indexSize: size, files: files, byPath: byPath)
    }

    static func isSha256(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
