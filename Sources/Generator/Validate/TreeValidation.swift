import Foundation
import Schemas
import Crypto

/// `generator validate DIST`: what an app or CI can check on a published tree — the manifest contract, every file
/// of the file index present with its size and SHA-256, no file outside the index, and every JSON file valid
/// against the schema the index names (the tree's own `schemas/`, registered by their `$id`).
public enum TreeValidation {
    public struct Report: Sendable {
        public var checked = 0
        public var problems: [(path: String, message: String)] = []
        public var isValid: Bool { problems.isEmpty }

        public func json() -> JSON {
            .obj(["valid": .bool(isValid), "filesChecked": .int(checked),
                  "problems": .array(problems.map { .obj(["path": .string($0.path), "message": .string($0.message)]) })])
        }
    }

    public struct UsageError: Error, CustomStringConvertible { public let description: String }

    public static func check(_ root: URL, threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> Report {
        let tree: TreeReader
        do { tree = try TreeReader(root: root) } catch let p as TreeProblem where p.kind == .missing || p.kind == .notAFile {
            throw UsageError(description: "\(root.path) is not a directory")
        } catch { throw UsageError(description: "\(error)") }
        var report = Report()
        // Paths and messages may come from the tree's own files: printed escaped and short.
        func problem(_ path: String, _ message: String) { report.problems.append((TreeReader.shown(path), TreeReader.shown(message, limit: 300))) }
        func problem(_ p: TreeProblem) { problem(p.path, p.message) }
        // Only regular files of the tree are read: a symlink, FIFO or path that climbs out is a problem, never opened.
        func read(_ rel: String) -> [UInt8]? {
            do { return try tree.read(rel) } catch let p as TreeProblem { problem(p); return nil } catch { problem(rel, "\(error)"); return nil }
        }

        // What is on disk: regular files, and every symlink or special file met (reported, never followed).
        let walk = tree.walk()
        for p in walk.problems.sorted(by: { $0.path < $1.path }) { problem(p) }
        let flagged = Set(walk.problems.map(\.path))
        /// Whether a path or one of its folders was already reported by the walk.
        func isFlagged(_ path: String) -> Bool {
            if flagged.isEmpty { return false }
            var p = Substring(path)
            while true {
                if flagged.contains(String(p)) { return true }
                guard let slash = p.lastIndex(of: "/") else { return false }
                p = p[..<slash]
            }
        }

        // The manifest contract.
        if isFlagged("update-manifest.json") { return report }
        guard let manifestBytes = read("update-manifest.json") else { return report }
        let manifest: JSON
        do { manifest = try JSONReader.parse(manifestBytes) } catch { problem("update-manifest.json", "invalid JSON: \(error)"); return report }
        if manifest["currentVersion"]?.stringValue == nil { problem("update-manifest.json", "currentVersion is not a string") }
        if manifest["forceUpdate"]?.boolValue == nil { problem("update-manifest.json", "forceUpdate is not a boolean") }
        let ref = manifest["fileIndex"]
        guard let indexPath = ref?.stringValue ?? ref?["path"]?.stringValue else {
            problem("update-manifest.json", "fileIndex does not name a file of the tree"); return report
        }
        if let why = TreeReader.pathRejection(indexPath) { problem(indexPath, "fileIndex path in update-manifest.json: \(why)"); return report }
        if isFlagged(indexPath) { return report }
        guard let indexBytes = read(indexPath) else { return report }
        if let size = ref?["size"]?.intValue, size != indexBytes.count { problem(indexPath, "size \(indexBytes.count) differs from the manifest's \(size)") }
        if let sha = ref?["sha256"]?.stringValue, sha != hex(indexBytes) { problem(indexPath, "sha256 differs from the manifest's") }
        let entries: [JSON]
        do { entries = try JSONReader.parse(indexBytes)["files"]?.arrayValue ?? [] } catch { problem(indexPath, "invalid JSON: \(error)"); return report }

        // Listed versus on disk (a listed path that would leave the tree is a problem, never opened).
        var listed: [String: JSON] = [:]
        for e in entries {
            guard let p = e["path"]?.stringValue else { continue }
            if let why = TreeReader.pathRejection(p) { problem(p, "path in the file index: \(why)"); continue }
            listed[p] = e
        }
        let onDisk = Set(walk.files)
        for p in onDisk.subtracting(listed.keys).subtracting(["update-manifest.json", indexPath]).sorted() { problem(p, "on disk but not in the file index") }
        for p in Set(listed.keys).subtracting(onDisk).sorted() where !isFlagged(p) { problem(p, "in the file index but not on disk") }

        // Schemas of the tree, by path and by $id.
        let registry = SchemaRegistry()
        var schemaIds: [String: String] = [:]
        for (p, e) in listed where e["schema"]?.stringValue == SchemaPublisher.metaSchemaURI && onDisk.contains(p) {
            if let b = try? tree.read(p), let doc = try? JSONReader.parse(b) { registry.add(doc, uri: doc["$id"]?.stringValue ?? "tree:///\(p)"); schemaIds[p] = doc["$id"]?.stringValue ?? "tree:///\(p)" }
        }
        // One set of compiled schemas per worker: two cores taking references to the same compiled nodes slow each
        // other down.
        var perWorker: [[String: JSONSchemaValidator]] = Array(repeating: [:], count: max(1, threads))
        var schemaErrors: [String: String] = [:]
        for schema in Set(listed.values.compactMap { $0["schema"]?.stringValue }) {
            for w in perWorker.indices {
                do {
                    if schema == SchemaPublisher.metaSchemaURI {
                        perWorker[w][schema] = try JSONSchemaValidator(schema: registry.document(schema) ?? true, registry: registry, baseURI: schema)
                    } else if let id = schemaIds[schema], let doc = registry.document(URIReferenceString.stripFragment(id)) {
                        perWorker[w][schema] = try JSONSchemaValidator(schema: doc, registry: registry, baseURI: id)
                    } else { schemaErrors[schema] = "the schema \(schema) is not a schema file of the tree" }
                } catch { schemaErrors[schema] = "the schema \(schema) does not compile: \(error)" }
            }
        }

        // Every listed file: size, hash, schema (in parallel, largest first so a big search index does not start
        // last; problems reported in path order).
        let paths = Set(listed.keys).intersection(onDisk).sorted()
        let sizes = paths.map { listed[$0]?["size"]?.intValue ?? 0 }
        let order = paths.indices.sorted { (sizes[$0], $1) > (sizes[$1], $0) }
        var results = [[String]](repeating: [], count: paths.count)
        results.withUnsafeMutableBufferPointer { out in
            Parallel.forEach(order, threads: threads) { worker, i in
                let p = paths[i], e = listed[p]!, validators = perWorker[worker]
                let b: [UInt8]
                do { b = try tree.read(p) } catch { out[i] = ["\(error)"]; return }
                var found: [String] = []
                if b.count != e["size"]?.intValue { found.append("size \(b.count) != indexed \(e["size"]?.intValue.map(String.init) ?? "?")") }
                if hex(b) != e["sha256"]?.stringValue { found.append("sha256 differs from the index") }
                if p.hasSuffix(".json") {
                    if let s = e["schema"]?.stringValue {
                        if let err = schemaErrors[s] { found.append(err) }
                        else if let v = validators[s] {
                            // Checked from the bytes (no parse) when valid; parsed and evaluated for the errors.
                            do {
                                if !b.withUnsafeBytes({ v.isValid(text: $0) }), let first = try b.withUnsafeBytes({ try v.validate(text: $0) }).first {
                                    found.append("schema error at \(first.instanceLocation.isEmpty ? "(root)" : first.instanceLocation) (keyword \(first.keywordLocation)): \(first.message)")
                                }
                            } catch { found.append("invalid JSON: \(error)") }
                        }
                    } else { found.append("JSON file without a schema in the index") }
                }
                out[i] = found
            }
        }
        for (i, found) in results.enumerated() { for f in found { problem(paths[i], f) } }
        report.checked = paths.count
        return report
    }

    static func hex(_ bytes: [UInt8]) -> String { Build.sha256Hex(bytes) }
}

enum URIReferenceString {
    static func stripFragment(_ s: String) -> String { s.split(separator: "#", maxSplits: 1).first.map(String.init) ?? s }
}
