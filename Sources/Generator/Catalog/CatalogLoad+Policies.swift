import Foundation

/// The catalog's data policies, each in one place and each counted in the build summary.
extension CatalogLoad {
    /// Anomalies counted over every product read, before any is left out (per category id, not per product).
    struct Anomalies { var missingBrand = 0, missingCategory = 0, unknownCategory = 0 }

    mutating func countAnomalies() -> Anomalies {
        let emptyCategory = store.intern("", in: .category)
        var perCategory = [Int](repeating: 0, count: store.categoryIds.count)
        var out = Anomalies()
        for r in store.records {
            perCategory[Int(r.category)] += 1
            if r.brand < 0 { out.missingBrand += 1 }
        }
        out.missingCategory = perCategory[Int(emptyCategory)]
        for (k, id) in store.categoryIds.enumerated() where !id.isEmpty && nodes[id] == nil { out.unknownCategory += perCategory[k] }
        return out
    }

    /// Policy: unpriced products are not sellable listings (their text stays in the buffer, unused: a few bytes).
    /// Returns their ids, sorted.
    mutating func leaveOutUnpriced() -> [String] {
        let store = self.store
        let unpricedIds = store.records.filter { $0.price < 0 }.map(store.id).sorted()
        store.records.removeAll { $0.price < 0 }
        note("products without a price", unpricedIds.count, "left out of pages and indexes; ids listed here", unpricedIds)
        return unpricedIds
    }

    /// Policy: a product without a category goes to the uncategorized bucket (a top-level category).
    mutating func bucketUncategorized(missing: Int) throws {
        let emptyCategory = store.intern("", in: .category)
        let uncategorized = store.records.indices.filter { store.records[$0].category == emptyCategory }
        if !uncategorized.isEmpty {
            let uid = settings.uncategorizedId
            if nodes[uid] == nil {
                nodes[uid] = CategoryNode(id: uid, path: try SafePath.nested(uid), name: settings.uncategorizedName, parent: nil, children: [], synthetic: true)
                order.append(uid)
            }
            let bucket = store.intern(uid, in: .category)
            for i in uncategorized { store.records[i].category = bucket }
        }
        note("products without a category", missing, "listed under \"\(settings.uncategorizedId)\" (\(uncategorized.count) priced)",
             uncategorized.prefix(5).map { store.id(store.records[$0]) })
    }

    /// Policy: a category missing from the tree is created under its nearest existing ancestor (in the order products
    /// name them).
    mutating func createMissingCategories(namedBy products: Int) throws {
        var created: [String] = []
        var settled = [Bool](repeating: false, count: store.categoryIds.count)
        for r in store.records where !settled[Int(r.category)] {
            settled[Int(r.category)] = true
            var chain: [String] = []
            var cur = store.categoryIds[Int(r.category)]
            while nodes[cur] == nil {
                chain.append(cur)
                guard let slash = cur.lastIndex(of: "/") else { break }
                cur = String(cur[..<slash])
            }
            for id in chain.reversed() {
                let parent = id.lastIndex(of: "/").map { String(id[..<$0]) }
                let path: String
                do { path = try SafePath.nested(id) } catch {
                    throw BuildError(file: productsFile, line: Int(r.line), field: settings.fields["category"], "category \(Excerpt.quote(id)) \(error)")
                }
                let slug = String(id.split(separator: "/").last ?? Substring(id))
                nodes[id] = CategoryNode(id: id, path: path, name: CatalogCheck.nameFromSlug(slug), parent: parent.flatMap { nodes[$0] != nil ? $0 : nil },
                                         children: [], synthetic: true)
                order.append(id)
                created.append(id)
            }
        }
        note("categories missing from the tree", created.count, "created under their nearest ancestor (\(products) products name them)", created)
    }

    /// Policy: brand spellings that differ only by case or accents are one brand, shown in its most common spelling.
    /// Returns each brand key's spellings and their counts.
    mutating func mergeBrandSpellings() -> [String: [String: Int]] {
        var spellingCounts: [Int: [Int32: Int]] = [:]   // brand key → spelling → count (by table index)
        for r in store.records where r.brand >= 0 && r.brandKey >= 0 { spellingCounts[Int(r.brandKey), default: [:]][r.brand, default: 0] += 1 }
        var variants: [String: [String: Int]] = [:]
        for (k, counts) in spellingCounts {
            variants[store.brandKeys[k]] = Dictionary(uniqueKeysWithValues: counts.map { (store.brands[Int($0.key)], $0.value) })
        }
        var display = [Int32](repeating: -1, count: store.brandKeys.count)
        var merged = 0
        for (k, v) in variants {
            display[Int(store.intern(k, in: .brandKey))] = store.intern(v.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.first!.key, in: .brand)
            if v.count > 1 { merged += 1 }
        }
        for i in store.records.indices {
            let k = store.records[i].brandKey
            if k >= 0, store.records[i].brand >= 0, display[Int(k)] >= 0 { store.records[i].brand = display[Int(k)] }
        }
        note("brands with case variants", merged, "merged case-insensitively; the most common spelling is shown",
             variants.filter { $0.value.count > 1 }.keys.sorted().map { variants[$0]!.keys.sorted().joined(separator: "/") })
        return variants
    }
}
