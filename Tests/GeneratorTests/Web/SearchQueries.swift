import Foundation
import Schemas
import Indexer

/// Queries for comparing the web client with the reference: a named set (exact, prefix, typo, plural, brand, mixed
/// case, accents, empty, very long, only stop words, and the Unicode corners the analyzer defines), and queries
/// generated from the corpus' own names and brands with a fixed seed: words, word runs, prefixes, one-edit typos,
/// plurals, case changes, accents (composed and decomposed), full-width forms, punctuation and trailing spaces.
enum SearchQueries {
    static let named: [(kind: String, query: String)] = [
        ("exact", "cordless hammer drill"), ("exact", "drill"), ("exact", "impact driver"), ("exact", "ryobi one+ 18v"),
        ("prefix", "dewa"), ("prefix", "dewalt dri"), ("prefix", "cord"), ("prefix", "d"), ("prefix", "ha"),
        ("typo", "drils"), ("typo", "dewlat"), ("typo", "hamer drill"), ("typo", "cordles drill"), ("typo", "milwakee"),
        ("typo", "screwdirver"), ("typo", "sandre"),
        ("plural", "drills"), ("plural", "batteries"), ("plural", "boxes"), ("plural", "hammers"), ("plural", "ladders"),
        ("brand", "ryobi"), ("brand", "DEWALT"), ("brand", "Milwaukee"), ("brand", "makita"), ("brand", "husky"),
        ("mixed case", "DeWaLt DrIlL"), ("mixed case", "RYOBI"), ("mixed case", "cOrDlEsS"),
        ("accents", "Dêwält"), ("accents", "drïll"), ("accents", "de\u{301}walt dri\u{308}ll"), ("accents", "cafe\u{301}"),
        ("accents", "Škoda ñandú"), ("accents", "ÅNGSTRÖM"),
        ("empty", ""), ("empty", " "), ("empty", "   \t "), ("empty", "!!! ??? ..."),
        ("very long", String(repeating: "cordless drill driver kit ", count: 40)),
        ("very long", String(repeating: "x", count: 2000)),
        ("very long", (1...120).map { "word\($0)" }.joined(separator: " ")),
        ("only stop words", "the and of"), ("only stop words", "a an the"), ("only stop words", "with for to "),
        ("trailing space", "dewalt "), ("trailing space", "dewa "), ("trailing space", "drill  "),
        ("punctuation", "1/2-in"), ("punctuation", "20v-max"), ("punctuation", "7.5"), ("punctuation", "o'brien's"),
        ("punctuation", "heavy-duty"), ("punctuation", "drill/driver"), ("punctuation", "dcd771c2"), ("punctuation", "3-pack"),
        ("punctuation", "drill’s"), ("punctuation", "-drill- .kit."),
        ("full width", "ＤＥＷＡＬＴ ｄｒｉｌｌ"), ("ligature", "ﬁle ﬂoor"), ("sharp s", "Straße STRASSE ẞ"),
        ("dotted I", "İstanbul DRİLL"), ("greek sigma", "ΟΔΟΣ σας"), ("hangul", "드릴 한국s 한"), ("cjk", "电钻 三四s 二十s"),
        ("emoji", "🔨 drill"), ("emoji", "👩‍🔧 drill 👍🏽"), ("prepend", "\u{D4E}-ab"), ("prepend", "drill\u{600} "),
        ("prepend", "\u{111C2}drills \u{111C2}'s"), ("unicode 16", "\u{1CCD6}\u{1CCD7} dr\u{1CCE2}ll \u{A7F1}"),
        ("digits", "١٢٣ drills ①②"), ("roman", "Ⅻ drills ⅻs"), ("controls", "drill\u{0}\u{7}kit"), ("newline", "drill\nkit"),
        ("apostrophes", "'s 's's dewalt's"), ("joiners", "a.b.c 1.2.3 x/y/z"),
    ]

    typealias Random = TestSupport.Random

