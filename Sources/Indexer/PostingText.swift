/// Posting lists as text: every number of a list (scores, then one number per document) in a few characters, with no separators.
/// A number n is q × 32 + r: r is one base-32 digit `0`–`9` `a`–`v`, and q, when not 0, goes before it in base 26
/// as letters `A`–`Z`, most significant first (`7` is 7, `Bg` is 1 × 32 + 16 = 48). Most gaps are under 32, one
/// character each; the numbers gzip a sixth smaller than as JSON numbers with commas.
public enum PostingText {
    /// Appends `n` (at least 0) as text.
    public static func append(_ n: Int, to out: inout [UInt8]) {
        let r = n % 32, q = n / 32
        // The letters written in place, most significant first (no list per number: term shards hold millions).
        if q > 0 {
            var letters = 0, m = q
            while m > 0 { letters += 1; m /= 26 }
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: letters))
            var k = start + letters - 1
            m = q
            while m > 0 { out[k] = UInt8(65 + m % 26); m /= 26; k -= 1 }
        }
        out.append(UInt8(r < 10 ? 48 + r : 87 + r))
    }

    /// The numbers of a list written by `append` (a character of neither kind counts as a digit 0).
    public static func numbers(_ text: String) -> [Int] { numbers(text.utf8) }

    /// The same from the list's bytes.
    public static func numbers<Bytes: Sequence<UInt8>>(_ text: Bytes) -> [Int] {
        var out: [Int] = [], q = 0
        for c in text {
            if c >= 65 && c <= 90 { q = q * 26 + Int(c - 65); continue }
            out.append(q * 32 + digit(c)); q = 0
        }
        return out
    }

    /// The value of one base-32 digit `0`–`9` `a`–`v` (another character counts as 0).
    public static func digit(_ c: UInt8) -> Int {
        c >= 48 && c <= 57 ? Int(c - 48) : c >= 97 && c <= 118 ? Int(c - 87) : 0
    }
}
