import Foundation

/// A domain turns its inputs into output files: Read → Check → Compute → Emit.
public protocol Domain: Sendable {
    var name: String { get }
    /// Whether this domain has inputs in this build (e.g. `input/auctions/` exists).
    func isPresent(in context: BuildContext) -> Bool
    func build(_ context: BuildContext) throws -> DomainResult
}

/// What a domain hands back: its files, the kinds they use and its lines of the build summary.
public struct DomainResult: Sendable {
    public var files: [OutputFile]
    public var kinds: [OutputKind]
    public var report: [ReportItem]
    /// Files whose paths are known only once they are built (content-named shards): the build runs these while it
    /// validates and serialises the other files, then takes their files in this order.
    public var later: [@Sendable () throws -> [OutputFile]]
    /// What the domain worked out that a later build may take again once it has checked it (kept in the build cache
    /// by name: `BuildCache.keptOrders`, read back through `PreviousBuild.keptOrder`).
    public var keptOrders: [String: [Int32]] = [:]
    public init(files: [OutputFile] = [], kinds: [OutputKind] = [], report: [ReportItem] = [],
                later: [@Sendable () throws -> [OutputFile]] = []) {
        self.files = files; self.kinds = kinds; self.report = report; self.later = later
    }
}
