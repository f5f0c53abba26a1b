import Foundation
import Schemas

/// The build validates every file against its kind's schema before anything is written, so the tree never
/// publishes a file that breaks its own contract. Each kind's schema is compiled once; files are checked in
/// parallel (results do not depend on the thread count: errors are reported in file order).
enum OutputValidation {
    static func validate(_ files: [OutputFile], baseURL: String, threads: Int) throws {
        var validators: [String: JSONSchemaValidator] = [:]
        let registry = SchemaRegistry()
        let meta = try JSONSchemaValidator(schema: registry.documentForMeta(), registry: registry, baseURI: SchemaPublisher.metaSchemaURI)
        for f in files {
            guard let k = f.kind, validators[k.name] == nil, k.name != SchemaPublisher.metaKind.name else { continue }
            let doc = SchemaPublisher.document(for: k, baseURL: baseURL)
            do { validators[k.name] = try JSONSchemaValidator(schema: doc, registry: registry, baseURI: baseURL + k.schemaPath) }
            catch { throw BuildError(file: k.schemaPath, "the schema of kind \(k.name) does not compile: \(error)") }
        }
        var found = [[ValidationError]?](repeating: nil, count: files.count)
        let chunks = max(1, min(files.count, threads * 8))
        found.withUnsafeMutableBufferPointer { out in
            DispatchQueue.concurrentPerform(iterations: chunks) { c in
                for i in (c * files.count / chunks)..<((c + 1) * files.count / chunks) {
                    guard case .json(let j) = files[i].content, let k = files[i].kind else { continue }
                    let v = k.name == SchemaPublisher.metaKind.name ? meta : validators[k.name]!
                    if !v.isValid(j) { out[i] = v.validate(j) }
                }
            }
        }
        var errors: [BuildError] = []
        for (i, e) in found.enumerated() {
            guard let e, let first = e.first else { continue }
            errors.append(BuildError(file: files[i].path, field: first.instanceLocation.isEmpty ? "(root)" : first.instanceLocation,
                                     "violates its schema \(files[i].kind!.schemaPath) at keyword \(first.keywordLocation): \(first.message)"
                                     + (e.count > 1 ? " (and \(e.count - 1) more)" : "")))
            if errors.count >= 20 { break }
        }
        if !errors.isEmpty { throw BuildErrors(errors) }
    }
}

extension SchemaRegistry {
    /// The draft 2020-12 meta-schema document.
    func documentForMeta() -> JSON { document(SchemaPublisher.metaSchemaURI) ?? true }
}
