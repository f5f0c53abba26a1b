import Foundation
import Schemas
import Indexer

/// One kind of output (a "page kind"): its name, the path template it is published under,
/// and the JSON Schema of its files. Each kind is declared once, beside the code that renders it,
/// so shape and schema cannot drift.
// A class, immutable: 100,000 files share one kind, and copying a file copies its kind; as a struct that was four
// reference counts on the same cache lines, bumped by both threads for every file.
public final class OutputKind: Sendable {
    /// Stable name; the schema is published at `schemas/{name}.schema.json`.
    public let name: String
    /// Path template of its files, e.g. `categories/{categoryId}.json` (documentation, OpenAPI).
    public let pathTemplate: String
    /// One sentence for the README and OpenAPI.
    public let summary: String
    /// Draft 2020-12 schema body; `$schema`, `$id` and `title` are added when published.
    public let schema: JSON
    /// Schemas of the parts of a file written from fragments (`Content.fragmented`), by name: when a build copies
    /// most of such a file from the previous tree, it checks the parts it rendered against these.
    public let fragments: [String: JSON]
    /// The type's name in `types/index.d.ts` when it is declared (a collection's `types`); otherwise the design
    /// documents' model name or the openapi.json component name (see `TypeScriptTypes`).
    public let typeName: String?
    /// The setting that makes its files smaller or leaves them out, named when one is over the target's file limit.
    public let sizeSetting: SizeSetting?

    public init(name: String, pathTemplate: String, summary: String, schema: JSON, fragments: [String: JSON] = [:], typeName: String? = nil,
                sizeSetting: SizeSetting? = nil) {
        self.name = name; self.pathTemplate = pathTemplate; self.summary = summary; self.schema = schema; self.fragments = fragments
        self.typeName = typeName; self.sizeSetting = sizeSetting
        self.schemaPath = "schemas/\(name).schema.json"
    }

    /// Where its schema is published (one string for every file of the kind: a million files name it).
    public let schemaPath: String
}

/// What a file written from fragments asks to have checked (see `OutputFile.Content.fragmented`): these bytes against
/// the kind's fragment schema of this name, or against the whole kind's schema when `fragment` is nil.
public struct FragmentCheck: Sendable {
    public var bytes: [UInt8]
    public var fragment: String?
    public init(bytes: [UInt8], fragment: String?) { self.bytes = bytes; self.fragment = fragment }
}

/// A kind of file that is not JSON (a page, a picture, a script): declared like an `OutputKind`, with its media
/// type instead of a schema, so `openapi.json` and the summary can describe every file of the tree.
public struct AssetKind: Sendable, Equatable {
    /// Stable name (also the operation's name in openapi.json).
    public let name: String
    public let pathTemplate: String
    /// The media type a static host sends it with (as `ContentTypes`, used by `generator serve` and `generator publish`).
    public let mediaType: String
    public let summary: String

    public init(name: String, pathTemplate: String, mediaType: String, summary: String) {
        self.name = name; self.pathTemplate = pathTemplate; self.mediaType = mediaType; self.summary = summary
    }
}

/// A file of the tree, before it is serialised.
public struct OutputFile: Sendable {
    public enum Content: Sendable {
        case json(JSON)
        case bytes([UInt8])
        /// Rendered when the file is validated and serialised, then released at once: large kinds (100,000 product
        /// pages, a 90 MB search index) never sit in memory all together as JSON values. `weight` estimates the
        /// work (roughly the number of values), so the heaviest files start first.
        case deferred(weight: Int, render: @Sendable () throws -> JSON)
        /// Written as text straight from typed values when the file is serialised (no `JSON` value at all), then
        /// checked against its schema from the bytes: for the kinds with 100,000 files or 100 MB of text.
        case streamed(weight: Int, write: @Sendable (JSONStream) throws -> Void)
        /// Written like `streamed`, from fragments the next build may copy instead of rendering (see `FragmentReuse`):
        /// `write` gets the earlier version's fragments (none on a first build), records the new ones, and returns
        /// what must be checked when it copied any (the parts it rendered, each against its kind's fragment schema, or
        /// the whole kind's schema when the check names none). When it copied nothing, the whole text is checked.
        case fragmented(weight: Int, write: @Sendable (JSONStream, FragmentReuse) throws -> [FragmentCheck])

