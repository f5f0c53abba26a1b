import Foundation
import Schemas

/// One kind of output (a "page kind"): its name, the path template it is published under,
/// and the JSON Schema of its files. Each kind is declared once, beside the code that renders it,
/// so shape and schema cannot drift.
// A class, immutable: 100,000 files share one kind, and copying a file copies its kind; as a struct that was four
// reference counts on the same cache lines, bumped by both threads for every file.
public final class OutputKind: Sendable {
    /// Stable name; the schema is published at `schemas/{name}.schema.json`.
    public let name: String
    /// Path template of its files, e.g. `categories/{categoryId}.json` (documentation, OpenAPI).
    public let pathTemplate: String
    /// One sentence for the documentation and OpenAPI.
    public let summary: String
    /// Draft 2020-12 schema body; `$schema`, `$id` and `title` are added when published.
    public let schema: JSON
    /// Schemas of the parts of a file written from fragments (`Content.fragmented`), by name: when a build copies
    /// most of such a file from the previous tree, it checks the parts it rendered against these.
    public let fragments: [String: JSON]
    /// The type's name in `types/index.d.ts` when it is declared (a collection's `types`); otherwise the design
    /// documents' model name or the openapi.json component name (see `TypeScriptTypes`).
    public let typeName: String?
    /// The setting that makes its files smaller or leaves them out, named when one is over the target's file limit.
    public let sizeSetting: SizeSetting?

    public init(name: String, pathTemplate: String, summary: String, schema: JSON, fragments: [String: JSON] = [:], typeName: String? = nil,
                sizeSetting: SizeSetting? = nil) {
        self.name = name; self.pathTemplate = pathTemplate; self.summary = summary; self.schema = schema; self.fragments = fragments
        self.typeName = typeName; self.sizeSetting = sizeSetting
        self.schemaPath = "schemas/\(name).schema.json"
    }

    /// Where its schema is published (one string for every file of the kind: a million files name it).
    public let schemaPath: String
}

/// What a file written from fragments asks to have checked (see `OutputFile.Content.fragmented`): these bytes against
/// the kind's fragment schema of this name, or against the whole kind's schema when `fragment` is nil.
public struct FragmentCheck: Sendable {
    public var bytes: [UInt8]
    public var fragment: String?
    public init(bytes: [UInt8], fragment: String?) { self.bytes = bytes; self.fragment = fragment }
}
