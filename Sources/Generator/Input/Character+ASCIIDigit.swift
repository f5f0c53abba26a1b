import Foundation

/// Between "0" and "9" as Characters compare: the ASCII digits, also with a combining mark ("0\u{301}"), but not
/// other scripts' digits, which `isNumber` would take.
extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
