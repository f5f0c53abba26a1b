import Foundation
import TreeClient

/// Options of one build (the CLI's flags).
public struct BuildOptions: Sendable {
    public var input: URL
    public var output: URL
    /// A previous release to compare with; by default the output folder's own.
    public var previous: URL?
    /// The live site whose published release comes before this one (`--previous https://…/`); overrides `previous`.
    public var previousSite: URL?
    /// Starts a new release history at version 1, reading no previous release (`--first-release`).
    public var firstRelease = false
    /// Timeouts, retries and parallel downloads for reading `previousSite`.
    public var http = HTTPFetcher.Configuration()
    public var threads: Int
    /// Build time (SOURCE_DATE_EPOCH when set, else now).
    public var epochSeconds: Int
    public var skipBadRows: Bool
    /// How long to wait for another build writing the same output (seconds; 0: fail at once).
    public var lockWait: Double
    /// Kept between the builds of a long-lived process (`generator serve --watch`); nil for a single build.
    public var memory: BuildMemory?
    /// When set, long stages report progress (stage, files done of total) through `progress` at least this often, in
    /// seconds; nil: only a line at the start of some stages.
    public var progressInterval: Double?
    /// Where the build cache lives (`--cache DIR`); nil: beside the output (`.<out>.cache`). See `BuildCache`.
    public var cacheFolder: URL?
    /// False: no cache is read or written (every file is rendered).
    public var useCache = true
    /// True when the process ends right after the build (the CLI): what the build holds is left to the exit instead of
    /// being freed object by object (a quarter of a second at 100,000 products; compilers do the same). A process
    /// that builds again (tests, `serve --watch`) leaves it false.
    public var leavesMemoryToExit = false
    /// The keys that sign the release (see `ReleaseSigning`): given when the input holds roots, never read from the
    /// input or output folders (the CLI checks where their files lie).
    public var signingKeys: [SigningKey] = []
    /// A signed build may continue from an unsigned release at `previousSite` (a site's first signed release);
    /// otherwise the site's release must be signed under the input's roots.
    public var acceptUnsignedPrevious = false
    /// Build an input with roots without signing it (see `ReleaseSigning.read`).
    public var unsigned = false

    public init(input: URL, output: URL, previous: URL? = nil, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                epochSeconds: Int? = nil, skipBadRows: Bool = false, lockWait: Double = 60) {
        self.input = input; self.output = output; self.previous = previous; self.threads = max(1, threads)
        self.epochSeconds = epochSeconds ?? BuildOptions.sourceDateEpoch() ?? Int(Date().timeIntervalSince1970)
        self.skipBadRows = skipBadRows
        self.lockWait = lockWait
    }

    /// SOURCE_DATE_EPOCH (reproducible-builds.org) when set to a whole number.
    public static func sourceDateEpoch() -> Int? {
        ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}