    /// `count` queries made from `names` (product names and brands).
    static func generated(from names: [String], count: Int, seed: UInt64 = 25) -> [String] {
        var r = Random(state: seed)
        let words = names.flatMap { $0.split(whereSeparator: { $0 == " " }).map(String.init) }.filter { !$0.isEmpty }
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let accented: [Character: [String]] = ["a": ["á", "à", "ä", "â", "a\u{301}"], "e": ["é", "è", "ê", "ë", "e\u{301}"],
                                               "i": ["í", "ï", "i\u{308}"], "o": ["ó", "ö", "ô", "o\u{302}"], "u": ["ú", "ü", "u\u{308}"],
                                               "n": ["ñ", "n\u{303}"], "c": ["ç", "c\u{327}"]]
        func typo(_ w: String) -> String {
            var c = Array(w)
            guard c.count >= 2 else { return w }
            let i = r.below(c.count)
            switch r.below(4) {
            case 0: c.remove(at: i)
            case 1: c.insert(r.pick(letters), at: i)
            case 2: c[i] = r.pick(letters)
            default: if i + 1 < c.count { c.swapAt(i, i + 1) } else { c.swapAt(i - 1, i) }
            }
            return String(c)
        }
        func accent(_ w: String) -> String { String(w.flatMap { ch in r.chance(40) ? (accented[Character(ch.lowercased())].map { r.pick($0) } ?? String(ch)) : String(ch) }) }
        func mixCase(_ w: String) -> String { String(w.map { r.chance(50) ? Character($0.uppercased()) : Character($0.lowercased()) }) }
        func fullWidth(_ w: String) -> String {
            String(String.UnicodeScalarView(w.unicodeScalars.map { u in (0x21...0x7E).contains(u.value) ? Unicode.Scalar(u.value + 0xFEE0)! : u }))
        }
        var out: [String] = []
        while out.count < count {
            var parts: [String]
            switch r.below(5) {
            case 0: parts = [r.pick(words)]
            case 1:
                // A run of one product's words.
                let name = r.pick(names).split(separator: " ").map(String.init)
                let start = r.below(name.count), length = 1 + r.below(4)
                parts = Array(name[start..<min(name.count, start + length)])
            case 2: parts = (0..<(2 + r.below(3))).map { _ in r.pick(words) }
            case 3: parts = [r.pick(names)]
            default: parts = [r.pick(words), r.pick(words)]
            }
            parts = parts.map { w in
                var w = w
                if r.chance(25) { w = typo(w) }
                if r.chance(10) { w = typo(w) }
                if r.chance(12) { w += r.pick(["s", "es", "'s", "’s"]) }
                if r.chance(15) { w = accent(w) }
                if r.chance(20) { w = mixCase(w) }
                if r.chance(15) { w = w.uppercased() }
                if r.chance(3) { w = fullWidth(w) }
                if r.chance(8) { w = String(w.prefix(1 + r.below(max(1, w.count)))) }
                return w
            }
            var q = parts.joined(separator: r.chance(10) ? r.pick(["  ", "-", "/", ", ", " & "]) : " ")
            // While typing: a cut-off last word; or a finished word with a space after it.
            if r.chance(20) { q = String(q.prefix(max(1, q.count - 1 - r.below(4)))) }
            if r.chance(10) { q += " " }
            if r.chance(4) { q = r.pick(["the ", "a ", "for ", "with "]) + q }
            out.append(q)
        }
        return out
    }

    /// What the index's facet fields offer, from its meta file: each value field's values (most common first, when
    /// known), each range field's edges, each threshold field's thresholds (as filters write them).
    struct FieldValues {
        var values: [String: [String]] = [:]
        var edges: [String: [String]] = [:]
        var thresholds: [String: [String]] = [:]
    }

