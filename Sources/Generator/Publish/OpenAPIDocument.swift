import Foundation
import Schemas

/// `openapi.json`: an OpenAPI 3.1 description of the tree. Every path template becomes a GET operation whose
/// response schema `$ref`s its kind's JSON Schema, embedded under `components/schemas`, so standard OpenAPI tools
/// (swift-openapi-generator among them) can generate app clients from this one file.
///
/// Path templates come from the kinds' declarations. A parameter may stand for an id that maps to several path
/// segments (nested category ids such as `tools/power-drills`); OpenAPI parameters cannot hold a `/`, so such a
/// template is expanded into one path per depth that occurs in this tree (`{categoryId1}/{categoryId2}`).
public enum OpenAPIDocument {
    public static let path = "openapi.json"

    public static let kind = OutputKind(
        name: "openapi", pathTemplate: "openapi.json",
        summary: "OpenAPI 3.1 description of every path of the tree, each response schema a copy of its published JSON Schema under components/schemas.",
        schema: Schema.object([
            "openapi": Schema.string(pattern: #"^3\.1\.\d+$"#),
            "info": Schema.object(["title": Schema.nonEmptyString, "version": Schema.nonEmptyString, "description": Schema.string]),
            "servers": Schema.array(Schema.object(["url": Schema.url]), minItems: 1),
            "components": Schema.object(["schemas": .obj(["type": "object", "minProperties": 1,
                                                     "propertyNames": Schema.string(pattern: #"^[A-Za-z0-9._-]+$"#),
                                                     "additionalProperties": .obj(["type": "object"])])]),
            "paths": .obj(["type": "object", "minProperties": 1,
                           "propertyNames": Schema.string(pattern: "^/"),
                           "additionalProperties": .obj(["type": "object", "required": ["get"]])]),
        ]))

    /// A path template split into literal text and parameters.
    struct Template {
        enum Part: Equatable { case literal(String), parameter(String) }
        let parts: [Part]

        init(_ text: String) {
            var parts: [Part] = []
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                if open > rest.startIndex { parts.append(.literal(String(rest[..<open]))) }
                parts.append(.parameter(String(rest[rest.index(after: open)..<close])))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { parts.append(.literal(String(rest))) }
            self.parts = parts
        }

        /// The number of path segments each parameter takes in `path`, or nil when the path does not fit.
        /// Parameters take one segment when possible (left to right), more only when needed.
        func match(_ path: String) -> [Int]? {
            let chars = Array(path.utf8)
            return matchRanges(chars)?.map { r in chars[r].lazy.filter { $0 == UInt8(ascii: "/") }.count + 1 }
        }

        /// Where each parameter lies in the path's UTF-8 bytes (no text is made: every file of the tree is matched).
        func matchRanges(_ chars: [UInt8]) -> [Range<Int>]? {
            // On UTF-8 bytes: literals and "/" are ASCII, so byte positions split the path where characters would.
            let slash = UInt8(ascii: "/")
            func go(_ i: Int, _ pos: Int) -> [Range<Int>]? {
                if i == parts.count { return pos == chars.count ? [] : nil }
                switch parts[i] {
                case .literal(let lit):
                    let l = lit.utf8
                    guard pos + l.count <= chars.count, chars[pos..<pos + l.count].elementsEqual(l) else { return nil }
                    return go(i + 1, pos + l.count)
                case .parameter:
                    // Shortest value first: a parameter is non-empty; it may cross "/" only to fit the rest.
                    guard pos < chars.count, chars[pos] != slash else { return nil }
                    var end = pos + 1
                    while end <= chars.count {
                        if chars[end - 1] != slash, let rest = go(i + 1, end) {
                            return [pos..<end] + rest
                        }
                        end += 1
                    }
                    return nil
                }
            }
            return go(0, 0)
        }

        /// The template with each parameter spread over the given number of segments.
        func expanded(_ depths: [Int]) -> (path: String, parameters: [String]) {
            var out = "", names: [String] = [], p = 0
            for part in parts {
                switch part {
                case .literal(let l): out += l
                case .parameter(let name):
                    let d = depths[p]; p += 1
                    let segs = d == 1 ? [name] : (1...d).map { "\(name)\($0)" }
                    out += segs.map { "{\($0)}" }.joined(separator: "/")
                    names += segs
                }
            }
            return (out, names)
        }
    }

    /// Builds the document from the kinds in use and the files of the tree (path → the name of its kind, or of its
    /// asset kind for a non-JSON file). Throws when a file fits no template of its kind: the declaration and the
    /// emitter disagree.
    public static func render(kinds: [OutputKind], assets: [AssetKind] = [], files: [(path: String, kind: String?)], site: SiteConfig) throws -> JSON {
        let byName = Dictionary(kinds.map { ($0.name, $0.pathTemplate) } + assets.map { ($0.name, $0.pathTemplate) }, uniquingKeysWith: { a, _ in a })
        var scan = PathScan()
        for f in files { if let name = f.kind, let t = byName[name] { try scan.add(f.path, kind: name, template: t) } }
        return try render(kinds: kinds, assets: assets, scan: scan, site: site)
    }

    /// Which expansions of each kind's template occur in a tree, with an example of each, gathered a file at a time
    /// in the tree's order (a build scans its 100,000 paths while it writes the files).
    public struct PathScan: Sendable {
        var depthsByKind: [String: Set<[Int]>] = [:]
        var examples: [String: [String]] = [:]
        private var templates: [String: Template] = [:]
        // (Files of a kind come together and mostly share their depths: a run of the same kind and depths is
        // recorded once. 100,000 product pages are one run.)
        private var last: (kind: String, template: Template, depths: [Int])?
        /// The asset kinds of the files added (their order of first appearance).
        public private(set) var assets: [AssetKind] = []

        public init() {}

        /// A file of the tree (one of no kind is not described).
        public mutating func add(_ file: OutputFile) throws { try add(file.path, kind: file.kind, asset: file.asset) }

        /// A file's path with its kind, or its asset kind for a file that is not JSON.
        public mutating func add(_ path: String, kind: OutputKind?, asset: AssetKind?) throws {
            if let k = kind { try add(path, kind: k.name, template: k.pathTemplate) } else if let a = asset {
                if !assets.contains(a) { assets.append(a) }
                try add(path, kind: a.name, template: a.pathTemplate)
            }
        }

        /// A path of the given kind (name and path template). Throws when the path does not fit the template.
        public mutating func add(_ path: String, kind name: String, template pathTemplate: String) throws {
            let template: Template
            if let l = last, l.kind == name { template = l.template } else if let t = templates[name] { template = t } else {
                template = Template(pathTemplate); templates[name] = template
            }
            let chars = Array(path.utf8)
            guard let ranges = template.matchRanges(chars) else {
                throw BuildError(file: path, field: name, "does not fit its kind's path template \(pathTemplate)")
            }
            let d = ranges.map { r in chars[r].lazy.filter { $0 == UInt8(ascii: "/") }.count + 1 }
            if let l = last, l.kind == name, l.depths == d { return }
            if depthsByKind[name, default: []].insert(d).inserted {
                // The first file of each path is its parameters' example (tools and testers can reach a real file).
                examples[name + "\u{0}" + d.map(String.init).joined(separator: ",")] =
                    ranges.flatMap { String(decoding: chars[$0], as: UTF8.self).split(separator: "/").map(String.init) }
            }
            last = (name, template, d)
        }
    }

    /// The document from the kinds in use and the scan of the tree's paths.
    public static func render(kinds: [OutputKind], assets: [AssetKind], scan: PathScan, site: SiteConfig) throws -> JSON {
        let (depthsByKind, examples) = (scan.depthsByKind, scan.examples)
        /// Each expansion of a template that occurs in the tree: its path, parameters with their examples, and
        /// the depths when a parameter spans several segments.
        func expansions(_ name: String, _ pathTemplate: String) -> [(path: String, parameters: [(String, String)], variant: [Int]?)] {
            (depthsByKind[name] ?? []).sorted(by: { $0.lexicographicallyPrecedes($1) }).map { depths in
                let (p, params) = Template(pathTemplate).expanded(depths)
                let example = examples[name + "\u{0}" + depths.map(String.init).joined(separator: ",")] ?? []
                return ("/" + p, Array(zip(params, example)), depths.contains { $0 > 1 } ? depths : nil)
            }
        }
        var paths: [(String, JSON)] = []
        for k in kinds.sorted(by: { $0.name < $1.name }) {
            for e in expansions(k.name, k.pathTemplate) {
                paths.append((e.path, operation(kind: k, parameters: e.parameters, variant: e.variant)))
            }
        }
        // Files outside the JSON kinds: pages, pictures, scripts, markers.
        for a in assets.sorted(by: { $0.name < $1.name }) {
            for e in expansions(a.name, a.pathTemplate) {
                paths.append((e.path, operation(asset: a, parameters: e.parameters, variant: e.variant)))
            }
        }
        paths.sort { $0.0 < $1.0 }
        // Every schema inside the document (client generators such as swift-openapi-generator do not follow
        // references to other files, and validators need no base URI); the files under schemas/ stay for JSON Schema users.
        var schemas: [(String, JSON)] = []
        for k in kinds.sorted(by: { $0.name < $1.name }) where k.name != SchemaPublisher.metaKind.name && depthsByKind[k.name] != nil {
            guard case .object(var body) = SchemaPublisher.document(for: k, baseURL: site.baseURL) else { continue }
            body["$schema"] = nil
            body["$id"] = nil
            schemas.append((componentName(k), nullableAsTypeList(.object(body))))
        }
        return .obj([
            "openapi": "3.1.0",
            "info": .obj(["title": .string(site.siteName + " static JSON API"), "version": .string(site.appVersion),
                          "description": "Read-only JSON files served from static hosting. Start with update-manifest.json; every file is listed with its SHA-256 in the release's file index."]),
            // Without the base URL's final "/": OpenAPI appends paths that start with "/" to the server URL.
            "servers": .array([.obj(["url": .string(site.baseURL.hasSuffix("/") ? String(site.baseURL.dropLast()) : site.baseURL)])]),
            "paths": .object(JSONObject(paths)),
            "components": .obj(["schemas": .object(JSONObject(schemas))]),
        ])
    }

    /// The same schema with each `anyOf: [{type: T, …}, {type: null}]` written as `{type: [T, null], …}` (with null
    /// added to an `enum`): what JSON Schema accepts is unchanged, and it is the form of a nullable value that client
    /// generators turn into an optional (swift-openapi-generator skips a `{type: null}` branch, which makes a null fail).
    static func nullableAsTypeList(_ schema: JSON) -> JSON {
        switch schema {
        case .array(let items): return .array(items.map(nullableAsTypeList))
        case .object(var o):
            if let branches = o["anyOf"]?.arrayValue, branches.count == 2, o.count == 1,
               let i = branches.firstIndex(where: { $0 == .obj(["type": "null"]) }),
               case .object(var value) = branches[1 - i], let type = value["type"]?.stringValue,
               value["const"] == nil, value["anyOf"] == nil, value["oneOf"] == nil, value["allOf"] == nil {
                value["type"] = .array([.string(type), "null"])
                if let e = value["enum"]?.arrayValue, !e.contains(.null) { value["enum"] = .array(e + [.null]) }
                o = value
            }
            return .object(JSONObject(o.members.map { ($0.key, nullableAsTypeList($0.value)) }))
        default: return schema
        }
    }

    /// A kind's schema under `components/schemas`: its name in PascalCase (`product-details` → `ProductDetails`),
    /// which client generators turn into type names.
    static func componentName(_ kind: OutputKind) -> String {
        kind.name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A non-JSON file's operation: its media type, and a string body (an empty one for an empty marker).
    static func operation(asset: AssetKind, parameters: [(name: String, example: String)], variant: [Int]?) -> JSON {
        let body: JSON = asset.mediaType == "application/octet-stream" ? .obj(["type": "string", "maxLength": 0]) : .obj(["type": "string"])
        return operation(id: asset.name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(),
                         summary: asset.summary, parameters: parameters, variant: variant,
                         content: .obj([asset.mediaType: .obj(["schema": body])]))
    }

    /// `parameters`: each path parameter's name and an example value from the tree.
    static func operation(kind: OutputKind, parameters: [(name: String, example: String)], variant: [Int]?) -> JSON {
        // Schema files are themselves JSON Schemas: refer to the meta-schema by description only, so no tool
        // has to fetch json-schema.org to read this document.
        let schema: JSON = kind.name == SchemaPublisher.metaKind.name
            ? .obj(["type": "object", "description": .string("A JSON Schema document (\(SchemaPublisher.metaSchemaURI)).")])
            : .obj(["$ref": .string("#/components/schemas/" + componentName(kind))])
        return operation(id: componentName(kind), summary: kind.summary, parameters: parameters, variant: variant,
                         content: .obj(["application/json": .obj(["schema": schema])]))
    }

    static func operation(id: String, summary: String, parameters: [(name: String, example: String)], variant: [Int]?, content: JSON) -> JSON {
        var opId = id
        if let variant { opId += "Depth" + variant.map(String.init).joined(separator: "x") }
        var op = JSONObject([
            ("operationId", .string("get" + opId)),
            ("summary", .string(summary)),
        ])
        if !parameters.isEmpty {
            op.append("parameters", .array(parameters.map { p in
                // A segment of a file's path: never empty, "." or "..".
                .obj(["name": .string(p.name), "in": "path", "required": true,
                      "schema": .obj(["type": "string", "pattern": #"^(?!\.\.?$)[A-Za-z0-9._~-]+$"#]),
                      "example": .string(p.example)])
            }))
        }
        var responses = JSONObject([
            ("200", .obj(["description": .string(summary), "content": content])),
            ("404", .obj(["description": "Not in this release."])),
        ])
        if !parameters.isEmpty {
            // A parameter outside its pattern may make a path no file can have; a server may refuse it outright.
            responses.append("400", .obj(["description": "A path no file can have (a control character, an encoded \"/\", a \"..\" segment): refused."]))
        }
        op.append("responses", .object(responses))
        return .obj(["get": .object(op)])
    }
}
