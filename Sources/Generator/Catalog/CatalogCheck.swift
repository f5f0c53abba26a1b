import Foundation
import Schemas

/// Check: turns raw records into the typed catalog, applying each anomaly policy in one place
/// and counting it for the build summary.
struct CatalogCheck {
    let settings: CatalogSettings
    let productsFile: String
    var report: [ReportItem] = []
    var errors: [BuildError] = []
    /// Ids claimed so far (their first line) and their files, across the batches of one products file.
    private var seenIds: [String: Int] = [:]
    private var collisions = CollisionDetector()

    init(settings: CatalogSettings, productsFile: String) {
        self.settings = settings; self.productsFile = productsFile
    }

    private mutating func note(_ key: String, _ count: Int, _ policy: String, _ examples: [String] = []) {
        report.append(ReportItem(domain: "catalog", key: key, count: count, policy: policy, examples: Array(examples.prefix(5))))
    }

    // MARK: Products

    /// One record checked on its own: its id (or the id's error), then the product or its first field error.
    /// (`folded`: the segment as the case-insensitive collision check compares it.)
    fileprivate struct Checked {
        var id: String?; var segment: String?; var folded = ""; var idError: BuildError?; var product: Fields?; var fieldError: BuildError?
    }

    /// A checked record's fields, until the store takes them.
    fileprivate struct Fields {
        var id, segment, name, description: String
        var brand, brandKey: String?
        var price: JSONNumber?
        var currency: String
        var inStock: Bool
        var imageUrl: String?
        var ratingAverage: Double?
        var ratingCount: Int
        var categoryId: String
        var extra: [(String, String)]
        var line: Int
    }

    /// Records are checked in parallel; ids (duplicates, case-insensitive file collisions) are then claimed in record
    /// order, so the errors and the products are the same whatever the thread count. Called once per batch of a
    /// file read in batches, in file order (ids are claimed across batches).
    mutating func products(_ records: [RawRecord], threads: Int = 1, into store: ProductStore.Builder) {
        var batch = checked(records, threads: threads)
        reserve(records.count, in: store)
        claim(&batch, records.indices, into: store)
    }

    /// Room for `count` more claims and products, made once for a batch (not per `claim`: growing a table by a few
    /// each time copies it each time).
    mutating func reserve(_ count: Int, in store: ProductStore.Builder) {
        store.records.reserveCapacity(store.records.count + count)
        seenIds.reserveCapacity(seenIds.count + count)
        collisions.reserve(count)
    }

    /// Records checked each on its own, their claims not yet made (`claim`).
    struct Batch {
        fileprivate var checked: [Checked]
        fileprivate let lines: [Int]
    }

    /// The first step of `products`: every record checked on its own, in parallel.
    func checked(_ records: [RawRecord], threads: Int) -> Batch {
        let f = settings.fields
        // Input names the mapping consumes (top-level names of dotted paths too), so the rest become specifications.
        let known = Set(f.values).union(f.values.map { String($0.split(separator: ".").first ?? "") })
        let paths = FieldPaths(Dictionary(uniqueKeysWithValues: f.map { ($0.key, $0.value.split(separator: ".").map(String.init)) }))
        return Batch(checked: Parallel.map(records.count, threads: threads) { check(records[$0], known: known, paths: paths) },
                     lines: records.map(\.line))
    }

