/// Sorted orders a build keeps in its cache for the next one (`DomainResult.keptOrders`, `BuildCache.keptOrders`): the search order,
/// the products' id and popularity orders, the files' order by path. Each comparison is a strict total order (it ends
/// with a unique key), so the sorted order is unique, and a kept order that lists every item once, each strictly before
/// the next, is it: one pass instead of a sort, when nothing moved (a price changed).
enum KeptOrder {
    /// `order` (from the build cache, so not trusted) when it is the order of `count` items by `precedes` (on their
    /// indices); nil when it is not (an item added, removed or moved, or a damaged cache).
    static func taken(_ order: [Int32]?, count: Int, by precedes: (Int, Int) -> Bool) -> [Int]? {
        guard let order, order.count == count else { return nil }
        var seen = [Bool](repeating: false, count: count)
        var result: [Int] = []
        result.reserveCapacity(count)
        for v in order {
            let i = Int(v)
            guard i >= 0, i < count, !seen[i] else { return nil }
            if let last = result.last, !precedes(last, i) { return nil }
            seen[i] = true
            result.append(i)
        }
        return result
    }

    /// The order of `count` items by `precedes`: `kept` when it still is (`taken`), else sorted.
    static func order(_ kept: [Int32]?, count: Int, by precedes: (Int, Int) -> Bool) -> (order: [Int], taken: Bool) {
        if let order = taken(kept, count: count, by: precedes) { return (order, true) }
        return ((0..<count).sorted(by: precedes), false)
    }

    /// An order as the build cache keeps it.
    static func keep(_ order: [Int]) -> [Int32] { order.map { Int32(truncatingIfNeeded: $0) } }
}
