import Foundation
import Schemas

/// The build validates every file against its kind's schema before anything is written, so the tree never
/// publishes a file that breaks its own contract. Each kind's schema is compiled once; the checker is then shared
/// by the workers that serialise the files (validation runs on each file's JSON just before its bytes are made, or on its bytes when it is written as text).
struct OutputValidation: Sendable {
    private var validators: [String: JSONSchemaValidator] = [:]
    private let meta: JSONSchemaValidator

    private let kinds: [OutputKind], baseURL: String

    init(kinds: [OutputKind], baseURL: String) throws {
        self.kinds = kinds; self.baseURL = baseURL
        let registry = SchemaRegistry()
        meta = try JSONSchemaValidator(schema: registry.documentForMeta(), registry: registry, baseURI: SchemaPublisher.metaSchemaURI)
        for k in kinds where validators[k.name] == nil && k.name != SchemaPublisher.metaKind.name {
            let doc = SchemaPublisher.document(for: k, baseURL: baseURL)
            do { validators[k.name] = try JSONSchemaValidator(schema: doc, registry: registry, baseURI: baseURL + k.schemaPath) }
            catch { throw BuildError(file: k.schemaPath, "the schema of kind \(k.name) does not compile: \(error)") }
            for (name, schema) in k.fragments {
                do { validators[k.name + "#" + name] = try JSONSchemaValidator(schema: schema, registry: registry, baseURI: baseURL + k.schemaPath) }
                catch { throw BuildError(file: k.schemaPath, "the \(name) fragment schema of kind \(k.name) does not compile: \(error)") }
            }
        }
    }

    /// The same schemas compiled again, for another worker: each walk takes and drops references to the compiled
    /// nodes, which is cheap on one core and slow when two cores do it to the same objects.
    func copy() throws -> OutputValidation { try OutputValidation(kinds: kinds, baseURL: baseURL) }

    private func validator(_ kind: OutputKind) -> JSONSchemaValidator {
        kind.name == SchemaPublisher.metaKind.name ? meta : validators[kind.name]!
    }

    /// The first violation of `json` against the schema of `kind`, as a build error naming file, field and keyword.
    func check(_ json: JSON, path: String, kind: OutputKind) -> BuildError? {
        let v = validator(kind)
        if v.isValid(json) { return nil }
        return violation(v.validate(json), path: path, kind: kind)
    }

    /// The same for a file written as text (`OutputFile.Content.streamed`): checked from its bytes, exactly as published.
    /// `fragment`: only a part of the file, checked against that fragment schema of the kind.
    func check(text: Span<UInt8>, path: String, kind: OutputKind, fragment: String? = nil) -> BuildError? {
        guard let v = fragment.map({ validators[kind.name + "#" + $0] }) ?? validator(kind) else {
            return BuildError(file: path, "kind \(kind.name) has no fragment schema \(fragment ?? "") (a bug in its writer)")
        }
        if v.isValid(text: text) { return nil }
        do { return violation(try v.validate(text: text), path: path, kind: kind) } catch {
            return BuildError(file: path, "is not well-formed JSON (a bug in its writer): \(error)")
        }
    }

    /// The same for text held in an array.
    func check(text: [UInt8], path: String, kind: OutputKind, fragment: String? = nil) -> BuildError? {
        let all = text[...]   // (`Array.span` needs macOS 26)
        return check(text: all.span, path: path, kind: kind, fragment: fragment)
    }

    private func violation(_ found: [ValidationError], path: String, kind: OutputKind) -> BuildError? {
        guard let first = found.first else { return nil }
        return BuildError(file: path, field: first.instanceLocation.isEmpty ? "(root)" : first.instanceLocation,
                          "violates its schema \(kind.schemaPath) at keyword \(first.keywordLocation): \(first.message)"
                          + (found.count > 1 ? " (and \(found.count - 1) more)" : ""))
    }
}

extension SchemaRegistry {
    /// The draft 2020-12 meta-schema document.
    func documentForMeta() -> JSON { document(SchemaPublisher.metaSchemaURI) ?? true }
}