    /// The second step: the claims of the records at `range` of a batch, in order, each product then stored.
    mutating func claim(_ batch: inout Batch, _ range: Range<Int>, into store: ProductStore.Builder) {
        let f = settings.fields
        // The claims are made in record order, one at a time: the lookups are all this loop does besides storing
        // (each check result is taken, swapped for an empty one, not copied; the tables have room for the batch: `reserve`).
        let lines = batch.lines
        for k in range {
            let line = lines[k]
            var c = Checked()
            swap(&c, &batch.checked[k])
            if let e = c.idError { errors.append(e); continue }
            let id = c.id!
            if let first = seenIds.updateValue(line, forKey: id) {
                seenIds[id] = first   // (the first line stays the one named)
                errors.append(BuildError(file: productsFile, line: line, field: f["id"]!, "duplicate product id \(Excerpt.quote(id)) (first seen on line \(first))")); continue
            }
            if let other = collisions.claim(folded: c.folded, id: id) {
                errors.append(BuildError(file: productsFile, line: line, field: f["id"]!, "product id \(Excerpt.quote(id)) maps to the same file as \(Excerpt.quote(other)) on a case-insensitive file system")); continue
            }
            if let e = c.fieldError { errors.append(e); continue }
            let p = c.product.take()!   // (taken: its strings are not retained again)
            store.append(id: p.id, segment: p.segment, name: p.name, description: p.description, brand: p.brand, brandKey: p.brandKey,
                         price: p.price, currency: p.currency, inStock: p.inStock, imageUrl: p.imageUrl, ratingAverage: p.ratingAverage,
                         ratingCount: p.ratingCount, categoryId: p.categoryId, extra: p.extra, line: p.line)
        }
    }

    /// Each logical field's input path, looked up once rather than by name for every field of every record.
    private struct FieldPaths {
        let id, name, description, brand, price, currency, inStock, imageUrl, ratingAverage, ratingCount, category: [String]
        init(_ p: [String: [String]]) {
            id = p["id"]!; name = p["name"]!; description = p["description"]!; brand = p["brand"]!; price = p["price"]!
            currency = p["currency"]!; inStock = p["inStock"]!; imageUrl = p["imageUrl"]!; ratingAverage = p["ratingAverage"]!
            ratingCount = p["ratingCount"]!; category = p["category"]!
        }
    }

    /// A field that breaks its policy: the input field's name and what is wrong.
    private struct FieldProblem: Error { let field: String; let message: String }

    /// One record checked: its id and path segment, then every field. A problem with the id is an `idError` (the
    /// record claims nothing), a problem with another field a `fieldError` (its id is still claimed).
    private func check(_ r: RawRecord, known: Set<String>, paths: FieldPaths) -> Checked {
        var result = Checked()
        do throws(FieldProblem) {
            let (id, segment) = try identity(r, paths)
            result.id = id; result.segment = segment; result.folded = segment.lowercased()
            result.product = try fields(r, id: id, segment: segment, known: known, paths: paths)
        } catch {
            let e = BuildError(file: productsFile, line: r.line, field: error.field, error.message)
            if result.segment == nil { result.idError = e } else { result.fieldError = e }
        }
        return result
    }

    /// A field's text as the products show it (numbers and booleans as their text); nil when absent or not a scalar.
    private func text(_ r: RawRecord, _ path: [String]) -> String? {
        switch r.value(path) {
        case .string(let s)?: return s.trimmedFast
        case .number(let n)?: return n.description
        case .bool(let b)?: return b ? "true" : "false"
        default: return nil
        }
    }

    /// The record's id and the path segment its files are named by.
    private func identity(_ r: RawRecord, _ paths: FieldPaths) throws(FieldProblem) -> (id: String, segment: String) {
        let field = settings.fields["id"]!
        if case .json(let j) = r.source, j.objectValue == nil {
            throw FieldProblem(field: field, message: "expected a JSON object per record, found \(j.typeName)")
        }
        guard let id = text(r, paths.id), !id.isEmpty else { throw FieldProblem(field: field, message: "is missing (every product needs an id)") }
        do { return (id, try SafePath.segment(id)) } catch { throw FieldProblem(field: field, message: "product id \(Excerpt.quote(id)) \(error)") }
    }

    /// Every other field of a record whose id is known.
    private func fields(_ r: RawRecord, id: String, segment: String, known: Set<String>, paths: FieldPaths) throws(FieldProblem) -> Fields {
        guard let name = text(r, paths.name), !name.isEmpty else {
            throw FieldProblem(field: settings.fields["name"]!, message: "is missing (product \(Excerpt.quote(id)))")
        }
        let brand = text(r, paths.brand).flatMap { $0.isEmpty ? nil : $0 }
        return Fields(id: id, segment: segment, name: name, description: text(r, paths.description) ?? "",
                      brand: brand, brandKey: brand.map(CatalogCheck.brandKey),
                      price: try price(r, paths), currency: text(r, paths.currency) ?? "USD", inStock: try inStock(r, paths),
                      imageUrl: text(r, paths.imageUrl).flatMap { $0.isEmpty ? nil : $0 },
                      ratingAverage: try ratingAverage(r, paths), ratingCount: try ratingCount(r, paths),
                      categoryId: text(r, paths.category) ?? "", extra: extraFields(r, known: known), line: r.line)
    }

