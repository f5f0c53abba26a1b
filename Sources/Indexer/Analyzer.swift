import Foundation
import Schemas

/// Turns text into search terms, identically at build time and in the reference query engine:
/// Unicode compatibility decomposition (NFKD), diacritics dropped, lowercase; words split on whitespace and
/// punctuation, except that `/ - .` stay inside a word that holds a digit (`20v`, `1/2-in`, `7.5`, `dcd771c2`);
/// a hyphenated word also yields its parts (`heavy-duty` → `heavy-duty`, `heavy`, `duty`);
/// light English stemming (possessives, plurals); stop words dropped. Deterministic and locale-free.
public struct Analyzer: Sendable {
    public static let stopWords: Set<String> = [
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "if", "is", "it", "of", "on", "or",
        "that", "the", "this", "to", "was", "with",
    ]
    /// Terms shorter than this are not indexed (single letters carry no meaning in a product search).
    public static let minimumLength = 2

    public init() {}

    /// Lowercased, diacritics-free text: NFKD, combining marks (Mn, Mc, Me) dropped, then each scalar lowercased on
    /// its own (full mapping, no context: a final Σ is σ). Decompositions are Unicode 15.1's: the code points whose
    /// compatibility decomposition came with Unicode 16 or 17 (`keptAsIs`) are kept as they are, whatever version
    /// Foundation's NFKD has, so this definition does not move with the toolchain (and the web client, whose
    /// browser may know newer decompositions, can match it exactly).
    public static func fold(_ text: String) -> String {
        // ASCII needs no decomposition: lowercase the bytes directly (most catalog text is ASCII).
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
        }
        var out = String.UnicodeScalarView()
        func keep(_ u: Unicode.Scalar) {
            switch u.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return
            default: out.append(u)
            }
        }
        func append(decomposing run: String.UnicodeScalarView) {
            for u in String(run).decomposedStringWithCompatibilityMapping.unicodeScalars { keep(u) }
        }
        if text.unicodeScalars.contains(where: isKeptAsIs) {
            // A kept scalar is a starter that decomposes to itself: the text is decomposed around it.
            var run = String.UnicodeScalarView()
            for u in text.unicodeScalars {
                if isKeptAsIs(u) { append(decomposing: run); run = .init(); keep(u) } else { run.append(u) }
            }
            append(decomposing: run)
        } else {
            append(decomposing: text.unicodeScalars)
        }
        return String(out).lowercased()
    }

    /// Code points whose compatibility decomposition was added in Unicode 16.0 or 17.0 (outlined Latin letters and
    /// digits, and a few letters of Vithkuqi, Tulu-Tigalari, Kirat Rai and Latin): `fold` keeps them as they are.
    public static let keptAsIs: [ClosedRange<UInt32>] = [
        0xA7F1...0xA7F1, 0x105C9...0x105C9, 0x105E4...0x105E4, 0x11383...0x11383, 0x11385...0x11385,
        0x1138E...0x1138E, 0x11391...0x11391, 0x16D68...0x16D6A, 0x1CCD6...0x1CCF9,
    ]
    static func isKeptAsIs(_ u: Unicode.Scalar) -> Bool { u.value >= 0xA7F1 && keptAsIs.contains { $0.contains(u.value) } }

    /// Words before stemming and stop-word removal, in text order (duplicates kept).
    public static func words(_ text: String) -> [String] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text) }
        return unicodeWords(text)
    }

    static func unicodeWords(_ text: String) -> [String] {
        let folded = Array(fold(text).unicodeScalars)
        var words: [String] = []
        var i = 0
        func isWordChar(_ u: Unicode.Scalar) -> Bool {
            if u.value < 0x80 { return (u.value >= 0x61 && u.value <= 0x7A) || (u.value >= 0x30 && u.value <= 0x39) || (u.value >= 0x41 && u.value <= 0x5A) }
            return u.properties.isAlphabetic || u.properties.numericType == .decimal
        }
        while i < folded.count {
            guard isWordChar(folded[i]) else { i += 1; continue }
            // A run of word characters and inner joiners (/ - . ').
            var j = i
            while j < folded.count {
                let u = folded[j]
                if isWordChar(u) { j += 1; continue }
                if "/-.'’".unicodeScalars.contains(u), j + 1 < folded.count, isWordChar(folded[j + 1]) { j += 1; continue }
                break
            }
            let run = String(String.UnicodeScalarView(folded[i..<j]))
            i = j
            let hasDigit = run.unicodeScalars.contains { ("0"..."9").contains($0) }
            let apostrophes = run.unicodeScalars.contains("’") ? String(String.UnicodeScalarView(run.unicodeScalars.map { $0 == "’" ? "'" : $0 })) : run
            if hasDigit {
                words.append(apostrophes)
                // Also the hyphen parts, so "20v-max" is found by "20v" and by "max".
                let parts = apostrophes.split(whereSeparator: { $0 == "-" }).map(String.init)
                if parts.count > 1 { words += parts }
            } else {
                // Without digits, "/" and "." separate words; a hyphenated word keeps its whole form and its parts.
                for piece in apostrophes.split(whereSeparator: { $0 == "/" || $0 == "." }).map(String.init) {
                    words.append(piece)
                    let parts = piece.split(separator: "-").map(String.init)
                    if parts.count > 1 { words += parts }
                }
            }
        }
        return words
    }

    /// The same rules as `words`, on ASCII bytes (most catalog text): no Unicode tables, no intermediate strings.
    static func asciiWords(_ text: String) -> [String] {
        var b = Array(text.utf8)
        for i in b.indices where b[i] >= 0x41 && b[i] <= 0x5A { b[i] += 32 }
        @inline(__always) func isWord(_ c: UInt8) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) }
        @inline(__always) func isJoiner(_ c: UInt8) -> Bool { c == 0x2F || c == 0x2D || c == 0x2E || c == 0x27 }
        var words: [String] = []
        func add(_ lo: Int, _ hi: Int) { if hi > lo { words.append(String(decoding: b[lo..<hi], as: UTF8.self)) } }
        /// Adds the pieces of lo..<hi split on `sep`, when there is more than one (most runs have no separator:
        /// nothing is allocated for them).
        func addParts(_ lo: Int, _ hi: Int, _ sep: UInt8) {
            guard b[lo..<hi].contains(sep) else { return }
            var start = lo, pieces = 0
            for k in lo...hi where k == hi || b[k] == sep { if k > start { pieces += 1 }; start = k + 1 }
            guard pieces > 1 else { return }
            start = lo
            for k in lo...hi where k == hi || b[k] == sep { add(start, k); start = k + 1 }
        }
        var i = 0
        while i < b.count {
            guard isWord(b[i]) else { i += 1; continue }
            var j = i
            var digit = false, slashOrDot = false
            while j < b.count {
                if isWord(b[j]) { if b[j] <= 0x39 { digit = true }; j += 1; continue }
                if isJoiner(b[j]), j + 1 < b.count, isWord(b[j + 1]) { if b[j] == 0x2F || b[j] == 0x2E { slashOrDot = true }; j += 1; continue }
                break
            }
            if digit {
                add(i, j)
                addParts(i, j, 0x2D)
            } else if !slashOrDot {
                add(i, j)
                addParts(i, j, 0x2D)
            } else {
                // Without digits, "/" and "." separate words; a hyphenated word keeps its whole form and its parts.
                var start = i
                for k in i...j where k == j || b[k] == 0x2F || b[k] == 0x2E {
                    if k > start { add(start, k); addParts(start, k, 0x2D) }
                    start = k + 1
                }
            }
            i = j
        }
        return words
    }

    /// Light English stemming: possessives, then plural endings. Words with a number are kept as they are.
    /// Like every count, comparison and split of words here (and in `Query`), it works on characters (extended
    /// grapheme clusters); in folded text those are single scalars but for Hangul jamo sequences and a prepended
    /// letter with what follows it.
    public static func stem(_ word: String) -> String {
        if word.utf8.allSatisfy({ $0 < 0x80 }) { return asciiStem(word) }
        return unicodeStem(word)
    }

    /// `stem` on ASCII bytes; the same rules.
    static func asciiStem(_ word: String) -> String {
        // Every rule removes a trailing "s" or an apostrophe: most words have neither and come back as they are.
        if word.utf8.last != 0x73, !word.utf8.contains(0x27) { return word }
        var b = Array(word.utf8)
        func ends(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard b.count >= n else { return false }
            return s.withUTF8Buffer { suf in (0..<n).allSatisfy { b[b.count - n + $0] == suf[$0] } }
        }
        if ends("'s") { b.removeLast(2) } else if ends("'") { b.removeLast() }
        b.removeAll { $0 == 0x27 }
        if b.count <= 3 || b.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) { return String(decoding: b, as: UTF8.self) }
        if ends("ies"), b.count > 4 { b.removeLast(3); b.append(0x79); return String(decoding: b, as: UTF8.self) }
        if ends("sses") || ends("xes") || ends("zes") || ends("ches") || ends("shes") { b.removeLast(2); return String(decoding: b, as: UTF8.self) }
        if ends("s"), !ends("ss"), !ends("us"), !ends("is") { b.removeLast() }
        return String(decoding: b, as: UTF8.self)
    }

    static func unicodeStem(_ word: String) -> String {
        var w = word
        if w.hasSuffix("'s") { w.removeLast(2) } else if w.hasSuffix("'") { w.removeLast() }
        if w.utf8.contains(0x27) { w.removeAll { $0 == "'" } }
        // A number is a scalar of general category Nd, Nl or No (not Character.isNumber, which also counts CJK
        // ideographs with a numeric value: a rule no other client could follow without Unicode's numeric tables).
        guard w.count > 3, !w.unicodeScalars.contains(where: isNumber) else { return w }
        if w.hasSuffix("ies"), w.count > 4 { return String(w.dropLast(3)) + "y" }
        if w.hasSuffix("sses") || w.hasSuffix("xes") || w.hasSuffix("zes") || w.hasSuffix("ches") || w.hasSuffix("shes") {
            return String(w.dropLast(2))
        }
        if w.hasSuffix("s"), !w.hasSuffix("ss"), !w.hasSuffix("us"), !w.hasSuffix("is") { return String(w.dropLast()) }
        return w
    }

    static func isNumber(_ u: Unicode.Scalar) -> Bool {
        switch u.properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber: return true
        default: return false
        }
    }

    /// Index terms of a text: stemmed words without stop words, in text order (duplicates kept, for term frequency).
    public static func terms(_ text: String) -> [String] {
        words(text).compactMap { w in
            if isStopWord(w) { return nil }
            let s = stem(w)
            // Stemming only ever shortens a word; an unchanged one was checked above.
            return length(s) >= minimumLength && (s.utf8.count == w.utf8.count || !isStopWord(s)) ? s : nil
        }
    }

    /// The longest stop word has 4 letters: longer words skip the set lookup (hashing is most of its cost).
    static let stopWordMaxBytes = stopWords.map(\.utf8.count).max() ?? 0
    @inline(__always) static func isStopWord(_ w: String) -> Bool { w.utf8.count <= stopWordMaxBytes && stopWords.contains(w) }

    /// Characters in a word; an ASCII word's bytes are its characters.
    @inline(__always) static func length(_ w: String) -> Int { w.utf8.allSatisfy { $0 < 0x80 } ? w.utf8.count : w.count }
}