    /// Requests with filters, sorts, pages and facet counts for `queries`, made with a fixed seed: each query gets
    /// filters on some fields (values, mostly among those its own results have (`present`), so that most filtered
    /// requests still find something, one or two, OR'ed; yes/no fields mostly yes; spans `LO..HI`, `LO..` and `..HI`
    /// over a range field's edges; thresholds), a sort (relevance or one of `sorts`), sometimes the second page or a
    /// complete query, and facets on.
    static func filtered(_ queries: [String], fields: FieldValues, sorts: [String], seed: UInt64 = 42,
                         present: (String) throws -> [String: [String]]) rethrows -> [Query.Request] {
        var r = Random(state: seed)
        var out: [Query.Request] = []
        for q in queries {
            let here = try present(q)
            var filters: [String: [String]] = [:]
            func values(_ field: String) -> [String] {
                let mine = Array((here[field] ?? []).prefix(12)), all = fields.values[field] ?? []
                let from = !mine.isEmpty && r.chance(80) ? mine : all
                guard !from.isEmpty else { return [] }
                return Array(Set((0..<(r.chance(20) ? 2 : 1)).map { _ in r.pick(from) })).sorted()
            }
            for (field, all) in fields.values.sorted(by: { $0.key < $1.key }) where r.chance(25) {
                // A yes/no field (the catalog's stock) mostly asks for yes.
                filters[field] = Set(all).isSubset(of: ["true", "false"]) ? [r.chance(90) ? "true" : "false"] : values(field)
            }
            for (field, edges) in fields.edges.sorted(by: { $0.key < $1.key }) where r.chance(40) {
                // A span of whole ranges: both edges, or one open end.
                let i = r.below(edges.count), j = r.below(edges.count)
                switch r.below(3) {
                case 0 where i != j: filters[field] = ["\(edges[min(i, j)])..\(edges[max(i, j)])"]
                case 1: filters[field] = ["\(edges[i]).."]
                default: filters[field] = ["..\(edges[j])"]
                }
            }
            for (field, ts) in fields.thresholds.sorted(by: { $0.key < $1.key }) where r.chance(35) {
                filters[field] = Array(Set((0..<(r.chance(15) ? 2 : 1)).map { _ in r.pick(ts) })).sorted()
            }
            out.append(Query.Request(q, filters: filters, sort: r.pick(["relevance"] + sorts), limit: 10, offset: r.chance(15) ? 10 : 0,
                                     facets: true, complete: r.chance(20)))
        }
        return out
    }

    /// Requests every client must answer alike beyond random ones: filter-only browses (in the index's browse order,
    /// sorted, paged, one filter of nothing), facets of nothing, and the requests the index refuses (an unknown field
    /// or sort, a range edge that is not one, a low edge above the high one, a range that is not one, a threshold
    /// that is not one, a number that is not a plain decimal), with the number forms filters take.
    static func special(brand: String, category: String) -> [Query.Request] {
        [Query.Request("", filters: ["brand": [brand]], facets: true),
         Query.Request("", filters: ["category": [category], "price": ["50..200"]], sort: "price", facets: true),
         Query.Request("", filters: ["rating": ["4"], "inStock": ["true"]], sort: "price-desc", offset: 10, facets: true),
         Query.Request("", filters: ["brand": [brand, "RYOBI"], "rating": ["3"]], sort: "rating", limit: 20, facets: true),
         Query.Request("", filters: ["price": ["1000.."]], facets: true),
         Query.Request("", facets: true),
         Query.Request("   ", filters: ["brand": []], sort: "price", facets: true),
         Query.Request("drill", filters: ["brand": []], facets: true),
         Query.Request("drill", filters: ["price": ["5e1..100"], "rating": ["4.0"]], sort: "price"),
         Query.Request("drill", filters: ["price": ["0x32..100"]]),
         Query.Request("drill", filters: ["price": ["50..inf"]]),
         Query.Request("drill", filters: ["rating": ["nan"]]),
         Query.Request("drill", filters: ["price": ["+25..200.0"]], sort: "price-desc", facets: true),
         Query.Request("drill", filters: ["colour": ["red"]]),
         Query.Request("drill", filters: ["price": ["30..100"]]),
         Query.Request("drill", filters: ["price": ["200..50"]]),
         Query.Request("drill", filters: ["price": ["100..100"]]),
         Query.Request("drill", filters: ["price": ["100"]]),
         Query.Request("drill", filters: ["price": [" 50..100"]]),
         Query.Request("drill", filters: ["rating": ["4.5"]]),
         Query.Request("drill", filters: ["rating": [""]]),
         Query.Request("drill", sort: "name"),
         Query.Request("", filters: ["brand": [brand]], sort: "cheapest"),
         Query.Request("", sort: "cheapest"),
         Query.Request("nothingmatchesthis", sort: "price", facets: true),
         Query.Request("dewalt drill xyzzyq", filters: ["inStock": ["true"]], sort: "rating", facets: true)]
    }

    /// Extra queries from a file (a JSON array of strings, or one query per line), named by `WEB_SEARCH_QUERIES`:
    /// how a set kept outside the repository is run through the same comparison.
    static func outside() throws -> [String] {
        guard let path = ProcessInfo.processInfo.environment["WEB_SEARCH_QUERIES"], !path.isEmpty else { return [] }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        if let j = try? JSONReader.parse(data), let a = j.arrayValue { return a.compactMap(\.stringValue) }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.isEmpty }
    }
}