    /// The price, exactly as written (its literal) once it is known to be money an exact decimal carries (see
    /// `Money`); nil when there is none.
    private func price(_ r: RawRecord, _ paths: FieldPaths) throws(FieldProblem) -> JSONNumber? {
        let field = settings.fields["price"]!
        switch r.value(paths.price) {
        case .number(let n)?:
            let negative: Bool
            do { negative = try Money.check(n) } catch { throw FieldProblem(field: field, message: "\(error)") }
            if negative { throw FieldProblem(field: field, message: "must be a non-negative number, found \(n)") }
            return n
        case .string(let s)?:
            if s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return nil }
            let d: Decimal
            do { d = try Money.parse(s) } catch { throw FieldProblem(field: field, message: "is not a price: \(error)") }
            if d < 0 { throw FieldProblem(field: field, message: "must be a non-negative number, found \(Money.quote(s))") }
            return JSONNumber(d)
        case nil, .null?: return nil
        case let v?: throw FieldProblem(field: field, message: "expected a number, found \(v.typeName)")
        }
    }

    /// In stock unless the record says otherwise (true/false, yes/no, 1/0, y/n).
    private func inStock(_ r: RawRecord, _ paths: FieldPaths) throws(FieldProblem) -> Bool {
        let field = settings.fields["inStock"]!
        switch r.value(paths.inStock) {
        case .bool(let b)?: return b
        case .string(let s)?:
            switch s.lowercased() {
            case "true", "yes", "1", "y": return true
            case "false", "no", "0", "n": return false
            default: throw FieldProblem(field: field, message: "expected true or false, found \(Excerpt.quote(s))")
            }
        case nil, .null?: return true
        case let v?: throw FieldProblem(field: field, message: "expected true or false, found \(v.typeName)")
        }
    }

    private func ratingAverage(_ r: RawRecord, _ paths: FieldPaths) throws(FieldProblem) -> Double? {
        guard let v = r.value(paths.ratingAverage), !v.isNull else { return nil }
        guard let d = v.doubleValue ?? v.stringValue.flatMap(Double.init), d >= 0, d <= 5 else {
            throw FieldProblem(field: settings.fields["ratingAverage"]!, message: "expected a rating between 0 and 5, found \(Excerpt.text(v.compactText))")
        }
        return d
    }

    private func ratingCount(_ r: RawRecord, _ paths: FieldPaths) throws(FieldProblem) -> Int {
        guard let v = r.value(paths.ratingCount), !v.isNull else { return 0 }
        guard let n = v.intValue ?? v.stringValue.flatMap({ Int($0) }), n >= 0 else {
            throw FieldProblem(field: settings.fields["ratingCount"]!, message: "expected a whole number of reviews, found \(Excerpt.text(v.compactText))")
        }
        return n
    }

    /// The record's other fields, shown as specifications on its page: a JSON record's scalars in its order, a CSV
    /// row's non-empty cells by column name.
    private func extraFields(_ r: RawRecord, known: Set<String>) -> [(String, String)] {
        var extra: [(String, String)] = []
        if case .json(let j) = r.source, let o = j.objectValue {
            for m in o.members where !known.contains(m.key) {
                switch m.value {
                case .string(let s): extra.append((m.key, s))
                case .number(let n): extra.append((m.key, n.description))
                case .bool(let b): extra.append((m.key, b ? "Yes" : "No"))
                default: break
                }
            }
        } else if case .csv(let row) = r.source {
            for (k, v) in row.sorted(by: { $0.key < $1.key }) where !known.contains(k) && !v.isEmpty { extra.append((k, v)) }
        }
        return extra
    }

    /// Case- and diacritic-folded brand key: DEWALT, Dewalt and DeWALT are one brand.
    static func brandKey(_ brand: String) -> String {
        if brand.utf8.allSatisfy({ $0 < 0x80 }) {  // fast path: ASCII needs only lowercasing
            return brand.lowercased().split(separator: " ").joined(separator: " ")
        }
        return brand.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .split(whereSeparator: { $0 == " " }).joined(separator: " ")
    }

    // MARK: Category tree

    /// `lines`: the line each entry starts on (see `ProductFileReader.entryLines`); entry numbers when absent.
    mutating func categories(_ json: JSON, file: String, lines: [Int] = []) -> (nodes: [String: CategoryNode], order: [String]) {
        var nodes: [String: CategoryNode] = [:]
        var order: [String] = []
        guard let list = json["categories"]?.arrayValue ?? json.arrayValue else {
            errors.append(BuildError(file: file, "expected {\"categories\": [{\"id\", \"name\", \"parent\"}, …]}"))
            return ([:], [])
        }
        var collisions = CollisionDetector()
        var records: [String: Int] = [:]
        for (i, c) in list.enumerated() {
            let rec = lines.count == list.count ? lines[i] : i + 1
            guard let id = c["id"]?.stringValue, !id.isEmpty else { errors.append(BuildError(file: file, line: rec, field: "id", "is missing (entry \(i + 1))")); continue }
            guard let name = c["name"]?.stringValue else { errors.append(BuildError(file: file, line: rec, field: "name", "is missing for category \(Excerpt.quote(id))")); continue }
            let parent = c["parent"]?.stringValue
            if nodes[id] != nil { errors.append(BuildError(file: file, line: rec, field: "id", "duplicate category id \(Excerpt.quote(id))")); continue }
            let path: String
            do { path = try SafePath.nested(id) } catch { errors.append(BuildError(file: file, line: rec, field: "id", "category id \(Excerpt.quote(id)) \(error)")); continue }
            if let other = collisions.claim(path: path, id: id) {
                errors.append(BuildError(file: file, line: rec, field: "id", "category id \(Excerpt.quote(id)) maps to the same file as \(Excerpt.quote(other))")); continue
            }
            nodes[id] = CategoryNode(id: id, path: path, name: name, parent: parent, children: [], synthetic: false)
            order.append(id)
            records[id] = rec
        }
        for id in order { if let p = nodes[id]!.parent, nodes[p] == nil {
            errors.append(BuildError(file: file, field: "parent", "category \(Excerpt.quote(id)) names a parent \(Excerpt.quote(p)) that is not in the tree"))
        } }
        // Every parent chain must end at a top-level category: the categories of a cycle would belong to no tree.
        var reported: Set<[String]> = []
        for id in order {
            var chain = [id], cur = nodes[id]!.parent
            while let p = cur, let node = nodes[p] {
                if let k = chain.firstIndex(of: p) {
                    let cycle = Array(chain[k...])
                    if reported.insert(cycle.sorted()).inserted {
                        errors.append(BuildError(file: file, line: records[p], field: "parent",
                                                 "category \(Excerpt.quote(p)) is its own ancestor (\(Excerpt.text((cycle + [p]).joined(separator: " → "), limit: 200)))"))
                    }
                    break
                }
                chain.append(p); cur = node.parent
            }
        }
        return (nodes, order)
    }

    /// Title-cases a slug for categories created from product paths ("impact-drivers" → "Impact Drivers").
    static func nameFromSlug(_ slug: String) -> String {
        slug.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}

extension String {
    /// Trims ASCII whitespace without Foundation's CharacterSet machinery (hot path: every field of every record).
    var trimmedFast: String {
        let u = utf8
        guard let first = u.first, let last = u.last else { return self }
        func ws(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        if !ws(first) && !ws(last) { return self }
        var lo = u.startIndex, hi = u.endIndex
        while lo < hi, ws(u[lo]) { lo = u.index(after: lo) }
        while hi > lo, ws(u[u.index(before: hi)]) { hi = u.index(before: hi) }
        return String(self[lo..<hi])
    }
}
