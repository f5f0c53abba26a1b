import Foundation

/// The catalog's orders: products by id, categories depth first, products by Bayesian score within each subtree.
extension CatalogLoad {
    /// The products, sorted by id (ids are distinct): the build before's order when it still is (no product line added,
    /// removed or moved). Also the order itself, and each product's record as read (before the policies left some out
    /// and the id order moved them).
    mutating func productsInIdOrder(_ readRecords: [ProductStore.Record]) -> (ProductStore, byId: [Int], readIndex: [Int]) {
        let store = self.store, records = store.records, keptOrder = context.previous?.keptOrder(CatalogDomain.idOrderName)
        let (byId, taken) = store.withText { text in
            KeptOrder.order(keptOrder, count: records.count) { a, b in
                Product.precedes(text.extracting(records[a].idRange), text.extracting(records[b].idRange), ascii: records[a].ascii && records[b].ascii)
            }
        }
        if taken { context.previous?.note("product id order: taken from the build cache") }
        let products = store.finish(order: byId)
        let kept = readRecords.indices.filter { readRecords[$0].price >= 0 }
        return (products, byId, byId.map { kept[$0] })
    }

    /// Each category's children, then every category depth first, roots in the order they were declared or created.
    mutating func depthFirstOrder() -> [String] {
        for id in order { nodes[id]!.children = [] }
        for id in order { if let p = nodes[id]!.parent { nodes[p]!.children.append(id) } }
        var dfs: [String] = []
        func visit(_ id: String) { dfs.append(id); for c in nodes[id]!.children { visit(c) } }
        for id in order where nodes[id]!.parent == nil { visit(id) }
        return dfs
    }

    /// Each product's Bayesian average: (m·C + n·R) / (m + n), C the mean rating of rated products to the hundredth,
    /// m the prior weight. (Rounded: a product added or rated moves the exact mean by a hair, which moves every
    /// product's score and reorders whole category pages, so a release's delta would carry them all. To the
    /// hundredth, the mean stays, and so do the pages the change does not touch.)
    func popularity(_ products: ProductStore) -> [Double] {
        var ratedCount = 0, ratedSum = 0.0
        for p in products where p.ratingCount > 0 {
            if let r = p.ratingAverage { ratedCount += 1; ratedSum += r }
        }
        let c = ratedCount == 0 ? 0 : Self.hundredths(ratedSum / Double(ratedCount))
        let m = settings.ratingPrior
        return products.map { p -> Double in
            let n = Double(p.ratingAverage == nil ? 0 : p.ratingCount)
            return (m * c + n * (p.ratingAverage ?? 0)) / (m + n)
        }
    }

    /// Each category's products: its own (`direct`), and the distinct products of its whole subtree, by popularity
    /// then id (`subtree`); and the popularity order itself.
    struct CategoryLists { var subtree: [String: [Int]]; var direct: [String: [Int]]; var byPopularity: [Int] }

    func categoryLists(_ products: ProductStore, popularity: [Double], depthFirst dfs: [String]) -> CategoryLists {
        // Each category id of the table, once: its node's slot in the depth-first order, and its ancestors' slots.
        let slot = Dictionary(uniqueKeysWithValues: dfs.enumerated().map { ($1, $0) })
        let chains: [[Int]] = products.categoryIds.map { id in
            var out: [Int] = [], cur: String? = id
            while let x = cur, let node = nodes[x] { out.append(slot[x]!); cur = node.parent }
            return out
        }
        var directLists = [[Int]](repeating: [], count: dfs.count)
        for (i, p) in products.enumerated() { if let own = chains[p.categoryIndex].first { directLists[own].append(i) } }
        // One sort of all products (products are in id order, so the index breaks ties as the id would), then each
        // product joins its category and every ancestor: each list comes out in that order, each product once.
        // (The build before's order when it still is: no rating changed.)
        func popular(_ a: Int, _ b: Int) -> Bool { popularity[a] != popularity[b] ? popularity[a] > popularity[b] : a < b }
        let (byPopularity, taken) = KeptOrder.order(context.previous?.keptOrder(CatalogDomain.popularityOrderName), count: products.count, by: popular)
        if taken { context.previous?.note("popularity order: taken from the build cache") }
        var subtreeLists = [[Int]](repeating: [], count: dfs.count)
        for i in byPopularity { for k in chains[products[i].categoryIndex] { subtreeLists[k].append(i) } }
        var subtree: [String: [Int]] = [:], direct: [String: [Int]] = [:]
        for (k, id) in dfs.enumerated() {
            subtree[id] = subtreeLists[k]
            if !directLists[k].isEmpty { direct[id] = directLists[k] }
        }
        return .init(subtree: subtree, direct: direct, byPopularity: byPopularity)
    }
}