/// Analysis of many texts that share their words (a catalog's names and descriptions), a space-separated token at a
/// time, each distinct token once. On ASCII text a word never spans a space (a space is neither a word character nor
/// a joiner), so a text's terms are its tokens' terms in order: the same as `Analyzer.terms`. Other text goes through
/// `Analyzer.terms` whole. One memo per thread; it only grows.
public struct TermMemo {
    private var tokens = TokenTable<[String]>()
    public init() {}

    public mutating func terms(_ text: String) -> [String] {
        var out: [String] = []
        return Self.perToken(text, &tokens, into: &out, Analyzer.terms) ? out : Analyzer.terms(text)
    }

    /// Appends `f(token)` for each space-separated token of ASCII text to `out`, memoised by token, and returns true;
    /// other text: appends nothing and returns false (the caller analyses it whole).
    static func perToken<T>(_ text: String, _ cache: inout TokenTable<[T]>, into out: inout [T], _ f: (String) -> [T]) -> Bool {
        // Tokens are looked up by their bytes, in place (no substring, no String unless the token is new).
        text.withUTF8Span { bytes -> Bool in
            for k in bytes.indices where bytes[k] >= 0x80 { return false }
            var start = 0
            for k in 0...bytes.count where k == bytes.count || bytes[k] == 0x20 {
                defer { start = k + 1 }
                guard k > start else { continue }
                let token = bytes.extracting(start..<k)
                if let e = cache.find(token) { out += cache.values[e]; continue }
                let v = f(String(decodingUTF8: token))
                cache.insert(token, v)
                out += v
            }
            return true
        }
    }
}
