import Foundation

/// An input problem a user can act on: which file, which line (or record), which field, what is wrong.
public struct BuildError: Error, CustomStringConvertible, Sendable, Equatable {
    public var file: String
    public var line: Int?
    public var field: String?
    public var message: String

    public init(file: String, line: Int? = nil, field: String? = nil, _ message: String) {
        self.file = file; self.line = line; self.field = field; self.message = message
    }

    public var description: String {
        var s = file
        if let line { s += ":\(line)" }
        s += ": "
        if let field { s += "field '\(field)': " }
        // Messages quote input (ids, values, file names): never let a control character reach the terminal raw.
        return Excerpt.escapingControls(s + message)
    }
}

/// Several input problems found in one pass (reported together so a user fixes them in one go).
public struct BuildErrors: Error, CustomStringConvertible, Sendable {
    public var errors: [BuildError]
    public init(_ errors: [BuildError]) { self.errors = errors }
    public var description: String {
        let shown = errors.prefix(20).map { "error: \($0)" }
        let more = errors.count > 20 ? ["… and \(errors.count - 20) more errors"] : []
        return (shown + more).joined(separator: "\n")
    }
}

/// One line of the build summary: a counted fact or an anomaly with its stated policy.
public struct ReportItem: Sendable, Equatable {
    public var domain: String
    public var key: String
    public var count: Int
    /// The policy applied ("left out of pages and indexes"), shown beside the count.
    public var policy: String?
    /// A few example ids or paths, for anomalies.
    public var examples: [String]

    public init(domain: String, key: String, count: Int, policy: String? = nil, examples: [String] = []) {
        self.domain = domain; self.key = key; self.count = count; self.policy = policy; self.examples = examples
    }
}