        /// The JSON value (rendering deferred content now; streamed content is written and parsed back); nil for raw bytes.
        func json() throws -> JSON? {
            switch self {
            case .json(let j): return j
            case .deferred(_, let render): return try render()
            case .streamed(_, let write):
                let s = JSONStream()
                try write(s)
                return try s.withBytes { try JSONReader.parse($0.assumingMemoryBound(to: UInt8.self)) }
            case .fragmented(_, let write):
                let s = JSONStream()
                _ = try write(s, FragmentReuse())
                return try s.withBytes { try JSONReader.parse($0.assumingMemoryBound(to: UInt8.self)) }
            case .bytes: return nil
            }
        }
    }
    public let path: String
    public private(set) var content: Content
    /// The kind it belongs to (its schema); nil only for non-JSON files, which say what they are in `asset`.
    public let kind: OutputKind?
    /// What a non-JSON file is (nil for JSON files).
    public private(set) var asset: AssetKind? = nil
    /// What the file is made from (see `Fingerprint`), when its renderer can tell without rendering it: a rebuild
    /// whose cache holds the same fingerprint for this path keeps the previous tree's file and renders nothing.
    /// Nil: the file is always rendered (and still kept when its bytes come out the same).
    public var fingerprint: Fingerprint? = nil
    /// True when the file carries the build time (so it changes with SOURCE_DATE_EPOCH alone) or only restates
    /// the other files (openapi.json). Release logic ignores such files when deciding whether content changed.
    public let stampsBuildTime: Bool
    /// For a file that stamps the build time but also carries content of its own (app-config.json's versions and
    /// features): a digest of that content without the time, so a change to it still makes a release.
    public var contentKey: String? = nil

    public init(path: String, json: JSON, kind: OutputKind, stampsBuildTime: Bool = false) {
        self.path = path; self.content = .json(json); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }
    /// A non-JSON file (checked by no schema; described in openapi.json by its asset kind). JSON files are never
    /// given as bytes: their schema could not check them.
    public init(path: String, bytes: [UInt8], asset: AssetKind) {
        self.path = path; self.content = .bytes(bytes); self.kind = nil; self.stampsBuildTime = false; self.asset = asset
    }
    /// A JSON file rendered only when it is validated and serialised (see `Content.deferred`).
    public init(path: String, kind: OutputKind, stampsBuildTime: Bool = false, weight: Int, render: @escaping @Sendable () throws -> JSON) {
        self.path = path; self.content = .deferred(weight: weight, render: render); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }
    /// A JSON file written as text when it is validated and serialised (see `Content.streamed`).
    public init(path: String, kind: OutputKind, stampsBuildTime: Bool = false, weight: Int, write: @escaping @Sendable (JSONStream) throws -> Void) {
        self.path = path; self.content = .streamed(weight: weight, write: write); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }
    init(path: String, content: Content, kind: OutputKind?, stampsBuildTime: Bool) {
        self.path = path; self.content = content; self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }

    /// A JSON file written from fragments (see `Content.fragmented`).
    public init(path: String, kind: OutputKind, stampsBuildTime: Bool = false, weight: Int,
                fragments write: @escaping @Sendable (JSONStream, FragmentReuse) throws -> [FragmentCheck]) {
        self.path = path; self.content = .fragmented(weight: weight, write: write); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }

    /// The same file with deferred content rendered now (to time a unit on its own).
    func materialised() throws -> OutputFile {
        switch content {
        case .deferred, .fragmented: break
        case .streamed(_, let write):
            let s = JSONStream()
            try write(s)
            var f = OutputFile(path: path, content: .streamed(weight: 1, write: { [bytes = s.bytes] in $0.raw(bytes) }), kind: kind, stampsBuildTime: stampsBuildTime)
            f.contentKey = contentKey
            f.fingerprint = fingerprint
            return f
        default: return self
        }
        guard let json = try content.json() else { return self }
        var f = OutputFile(path: path, content: .json(json), kind: kind, stampsBuildTime: stampsBuildTime)
        f.contentKey = contentKey
        f.fingerprint = fingerprint
        return f
    }

    /// Lets go of its content (once serialised, only its path, kind and flags are needed), in place: the rest is not
    /// copied, once per file of 100,000.
    mutating func dropContent() { content = .bytes([]) }
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
    /// by name: `BuildCache.memos`, read back through `EarlierTree.memo`).
    public var memos: [String: [Int32]] = [:]
    public init(files: [OutputFile] = [], kinds: [OutputKind] = [], report: [ReportItem] = [],
                later: [@Sendable () throws -> [OutputFile]] = []) {
        self.files = files; self.kinds = kinds; self.report = report; self.later = later
    }
}

/// Everything a domain may read: the configuration and the input folder, plus the build clock.
/// Domains never write files (the writer does) and hold no global state.
public struct BuildContext: Sendable {
    public var site: SiteConfig
    public var inputDirectory: URL
    /// ISO-8601 UTC timestamp of this build (from SOURCE_DATE_EPOCH when set).
    public var generatedAt: String
    public var epochSeconds: Int
    /// Worker threads for parallel stages (1 = sequential); results never depend on it.
    public var threads: Int
    /// Turn bad data rows into counted warnings instead of failing (domains that support it).
    public var skipBadRows: Bool
    /// Results kept from earlier builds of the same process (`BuildOptions.memory`), or nil.
    public var memory: BuildMemory?
    /// The output's tree as the build cache describes it, when there is a cache this build may use.
    var earlier: EarlierTree?
    /// The build cache's products snapshot (nil without a cache).
    var productSnapshot: ProductSnapshotFile?

