import Foundation

/// What a build did, for the summary printed by the CLI.
public struct BuildSummary: Sendable {
    public var report: [ReportItem] = []
    public var warnings: [String] = []
    public var fileCount = 0
    public var totalBytes = 0
    public var bytesByKind: [(kind: String, files: Int, bytes: Int)] = []
    public var written = 0, linked = 0, removed = 0
    /// False when the content equals the previous release: no version was created and nothing was written.
    public var changed = true
    /// Nothing new, but the release's signature was renewed with a later expiry (see `BuildRun.renewSignature`).
    public var renewed = false
    public var version = 0
    public var currentVersion = ""
    public var stageSeconds: [(String, Double)] = []
    /// The site the previous release was read from (`--previous https://…/`).
    public var previousSite: String?
    /// Files kept from the output's tree by their fingerprint, without being rendered (see `BuildCache`).
    public var reused = 0
    /// Fragments of large files (search index entries) copied from the output's tree instead of rendered.
    public var copiedFragments = 0
    /// True when the change was applied to the output's tree in place (see `StagedTree`).
    public var inPlace = false
    /// Where the version came from, said in the summary (e.g. "no release published at URL yet: this is release 1").
    public var notes: [String] = []
    /// Lines of the products file whose records were taken from the build cache's snapshot, not parsed and checked
    /// again (see `ProductSnapshot`).
    public var productLinesReused = 0
}
