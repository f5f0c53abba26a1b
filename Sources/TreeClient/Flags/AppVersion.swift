/// A dotted numeric app version ("3.2", "3.2.0", "10.0.1.4"). Missing parts count as 0, so "3.2" equals "3.2.0".
/// Each part is 1–9 digits: every client (Swift, JavaScript) compares them as exact integers.
public struct AppVersion: Sendable, Comparable, CustomStringConvertible {
    public let parts: [Int]
    public let description: String

    /// Nil for anything but digits separated by single dots (no sign, no suffix such as "-beta", at most 8 parts).
    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...8).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for p in pieces {
            guard (1...9).contains(p.utf8.count), p.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(p) else { return nil }
            parts.append(n)
        }
        self.parts = parts
        self.description = text
    }

    func part(_ i: Int) -> Int { i < parts.count ? parts[i] : 0 }

    public static func == (a: AppVersion, b: AppVersion) -> Bool {
        (0..<max(a.parts.count, b.parts.count)).allSatisfy { a.part($0) == b.part($0) }
    }

    public static func < (a: AppVersion, b: AppVersion) -> Bool {
        for i in 0..<max(a.parts.count, b.parts.count) where a.part(i) != b.part(i) { return a.part(i) < b.part(i) }
        return false
    }
}

/// A version range: comparators separated by single spaces, every one of which must hold
/// (`">=3.2.0 <4.0.0"`, `"=3.1.2"`, `"<2"`). Operators: `>=`, `>`, `<=`, `<`, `=`.
public struct VersionRange: Sendable, CustomStringConvertible {
    public enum Operator: String, Sendable, CaseIterable {
        // Two-character operators first, so ">=3" is not read as ">" and "=3".
        case atLeast = ">=", atMost = "<=", greater = ">", less = "<", equal = "="
    }
    public struct Comparator: Sendable {
        public let op: Operator
        public let version: AppVersion
        func holds(_ v: AppVersion) -> Bool {
            switch op {
            case .atLeast: return v >= version
            case .atMost: return v <= version
            case .greater: return v > version
            case .less: return v < version
            case .equal: return v == version
            }
        }
    }

    public let comparators: [Comparator]
    public let description: String

    /// Throws a message saying what is wrong with `text` (for input errors).
    public init(parsing text: String) throws(RangeError) {
        guard !text.isEmpty else { throw RangeError("is empty (write e.g. \">=3.2.0 <4.0.0\")") }
        var comparators: [Comparator] = []
        for piece in text.split(separator: " ", omittingEmptySubsequences: false) {
            guard let op = Operator.allCases.first(where: { piece.hasPrefix($0.rawValue) }) else {
                throw RangeError("\"\(piece)\" does not start with >=, >, <=, < or = (comparators are separated by one space)")
            }
            let rest = String(piece.dropFirst(op.rawValue.count))
            if rest.isEmpty { throw RangeError("\"\(piece)\" has no version after it (write the version right after the operator: >=3.2.0)") }
            guard let v = AppVersion(rest) else {
                throw RangeError("\"\(rest)\" in \"\(piece)\" is not a version (dotted numbers, e.g. 3.2.0)")
            }
            comparators.append(Comparator(op: op, version: v))
        }
        self.comparators = comparators
        self.description = text
    }

    public func contains(_ v: AppVersion) -> Bool { comparators.allSatisfy { $0.holds(v) } }

    public struct RangeError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }
}