    public init(site: SiteConfig, inputDirectory: URL, epochSeconds: Int, threads: Int, skipBadRows: Bool = false) {
        self.site = site; self.inputDirectory = inputDirectory; self.epochSeconds = epochSeconds
        self.generatedAt = ISODate.format(epochSeconds: epochSeconds)
        self.threads = max(1, threads); self.skipBadRows = skipBadRows
    }

    /// Path of an input file as shown in messages (relative to the input folder's parent when possible).
    public func displayPath(_ url: URL) -> String {
        let base = inputDirectory.deletingLastPathComponent().standardizedFileURL.path
        let p = url.standardizedFileURL.path
        return p.hasPrefix(base + "/") ? String(p.dropFirst(base.count + 1)) : p
    }
}

/// A domain turns its inputs into output files: Read → Check → Compute → Emit.
public protocol Domain: Sendable {
    var name: String { get }
    /// Whether this domain has inputs in this build (e.g. `input/auctions/` exists).
    func isPresent(in context: BuildContext) -> Bool
    func build(_ context: BuildContext) throws -> DomainResult
}

/// Dates are formatted in one place: ISO-8601 UTC with a `Z`, no fractional seconds.
public enum ISODate {
    public static func format(epochSeconds: Int) -> String {
        var t = time_t(epochSeconds)
        var tmv = tm()
        gmtime_r(&t, &tmv)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(tmv.tm_year) + 1900, Int(tmv.tm_mon) + 1,
                      Int(tmv.tm_mday), Int(tmv.tm_hour), Int(tmv.tm_min), Int(tmv.tm_sec))
    }
    /// `YYYY-MM-DD` of an epoch time (UTC).
    public static func day(epochSeconds: Int) -> String { String(format(epochSeconds: epochSeconds).prefix(10)) }
}

/// The tree in the output as the build cache describes it (a cache of this executable, for the release the output
/// holds): what each file was made from, and its bytes, checked against the release's index. With it a domain keeps
/// work the cache cannot keep by path alone: the ranked index's term shards, named by their content.
final class EarlierTree: @unchecked Sendable {
    /// (Read on another thread while the build goes on: waited for only when a unit looks for kept work.)
    private let cache: @Sendable () -> [String: BuildCache.Entry]
    private let release: PreviousRelease

    private let lock = NSLock()
    private var said: [String] = []

    private let memos: @Sendable () -> [String: [Int32]]

    init(cache: @escaping @Sendable () -> [String: BuildCache.Entry], memos: @escaping @Sendable () -> [String: [Int32]] = { [:] },
         release: PreviousRelease) {
        self.cache = cache; self.memos = memos; self.release = release
    }

    /// What the build before kept under `name` (`DomainResult.memos`): unchecked, for the caller to check.
    func memo(_ name: String) -> [Int32]? { memos()[name] }

    /// What was kept this way, for the build's summary.
    var notes: [String] { lock.lock(); defer { lock.unlock() }; return said }
    func note(_ text: String) { lock.lock(); said.append(text); lock.unlock() }

    /// The files the cache says were made from `fingerprint`.
    func paths(madeFrom fingerprint: Fingerprint) -> Set<String> {
        Set(cache().lazy.filter { $0.value.fingerprint == fingerprint }.map(\.key))
    }

    /// The file under `folder` the cache says was made from `fingerprint` (the files of a folder by fingerprint, made
    /// once: hundreds of content-named shards each look themselves up).
    func path(madeFrom fingerprint: Fingerprint, in folder: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        if byFingerprint[folder] == nil {
            var table: [Fingerprint: String] = [:]
            for (path, e) in cache() where path.hasPrefix(folder) && path.utf8.count > folder.utf8.count {
                // (Two files of one fingerprint: neither is taken.)
                table[e.fingerprint] = table[e.fingerprint] == nil ? path : ""
            }
            byFingerprint[folder] = table
        }
        return byFingerprint[folder]![fingerprint].flatMap { $0.isEmpty ? nil : $0 }
    }
    private var byFingerprint: [String: [Fingerprint: String]] = [:]

    /// A file's bytes, when the output still has it as the release's index describes it (size and hash).
    func read(_ path: String) -> [UInt8]? {
        guard let file = release.earlier(path) else { return nil }
        var bytes = [UInt8](repeating: 0, count: file.size)
        guard bytes.withUnsafeMutableBytes({ file.read(0, $0) }) else { return nil }
        return bytes
    }
}
