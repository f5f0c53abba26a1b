import Foundation
import Schemas

extension TreeValidation {
    /// One validation of a tree: what its walk found on disk, and the problems found so far. `check` runs the steps
    /// in order: the manifest contract, the listing against the disk, the schemas, then every file.
    struct Run {
        let tree: TreeReader
        /// The regular files on disk.
        let onDisk: Set<String>
        /// Paths the walk reported (a symlink, a special file): never read.
        let flagged: Set<String>
        var report = Report()

        init(_ root: URL) throws {
            do { tree = try TreeReader(root: root) } catch let p as TreeProblem where p.kind == .missing || p.kind == .notAFile {
                throw UsageError(description: "\(root.path) is not a directory")
            } catch { throw UsageError(description: "\(error)") }
            // What is on disk: regular files, and every symlink or special file met (reported, never followed).
            let walk = tree.walk()
            onDisk = Set(walk.files)
            flagged = Set(walk.problems.map(\.path))
            for p in walk.problems.sorted(by: { $0.path < $1.path }) { problem(p) }
        }

        /// Paths and messages may come from the tree's own files: printed escaped and short.
        mutating func problem(_ path: String, _ message: String) {
            report.problems.append((TreeReader.shown(path), TreeReader.shown(message, limit: 300)))
        }

        mutating func problem(_ p: TreeProblem) { problem(p.path, p.message) }

        /// Only regular files of the tree are read: a symlink, FIFO or path that climbs out is a problem, never opened.
        mutating func read(_ rel: String) -> [UInt8]? {
            do { return try tree.read(rel) } catch let p as TreeProblem { problem(p); return nil } catch { problem(rel, "\(error)"); return nil }
        }

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

        // MARK: Steps

        /// The manifest contract, and the entries of the file index it names; nil when either cannot be read (a
        /// problem already reported): nothing more can be checked.
        mutating func checkManifest() -> (path: String, entries: [JSON])? {
            if isFlagged("update-manifest.json") { return nil }
            guard let manifestBytes = read("update-manifest.json") else { return nil }
            let manifest: JSON
            do { manifest = try JSONReader.parse(manifestBytes) } catch { problem("update-manifest.json", "invalid JSON: \(error)"); return nil }
            if manifest["currentVersion"]?.stringValue == nil { problem("update-manifest.json", "currentVersion is not a string") }
            if manifest["forceUpdate"]?.boolValue == nil { problem("update-manifest.json", "forceUpdate is not a boolean") }
            let ref = manifest["fileIndex"]
            guard let indexPath = ref?.stringValue ?? ref?["path"]?.stringValue else {
                problem("update-manifest.json", "fileIndex does not name a file of the tree"); return nil
            }
            if let why = TreeReader.pathRejection(indexPath) { problem(indexPath, "fileIndex path in update-manifest.json: \(why)"); return nil }
            if isFlagged(indexPath) { return nil }
            guard let indexBytes = read(indexPath) else { return nil }
            if let size = ref?["size"]?.intValue, size != indexBytes.count { problem(indexPath, "size \(indexBytes.count) differs from the manifest's \(size)") }
            if let sha = ref?["sha256"]?.stringValue, sha != hex(indexBytes) { problem(indexPath, "sha256 differs from the manifest's") }
            do { return (indexPath, try JSONReader.parse(indexBytes)["files"]?.arrayValue ?? []) } catch {
                problem(indexPath, "invalid JSON: \(error)"); return nil
            }
        }

        /// The index's entries by path, checked against the files on disk (a listed path that would leave the tree is
        /// a problem, never opened).
        mutating func checkListing(_ index: (path: String, entries: [JSON])) -> [String: JSON] {
            var listed: [String: JSON] = [:]
            for e in index.entries {
                guard let p = e["path"]?.stringValue else { continue }
                if let why = TreeReader.pathRejection(p) { problem(p, "path in the file index: \(why)"); continue }
                listed[p] = e
            }
            for p in onDisk.subtracting(listed.keys).subtracting(["update-manifest.json", index.path]).sorted() { problem(p, "on disk but not in the file index") }
            for p in Set(listed.keys).subtracting(onDisk).sorted() where !isFlagged(p) { problem(p, "in the file index but not on disk") }
            return listed
        }

