import Foundation
import Schemas

/// Filters through facet columns (`RankedIndexBuilder.columns`): with words, a filter on a field of ranges or
/// thresholds reads the codes of the documents every word matched from the columns of one word's terms, not the
/// field's value lists over the whole index.
extension Query {
    /// The column codes a filter admits (see `RankedIndexBuilder.columnCodes`), nil for a field without columns.
    static func admittedCodes(_ f: FieldFilter) -> Set<Int>? {
        guard f.entry["columns"] != nil else { return nil }
        switch f.entry["kind"]?.stringValue {
        case "ranges":
            let names = SearchFields.rangeValues((f.entry["edges"]?.arrayValue ?? []).compactMap(\.doubleValue))
            return Set(f.values.compactMap { v in names.firstIndex(of: v).map { $0 + 1 } })
        case "atLeast":
            let ts = (f.entry["thresholds"]?.arrayValue ?? []).compactMap(\.doubleValue).map(SearchFields.numberText)
            var codes = Set<Int>()
            for v in f.values { if let k = ts.firstIndex(of: v) { codes.formUnion((k + 1)...max(k + 1, ts.count)) } }
            return codes
        default: return nil
        }
    }

    /// The documents that match every word and pass the filters, read through columns where a field has them; nil
    /// when no filtered field has columns or no document matches every word (the filters are then read whole: a
    /// partial answer needs them over every document a word matched).
    func columnFilter(_ perWord: [WordMatches], _ filters: [FieldFilter]) throws -> Set<Int>? {
        guard let first = perWord.first, filters.contains(where: { Self.admittedCodes($0) != nil }) else { return nil }
        var kept = first.documents
        for m in perWord.dropFirst() { kept.formIntersection(m.documents) }
        guard !kept.isEmpty else { return nil }
        // The word with the fewest documents (the first of equals): its terms hold every document left.
        var word = 0
        for k in perWord.indices where perWord[k].documents.count < perWord[word].documents.count { word = k }
        for f in filters {
            if let admitted = Self.admittedCodes(f) {
                let codes = try columnCodes(f.entry, kept, terms: perWord[word].terms)
                kept = kept.filter { admitted.contains(codes[$0] ?? 0) }
            } else {
                var admitted = Set<Int>()
                for v in f.values { admitted.formUnion(try documents(f.entry, value: v)) }
                kept.formIntersection(admitted)
            }
        }
        return kept
    }

    /// Each of `docs`' code in a field's columns, read from the columns of `terms` in order: a term's column file is
    /// fetched only when it holds a document not yet read.
    func columnCodes(_ entry: JSON, _ docs: Set<Int>, terms: [String]) throws -> [Int: Int] {
        var codes: [Int: Int] = [:], left = docs
        for t in terms {
            guard !left.isEmpty else { break }
            guard let p = try postings(t) else { continue }
            let here = left.filter { p.scores[$0] != nil }
            guard !here.isEmpty else { continue }
            let column = Array(try column(entry, at: p.at, index: p.index).utf8)
            let sorted = p.scores.keys.sorted()
            for d in here {
                // The document's place among the term's documents in document order is its character's.
                var lo = 0, hi = sorted.count
                while lo < hi { let mid = (lo + hi) / 2; if sorted[mid] < d { lo = mid + 1 } else { hi = mid } }
                codes[d] = lo < column.count ? PostingText.digit(column[lo]) : 0
                left.remove(d)
            }
        }
        return codes
    }

    /// The column of term number `index` of the term shard at `at` (its positions down the term tree), walking down
    /// the field's column tree by the same positions.
    func column(_ entry: JSON, at: [Int], index: Int) throws -> String {
        guard let folder = metaFolder, let tree = entry["columns"], let levels = tree["levels"]?.intValue, at.count == levels + 1 else { return "" }
        var entries = tree["entries"]?.arrayValue ?? []
        for level in 0..<levels {
            guard at[level] < entries.count, let name = entries[at[level]].stringValue else { return "" }
            entries = try file("\(folder)coldirs/\(name).json")["entries"]?.arrayValue ?? []
        }
        guard at[levels] < entries.count, let name = entries[at[levels]].stringValue else { return "" }
        return try file("\(folder)columns/\(name).json")["columns"]?[index]?.stringValue ?? ""
    }
}
