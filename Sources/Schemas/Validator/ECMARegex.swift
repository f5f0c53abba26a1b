import Foundation

/// JSON Schema patterns are ECMA-262 regular expressions; NSRegularExpression is ICU. The translation makes the
/// differences that matter behave as ECMA-262 does:
/// - `\d \D \w \W` are ASCII-only (ICU's are Unicode-aware);
/// - `\s \S` include U+FEFF (ICU's do not);
/// - `$` matches only at the very end of the input (ICU's also matches before a final line break).
/// Known gaps: ECMA-only syntax such as `[^]` and `\u{...}` without the `u` flag, and lookbehind corner cases,
/// follow ICU.
enum ECMARegex {
    static func translate(_ pattern: String) -> String {
        var out = ""
        var inClass = false
        var chars = Array(pattern)[...]
        while let c = chars.popFirst() {
            if c == "\\", let next = chars.first {
                chars.removeFirst()
                switch next {
                case "d": out += inClass ? "0-9" : "[0-9]"
                case "D": out += inClass ? "\\D" : "[^0-9]"
                case "w": out += inClass ? "a-zA-Z0-9_" : "[a-zA-Z0-9_]"
                case "W": out += inClass ? "\\W" : "[^a-zA-Z0-9_]"
                case "s": out += inClass ? "\\s\\x{FEFF}" : "[\\s\\x{FEFF}]"
                case "S": out += inClass ? "\\S" : "[^\\s\\x{FEFF}]"
                default: out.append("\\"); out.append(next)
                }
                continue
            }
            if inClass {
                if c == "]" { inClass = false }
                out.append(c)
                continue
            }
            switch c {
            case "[":
                inClass = true
                out.append(c)
                // A "]" right after "[" or "[^" is a literal in ICU but ends an empty class in ECMA; keep ICU's view.
            case "$": out += "(?!(?s:.))"
            default: out.append(c)
            }
        }
        return out
    }
}