        /// The schemas files name, compiled once per worker (two cores taking references to the same compiled nodes
        /// slow each other down), and why a schema cannot be used.
        struct Schemas {
            var perWorker: [[String: JSONSchemaValidator]]
            var errors: [String: String] = [:]
        }

        /// Compiles the schemas the listed files name from the tree's own schema files (registered by their `$id`).
        func compileSchemas(for listed: [String: JSON], workers: Int) -> Schemas {
            let registry = SchemaRegistry()
            var schemaIds: [String: String] = [:]
            for (p, e) in listed where e["schema"]?.stringValue == SchemaPublisher.metaSchemaURI && onDisk.contains(p) {
                if let b = try? tree.read(p), let doc = try? JSONReader.parse(b) { registry.add(doc, uri: doc["$id"]?.stringValue ?? "tree:///\(p)"); schemaIds[p] = doc["$id"]?.stringValue ?? "tree:///\(p)" }
            }
            var schemas = Schemas(perWorker: Array(repeating: [:], count: workers))
            for schema in Set(listed.values.compactMap { $0["schema"]?.stringValue }) {
                for w in schemas.perWorker.indices {
                    do {
                        if schema == SchemaPublisher.metaSchemaURI {
                            schemas.perWorker[w][schema] = try JSONSchemaValidator(schema: registry.document(schema) ?? true, registry: registry, baseURI: schema)
                        } else if let id = schemaIds[schema], let doc = registry.document(URIReferenceString.stripFragment(id)) {
                            schemas.perWorker[w][schema] = try JSONSchemaValidator(schema: doc, registry: registry, baseURI: id)
                        } else { schemas.errors[schema] = "the schema \(schema) is not a schema file of the tree" }
                    } catch { schemas.errors[schema] = "the schema \(schema) does not compile: \(error)" }
                }
            }
            return schemas
        }

        /// Every listed file on disk: its size, hash and schema, in parallel (largest first, so a big search index does
        /// not start last); problems reported in path order.
        mutating func checkFiles(_ listed: [String: JSON], _ schemas: Schemas, threads: Int) {
            let paths = Set(listed.keys).intersection(onDisk).sorted()
            let sizes = paths.map { listed[$0]?["size"]?.intValue ?? 0 }
            let order = paths.indices.sorted { (sizes[$0], $1) > (sizes[$1], $0) }
            let tree = tree
            let found = Parallel.map(paths.count, order: order, threads: threads) { worker, i in
                Self.problems(of: paths[i], listed: listed[paths[i]]!, in: tree, schemas.perWorker[worker], schemas.errors)
            }
            for (i, messages) in found.enumerated() { for m in messages { problem(paths[i], m) } }
            report.checked = paths.count
        }

        /// What is wrong with one listed file (nothing: empty).
        static func problems(of p: String, listed e: JSON, in tree: TreeReader, _ validators: [String: JSONSchemaValidator],
                             _ schemaErrors: [String: String]) -> [String] {
            let b: [UInt8]
            do { b = try tree.read(p) } catch { return ["\(error)"] }
            var found: [String] = []
            if b.count != e["size"]?.intValue { found.append("size \(b.count) != indexed \(e["size"]?.intValue.map(String.init) ?? "?")") }
            if hex(b) != e["sha256"]?.stringValue { found.append("sha256 differs from the index") }
            guard p.hasSuffix(".json") else { return found }
            guard let s = e["schema"]?.stringValue else { return found + ["JSON file without a schema in the index"] }
            if let err = schemaErrors[s] { found.append(err) }
            else if let v = validators[s] {
                // Checked from the bytes (no parse) when valid; parsed and evaluated for the errors.
                do {
                    if !v.isValid(text: b), let first = try v.validate(text: b).first {
                        found.append("schema error at \(first.instanceLocation.isEmpty ? "(root)" : first.instanceLocation) (keyword \(first.keywordLocation)): \(first.message)")
                    }
                } catch { found.append("invalid JSON: \(error)") }
            }
            return found
        }
    }
}
