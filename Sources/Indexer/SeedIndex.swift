import Foundation
import Schemas

/// One searchable product as the catalog design document's SearchIndex lists it.
public struct SearchDocument: Sendable {
    public var id: String
    public var name: String
    public var brand: String
    public var category: String
    public var description: String
    public var price: JSONNumber?
    public var rating: Double?
    public var imageUrl: String

    public init(id: String, name: String, brand: String, category: String, description: String,
                price: JSONNumber?, rating: Double?, imageUrl: String) {
        self.id = id; self.name = name; self.brand = brand; self.category = category
        self.description = description; self.price = price; self.rating = rating; self.imageUrl = imageUrl
    }
}

/// `search-index.json` and `search-index-compact.json` in the design document's SearchIndex shape. Its
/// SearchManager lowercases the query, splits it on spaces and unions `keywords[token]`, so the keys hold:
///
/// - full: every space-separated word of name, brand and category as typed (lowercased), the same without
///   surrounding punctuation, their folded and stemmed forms, and the terms of the description; each product
///   lists the keys it is indexed under as its `keywords`;
/// - compact: only the space-separated words of name, brand and category without surrounding punctuation, stop
///   words and single characters — words that client can send — no per-product keyword lists and no image URLs
///   (an app shows the image from the product's detail page).
public enum SeedIndex {
    public static func build(_ docs: [SearchDocument], version: String, generatedAt: String, compact: Bool, threads: Int = 1) -> JSON {
        // Each product's keys, computed in parallel chunks (results by index, so the output ignores thread count).
        var perDoc = [(keys: [String], json: JSON)?](repeating: nil, count: docs.count)
        let chunks = max(1, min(docs.count, threads * 8))
        perDoc.withUnsafeMutableBufferPointer { out in
            DispatchQueue.concurrentPerform(iterations: chunks) { c in
                for i in (c * docs.count / chunks)..<((c + 1) * docs.count / chunks) { out[i] = entry(docs[i], compact: compact) }
            }
        }
        var keywordIds: [String: [Int]] = [:]
        var productJSON: [JSON] = []
        productJSON.reserveCapacity(docs.count)
        for (i, e) in perDoc.enumerated() {
            for k in e!.keys { keywordIds[k, default: []].append(i) }
            productJSON.append(e!.json)
        }
        return finish(docs, keywordIds, productJSON, version: version, generatedAt: generatedAt)
    }

    static func entry(_ d: SearchDocument, compact: Bool) -> (keys: [String], json: JSON) {
        var keys = Set<String>()
        for text in [d.name, d.brand, d.category] { keys.formUnion(compact ? compactWords(text) : clientWords(text)) }
        var own: [String] = []
        if !compact {
            var terms = Set<String>()
            for text in [d.name, d.brand, d.category] {
                for w in Analyzer.words(text) { terms.insert(w); terms.insert(Analyzer.stem(w)) }
            }
            keys.formUnion(terms.filter { $0.count >= Analyzer.minimumLength })
            keys.formUnion(Analyzer.terms(d.description))
            keys.remove("")
            // A product lists exactly the keys it is indexed under.
            own = keys.sorted()
        }
        keys.remove("")
        return (Array(keys), .obj([
            "id": .string(d.id), "name": .string(d.name), "brand": .string(d.brand), "category": .string(d.category),
            "price": d.price.map(JSON.number) ?? .null, "rating": d.rating.map(JSON.double) ?? .null,
            "keywords": .strings(own), "imageUrl": .string(compact ? "" : d.imageUrl),
        ]))
    }

    static func finish(_ docs: [SearchDocument], _ keywordIds: [String: [Int]], _ productJSON: [JSON], version: String, generatedAt: String) -> JSON {
        func idMap(_ m: [String: [Int]]) -> JSON {
            .object(JSONObject(m.keys.sorted().map { k in (k, .strings(m[k]!.map { docs[$0].id })) }))
        }
        var categories: [String: [Int]] = [:], brands: [String: [Int]] = [:]
        for (i, d) in docs.enumerated() {
            categories[d.category, default: []].append(i)
            brands[d.brand, default: []].append(i)
        }
        return .obj([
            "version": .string(version), "generatedAt": .string(generatedAt), "totalProducts": .int(docs.count),
            "products": .array(productJSON), "keywords": idMap(keywordIds),
            "categories": idMap(categories), "brands": idMap(brands),
        ])
    }

