import Foundation
import LowLevel

/// Known schema documents by URI, for `$ref`, `$dynamicRef` and `$schema`. Nothing is ever fetched:
/// a reference to an unknown document is an error. The draft 2020-12 meta-schemas are always known.
///
/// (Sendable, unchecked by the compiler: documents may be added from any thread, so the dictionary is behind a lock; `Mutex`, which
/// would let the compiler check it, needs macOS 15.)
public final class SchemaRegistry: Sendable {
    private let documents = Locked([String: JSON]())

    public init(includeMetaSchemas: Bool = true) {
        if includeMetaSchemas { documents.withLock { for (uri, doc) in MetaSchemas.all { $0[uri] = doc } } }
    }

    /// Registers a document under a URI (its `$id` wins for resolution inside it when it has one).
    public func add(_ document: JSON, uri: String) {
        documents.withLock { documents in
            documents[URIReference(uri).withoutFragment.string] = document
            if let id = document["$id"]?.stringValue {
                documents[URIReference(id).resolved(against: URIReference(uri)).withoutFragment.string] = document
            }
        }
    }

    /// Registers every `*.json` file under a folder as `baseURI` + relative path (the test suite's remotes).
    public func addFolder(_ folder: URL, baseURI: String) throws {
        let fm = FileManager.default
        guard let e = fm.enumerator(at: folder, includingPropertiesForKeys: nil) else { return }
        let root = folder.standardizedFileURL.path
        for case let url as URL in e where url.pathExtension == "json" {
            let rel = String(url.standardizedFileURL.path.dropFirst(root.count + 1))
            add(try JSONReader.parse(Data(contentsOf: url)), uri: baseURI + rel)
        }
    }

    public func document(_ uri: String) -> JSON? {
        documents.withLock { $0[uri] }
    }
}

/// The draft 2020-12 meta-schemas, bundled as resources of this module.
enum MetaSchemas {
    static let names = ["schema", "meta/core", "meta/applicator", "meta/unevaluated", "meta/validation",
                        "meta/meta-data", "meta/format-annotation", "meta/format-assertion", "meta/content"]

    static let all: [(String, JSON)] = {
        names.compactMap { name in
            let file = name.replacingOccurrences(of: "/", with: "-")
            guard let url = Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "MetaSchemas"),
                  let data = try? Data(contentsOf: url), let json = try? JSONReader.parse(data) else { return nil }
            return ("https://json-schema.org/draft/2020-12/\(name)", json)
        }
    }()
}
