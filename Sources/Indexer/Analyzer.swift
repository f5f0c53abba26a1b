import Foundation

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

    /// Lowercased, diacritics-free text (NFKD, combining marks dropped).
    public static func fold(_ text: String) -> String {
        // ASCII needs no decomposition: lowercase the bytes directly (most catalog text is ASCII).
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
        }
        var out = String.UnicodeScalarView()
        for u in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            switch u.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: out.append(u)
            }
        }
        return String(out).lowercased()
    }

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
        /// The run's pieces split on `sep`, added when there is more than one.
        func parts(_ lo: Int, _ hi: Int, _ isSep: (UInt8) -> Bool, addWhole: Bool) -> [(Int, Int)] {
            var out: [(Int, Int)] = [], start = lo
            for k in lo...hi where k == hi || isSep(b[k]) { if k > start { out.append((start, k)) }; start = k + 1 }
            return out
        }
        var i = 0
        while i < b.count {
            guard isWord(b[i]) else { i += 1; continue }
            var j = i
            while j < b.count {
                if isWord(b[j]) { j += 1; continue }
                if isJoiner(b[j]), j + 1 < b.count, isWord(b[j + 1]) { j += 1; continue }
                break
            }
            if b[i..<j].contains(where: { $0 >= 0x30 && $0 <= 0x39 }) {
                add(i, j)
                let hy = parts(i, j, { $0 == 0x2D }, addWhole: false)
                if hy.count > 1 { for (lo, hi) in hy { add(lo, hi) } }
            } else {
                for (lo, hi) in parts(i, j, { $0 == 0x2F || $0 == 0x2E }, addWhole: true) {
                    add(lo, hi)
                    let hy = parts(lo, hi, { $0 == 0x2D }, addWhole: false)
                    if hy.count > 1 { for (a, z) in hy { add(a, z) } }
                }
            }
            i = j
        }
        return words
    }

    /// Light English stemming: possessives, then plural endings. Words with digits are kept as they are.
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
        guard w.count > 3, !w.contains(where: \.isNumber) else { return w }
        if w.hasSuffix("ies"), w.count > 4 { return String(w.dropLast(3)) + "y" }
        if w.hasSuffix("sses") || w.hasSuffix("xes") || w.hasSuffix("zes") || w.hasSuffix("ches") || w.hasSuffix("shes") {
            return String(w.dropLast(2))
        }
        if w.hasSuffix("s"), !w.hasSuffix("ss"), !w.hasSuffix("us"), !w.hasSuffix("is") { return String(w.dropLast()) }
        return w
    }

    /// Index terms of a text: stemmed words without stop words, in text order (duplicates kept, for term frequency).
    public static func terms(_ text: String) -> [String] {
        words(text).compactMap { w in
            if stopWords.contains(w) { return nil }
            let s = stem(w)
            // Stemming only ever shortens a word; an unchanged one was checked above.
            return s.count >= minimumLength && (s.utf8.count == w.utf8.count || !stopWords.contains(s)) ? s : nil
        }
    }
}
