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
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDir), isDir.boolValue else {
            throw UsageError(description: "\(root.path) is not a directory")
        }
        var report = Report()
        func problem(_ path: String, _ message: String) { report.problems.append((path, message)) }
        let rootPath = root.standardizedFileURL.path
        func read(_ rel: String) -> [UInt8]? { readFile(rootPath + "/" + rel) }

        // The manifest contract.
        guard let manifestBytes = read("update-manifest.json") else { problem("update-manifest.json", "missing"); return report }
        let manifest: JSON
        do { manifest = try JSONReader.parse(manifestBytes) } catch { problem("update-manifest.json", "invalid JSON: \(error)"); return report }
        if manifest["currentVersion"]?.stringValue == nil { problem("update-manifest.json", "currentVersion is not a string") }
        if manifest["forceUpdate"]?.boolValue == nil { problem("update-manifest.json", "forceUpdate is not a boolean") }
        let ref = manifest["fileIndex"]
        guard let indexPath = ref?.stringValue ?? ref?["path"]?.stringValue, let indexBytes = read(indexPath) else {
            problem("update-manifest.json", "fileIndex does not name a file of the tree"); return report
        }
        if let size = ref?["size"]?.intValue, size != indexBytes.count { problem(indexPath, "size \(indexBytes.count) differs from the manifest's \(size)") }
        if let sha = ref?["sha256"]?.stringValue, sha != hex(indexBytes) { problem(indexPath, "sha256 differs from the manifest's") }
        let entries: [JSON]
        do { entries = try JSONReader.parse(indexBytes)["files"]?.arrayValue ?? [] } catch { problem(indexPath, "invalid JSON: \(error)"); return report }

        // Listed versus on disk.
        var listed: [String: JSON] = [:]
        for e in entries { if let p = e["path"]?.stringValue { listed[p] = e } }
        let onDisk = Set(allFiles(root))
        for p in onDisk.subtracting(listed.keys).subtracting(["update-manifest.json", indexPath]).sorted() { problem(p, "on disk but not in the file index") }
        for p in Set(listed.keys).subtracting(onDisk).sorted() { problem(p, "in the file index but not on disk") }

        // Schemas of the tree, by path and by $id.
        let registry = SchemaRegistry()
        var schemaIds: [String: String] = [:]
        for (p, e) in listed where e["schema"]?.stringValue == SchemaPublisher.metaSchemaURI && onDisk.contains(p) {
            if let b = read(p), let doc = try? JSONReader.parse(b) { registry.add(doc, uri: doc["$id"]?.stringValue ?? "tree:///\(p)"); schemaIds[p] = doc["$id"]?.stringValue ?? "tree:///\(p)" }
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
                guard let b = read(p) else { out[i] = ["cannot be read"]; return }
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

    /// Every regular file under root, relative, by a plain readdir walk (Foundation's enumerator with resource
    /// values costs more than the validation itself on a 100k-file tree).
    static func allFiles(_ root: URL) -> [String] {
        var out: [String] = []
        func walk(_ dir: String, _ rel: String) {
            guard let d = opendir(dir) else { return }
            defer { closedir(d) }
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                let path = dir + "/" + name, relPath = rel.isEmpty ? name : rel + "/" + name
                var type = e.pointee.d_type
                if type == UInt8(DT_UNKNOWN) {
                    var st = stat()
                    guard lstat(path, &st) == 0 else { continue }
                    type = (st.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : ((st.st_mode & S_IFMT) == S_IFREG ? UInt8(DT_REG) : 0)
                }
                if type == UInt8(DT_DIR) { walk(path, relPath) } else if type == UInt8(DT_REG) { out.append(relPath) }
            }
        }
        walk(root.standardizedFileURL.path, "")
        return out
    }

    /// The whole file, by open/fstat/read.
    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        var buf = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < buf.count {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n <= 0 { return n == 0 ? Array(buf[..<done]) : nil }
            done += n
        }
        return buf
    }

    static func hex(_ bytes: [UInt8]) -> String { Build.sha256Hex(bytes) }
}

enum URIReferenceString {
    static func stripFragment(_ s: String) -> String { s.split(separator: "#", maxSplits: 1).first.map(String.init) ?? s }
}
