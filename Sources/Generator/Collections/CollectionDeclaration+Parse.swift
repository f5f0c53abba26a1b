import Foundation
import Schemas

extension CollectionDeclaration {
    /// A declaration file: JSON, checked against the declaration schema, then read strictly (`parse`).
    public static func load(_ url: URL, display: String) throws -> CollectionDeclaration {
        // `url` is resolved (see `InputFiles.resolve`); the collection is named after the file as listed.
        let data = try InputFiles.read(url, display: display)
        let json: JSON
        do { json = try JSONReader.parse(data) } catch let e as JSONSyntaxError {
            throw BuildError(file: display, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
        }
        let name = ((display as NSString).lastPathComponent as NSString).deletingPathExtension
        // First against the declaration schema (errors name the exact location), then read strictly.
        if let first = schemaValidator.validate(json).first {
            throw BuildError(file: display, field: first.instanceLocation.isEmpty ? "(root)" : first.instanceLocation,
                             "does not fit the collection declaration schema (keyword \(first.keywordLocation)): \(first.message)")
        }
        return try parse(json, name: name, file: display)
    }

    /// Reads a declaration strictly: each part (fields, list shape, sort, search, facets, type names) in turn, each
    /// checked against the declared fields.
    public static func parse(_ json: JSON, name: String, file: String) throws -> CollectionDeclaration {
        guard (try? SafePath.segment(name)) == name, name.first?.isLetter == true else {
            throw BuildError(file: file, "collection name \(Excerpt.quote(name)) (the file name) must be a plain path segment starting with a letter")
        }
        var o = try StrictObject(json, file: file)
        _ = o.raw("$schema")  // editors may point at the published declaration schema
        let title = try o.string("title", default: name)
        let sources = try o.stringArray("sources")
        if sources.isEmpty { throw BuildError(file: file, field: "sources", "needs at least one source file") }
        let idField = try o.string("id")
        let keyStyle = try KeyStyle(rawValue: o.string("keyStyle", default: "snake_case")).orThrow(BuildError(file: file, field: "keyStyle", "must be snake_case or camelCase"))
        let fields = try parseFields(o.raw("fields"), idField: idField, file: file)
        let list = try parseList(o.object("list"), fields: fields, keyStyle: keyStyle, file: file)
        let sort = try parseSort(o.raw("sort"), fields: fields, file: file)
        let search = try parseSearch(o.raw("search"), fields: fields, file: file)
        let facets = try o.stringArray("facets", default: [])
        try checkFacets(facets, fields: fields, file: file)
        let ranges = try parseRanges(o.raw("ranges"), fields: fields, file: file)
        let typeNames = try parseTypeNames(o.raw("types"), file: file)
        try o.finish()
        var declaration = CollectionDeclaration(name: name, file: file, title: title, sources: sources, idField: idField, fields: fields,
                                                keyStyle: keyStyle, list: list, sort: sort, search: search, facets: facets)
        declaration.typeNames = typeNames
        declaration.ranges = ranges
        return declaration
    }

    /// `fields`: at least one, in output order; the id names one of them, a required, non-null string or integer.
    static func parseFields(_ json: JSON?, idField: String, file: String) throws -> [Field] {
        guard case .object(let fieldObjects)? = json, !fieldObjects.isEmpty else {
            throw BuildError(file: file, field: "fields", "is required: an object of field declarations, in output order")
        }
        var fields: [Field] = []
        for m in fieldObjects.members {
            fields.append(try parseField(m.key, m.value, file: file))
        }
        guard let idDecl = fields.first(where: { $0.key == idField }) else {
            throw BuildError(file: file, field: "id", "names \(Excerpt.quote(idField)), which is not a declared field")
        }
        guard [.string, .integer].contains(idDecl.type), idDecl.required, !idDecl.nullable else {
            throw BuildError(file: file, field: "fields.\(idField)", "the id field must be a required, non-null string or integer")
        }
        return fields
    }

    /// `list`: the keys of a list page (distinct; by default in the key style), its size and the fields of each item.
    static func parseList(_ object: StrictObject?, fields: [Field], keyStyle: KeyStyle, file: String) throws -> ListShape {
        let camel = keyStyle == .camelCase
        var listShape = ListShape(items: "items", total: "total", page: "page", perPage: camel ? "perPage" : "per_page",
                                  totalPages: camel ? "totalPages" : "total_pages", pageSize: 50, fields: fields.map(\.key))
        guard var l = object else { return listShape }
        listShape.items = try l.string("itemsKey", default: listShape.items)
        listShape.total = try l.string("totalKey", default: listShape.total)
        listShape.page = try l.string("pageKey", default: listShape.page)
        listShape.perPage = try l.string("perPageKey", default: listShape.perPage)
        listShape.totalPages = try l.string("totalPagesKey", default: listShape.totalPages)
        listShape.pageSize = try l.int("pageSize", default: 50, min: 1, max: 10_000)
        listShape.fields = try l.stringArray("fields", default: listShape.fields)
        try l.finish()
        let keys = [listShape.items, listShape.total, listShape.page, listShape.perPage, listShape.totalPages]
        if Set(keys).count != keys.count { throw BuildError(file: file, field: "list", "the page keys must differ from each other") }
        for f in listShape.fields where !fields.contains(where: { $0.key == f }) {
            throw BuildError(file: file, field: "list.fields", "names \(Excerpt.quote(f)), which is not a declared field")
        }
        return listShape
    }

    /// `sort`: an array of `{field, order}`, each a declared field that is not an array, `asc` or `desc`.
    static func parseSort(_ json: JSON?, fields: [Field], file: String) throws -> [SortKey] {
        guard let json else { return [] }
        guard case .array(let items) = json else { throw BuildError(file: file, field: "sort", "expected an array, found \(json.typeName)") }
        var sort: [SortKey] = []
        for (i, item) in items.enumerated() {
            var s = try StrictObject(item, file: file, path: "sort[\(i)]")
            let f = try s.string("field")
            let order = try s.string("order", default: "asc")
            try s.finish()
            guard let decl = fields.first(where: { $0.key == f }) else { throw BuildError(file: file, field: "sort[\(i)].field", "names \(Excerpt.quote(f)), which is not a declared field") }
            guard decl.type != .stringArray else { throw BuildError(file: file, field: "sort[\(i)].field", "cannot sort by an array field") }
            guard order == "asc" || order == "desc" else { throw BuildError(file: file, field: "sort[\(i)].order", "must be asc or desc") }
            sort.append(SortKey(field: f, descending: order == "desc"))
        }
        return sort
    }

    /// `search`: `{field: weight}`, each weight positive, each field a declared text field.
    static func parseSearch(_ json: JSON?, fields: [Field], file: String) throws -> [(field: String, weight: Double)] {
        guard let json else { return [] }
        guard case .object(let so) = json else { throw BuildError(file: file, field: "search", "expected an object {field: weight}") }
        var search: [(field: String, weight: Double)] = []
        for m in so.members {
            guard let w = m.value.doubleValue, w > 0 else { throw BuildError(file: file, field: "search.\(m.key)", "the weight must be a positive number") }
            guard let d = fields.first(where: { $0.key == m.key }) else { throw BuildError(file: file, field: "search.\(m.key)", "is not a declared field") }
            guard [.string, .enumeration, .stringArray, .url].contains(d.type) else {
                throw BuildError(file: file, field: "search.\(m.key)", "only text fields (string, enum, array) can be searched")
            }
            search.append((m.key, w))
        }
        return search
    }

    /// `facets`: declared fields whose values can be counted (enum, boolean, string or array).
    static func checkFacets(_ facets: [String], fields: [Field], file: String) throws {
        for f in facets {
            guard let d = fields.first(where: { $0.key == f }) else { throw BuildError(file: file, field: "facets", "names \(Excerpt.quote(f)), which is not a declared field") }
            guard [.enumeration, .boolean, .string, .stringArray].contains(d.type) else {
                throw BuildError(file: file, field: "facets", "\(Excerpt.quote(f)) is \(d.type.rawValue); facets count values of enum, boolean, string or array fields")
            }
        }
    }

    /// `ranges`: `{field: [edge, …]}`, numeric fields whose search results can be filtered and counted by range, each
    /// with ascending edges (`[250000, 500000]` gives `..250000`, `250000..500000`, `500000..`).
    static func parseRanges(_ json: JSON?, fields: [Field], file: String) throws -> [(field: String, edges: [Double])] {
        guard let json else { return [] }
        guard case .object(let o) = json else { throw BuildError(file: file, field: "ranges", "expected an object {field: [edge, …]}") }
        return try o.members.map { m in
            guard let d = fields.first(where: { $0.key == m.key }) else { throw BuildError(file: file, field: "ranges.\(m.key)", "is not a declared field") }
            guard [.integer, .decimal, .number].contains(d.type) else {
                throw BuildError(file: file, field: "ranges.\(m.key)", "is \(d.type.rawValue); ranges need an integer, decimal or number field")
            }
            let edges = (m.value.arrayValue ?? []).compactMap(\.doubleValue)
            guard !edges.isEmpty, edges.count == m.value.arrayValue?.count, zip(edges, edges.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw BuildError(file: file, field: "ranges.\(m.key)", "expected a list of ascending numbers (the edges between ranges)")
            }
            return (m.key, edges)
        }
    }

    /// `types`: the TypeScript names of the `item`, `page` and `index` kinds, each a capitalised identifier.
    static func parseTypeNames(_ json: JSON?, file: String) throws -> [String: String] {
        guard let json else { return [:] }
        var typeNames: [String: String] = [:]
        var t = try StrictObject(json, file: file, path: "types")
        for key in ["item", "page", "index"] {
            guard let n = try t.optionalString(key) else { continue }
            guard n.range(of: "^[A-Z][A-Za-z0-9]*$", options: .regularExpression) != nil else {
                throw BuildError(file: file, field: "types.\(key)", "\(Excerpt.quote(n)) is not a type name (a capital letter, then letters and digits)")
            }
            typeNames[key] = n
        }
        try t.finish()
        return typeNames
    }

    static func parseField(_ key: String, _ json: JSON, file: String) throws -> Field {
        var f = try StrictObject(json, file: file, path: "fields.\(key)")
        let typeName = try f.string("type")
        guard let type = FieldType(rawValue: typeName) else {
            throw BuildError(file: file, field: "fields.\(key).type", "unknown type \(Excerpt.quote(typeName)) (one of \(FieldType.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let from = try f.string("from", default: key)
        let required = try f.bool("required", default: true)
        let nullable = try f.bool("nullable", default: false)
        var values: [String] = []
        if type == .enumeration {
            values = try f.stringArray("values")
            if values.isEmpty || Set(values).count != values.count { throw BuildError(file: file, field: "fields.\(key).values", "needs distinct values") }
        }
        var zone = TimeZone(identifier: "UTC")!
        if type == .dateTime, let z = try f.optionalString("timeZone") {
            guard let tz = TimeZone(identifier: z) else { throw BuildError(file: file, field: "fields.\(key).timeZone", "unknown time zone \(Excerpt.quote(z)) (an IANA name such as America/New_York)") }
            zone = tz
        }
        let separator = type == .stringArray ? try f.string("separator", default: "|") : "|"
        var minimum: Decimal?, maximum: Decimal?
        if [.integer, .decimal, .number].contains(type) {
            // Exact bounds (n.decimal of 1e200 is NaN, which no value is below or above: the bound was silently gone).
            func bound(_ name: String) throws -> Decimal? {
                guard let m = f.raw(name) else { return nil }
                guard let n = m.numberValue else { throw BuildError(file: file, field: "fields.\(key).\(name)", "expected a number") }
                do { return try Money.decimal(n) } catch {
                    throw BuildError(file: file, field: "fields.\(key).\(name)", "\(error)")
                }
            }
            minimum = try bound("minimum")
            maximum = try bound("maximum")
        }
        try f.finish()
        return Field(key: key, from: from, type: type, required: required, nullable: nullable, values: values,
                     timeZone: zone, separator: separator, minimum: minimum, maximum: maximum)
    }
}