    static let trimSet = CharacterSet.punctuationCharacters.union(.symbols)

    /// What the design document's client can look up for a text: its space-separated words, lowercased, as typed
    /// and without surrounding punctuation ("drill," → "drill,", "drill").
    public static func clientWords(_ text: String) -> Set<String> {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text, raw: true, compact: false) }
        return foundationWords(text, compact: false)
    }

    /// The general path (any Unicode text), with Foundation's punctuation and symbol sets.
    static func foundationWords(_ text: String, compact: Bool) -> Set<String> {
        if compact {
            var out = Set<String>()
            for w in text.lowercased().split(separator: " ") {
                let trimmed = w.trimmingCharacters(in: trimSet)
                if trimmed.count >= Analyzer.minimumLength, !Analyzer.stopWords.contains(trimmed) { out.insert(trimmed) }
            }
            return out
        }
        var out = Set<String>()
        for w in text.lowercased().split(separator: " ") {
            out.insert(String(w))
            let trimmed = w.trimmingCharacters(in: trimSet)
            if !trimmed.isEmpty { out.insert(trimmed) }
        }
        return out
    }

    /// The compact index's keys for a text: its space-separated words, lowercased, without surrounding punctuation,
    /// leaving out stop words and single characters.
    public static func compactWords(_ text: String) -> Set<String> {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text, raw: false, compact: true) }
        return foundationWords(text, compact: true)
    }

    /// clientWords / compactWords on ASCII text: lowercase bytes, split on spaces, trim ASCII punctuation and symbols
    /// (the ASCII members of those character sets).
    static func asciiWords(_ text: String, raw: Bool, compact: Bool) -> Set<String> {
        var b = Array(text.utf8)
        for i in b.indices where b[i] >= 0x41 && b[i] <= 0x5A { b[i] += 32 }
        @inline(__always) func isPunct(_ c: UInt8) -> Bool { (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E) }
        var out = Set<String>()
        var start = 0
        for k in 0...b.count where k == b.count || b[k] == 0x20 {
            if k > start {
                if raw { out.insert(String(decoding: b[start..<k], as: UTF8.self)) }
                var lo = start, hi = k
                while lo < hi && isPunct(b[lo]) { lo += 1 }
                while hi > lo && isPunct(b[hi - 1]) { hi -= 1 }
                if hi > lo {
                    let w = String(decoding: b[lo..<hi], as: UTF8.self)
                    if !compact || (hi - lo >= Analyzer.minimumLength && !Analyzer.stopWords.contains(w)) { out.insert(w) }
                }
            }
            start = k + 1
        }
        return out
    }

    /// The design document's SearchManager, verbatim in behaviour: lowercase, split on spaces, union of keyword ids,
    /// results in index order. Load an index once, then query it many times.
    public struct Client {
        let keywords: [String: [String]]
        let order: [String]

        public init(_ index: JSON) {
            var k: [String: [String]] = [:]
            for m in index["keywords"]?.objectValue?.members ?? [] { k[m.key] = m.value.arrayValue?.compactMap(\.stringValue) ?? [] }
            keywords = k
            order = (index["products"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }

        public func query(_ q: String) -> [String] {
            var ids = Set<String>()
            for token in q.lowercased().split(separator: " ").map(String.init) { ids.formUnion(keywords[token] ?? []) }
            return order.filter { ids.contains($0) }
        }

        /// Whether the product is among the results, without listing them all.
        public func finds(_ id: String, _ q: String) -> Bool {
            q.lowercased().split(separator: " ").contains { keywords[String($0)]?.contains(id) == true }
        }
    }
}
