import Foundation
import Schemas

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
