import Foundation
import Schemas
import Crypto
import TreeClient
import Indexer

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

/// The pipeline: Input → Model → Compute → Emit (domains) → Validate + Serialise → Manifest → Write.
public enum Build {
    /// Every domain the compiler knows, in build order.
    public static let domains: [Domain] = [CatalogDomain(), CollectionsDomain(), AuctionsDomain(), NBADomain()]

    /// Refuses an unsafe output or previous release (`OutputGuard.Refusal`) before anything is touched, and throws
    /// `BuildLock.Busy` when another build holds the output for longer than `options.lockWait`.
    /// `waiting`: told once, with the holder's pid, when the build starts waiting for another one.
    /// The stages, in order (see `BuildRun`); a build whose inputs or content are the previous release's stops early.
    public static func run(_ options: BuildOptions, domains: [Domain] = Build.domains,
                           progress: @escaping (String) -> Void = { _ in }, waiting: (Int32?) -> Void = { _ in }) throws -> BuildSummary {
        let run = try BuildRun(options, progress: progress)
        defer {
            run.close()   // (a failed build leaves nothing running, staged or locked)
            if options.leavesMemoryToExit { _ = Unmanaged.passRetained(run) }
        }
        if let unchanged = try run.start(domains: domains, waiting: waiting) { return unchanged }
        try run.readOutputTree()
        try run.compile(domains)
        try run.addTreeFiles()
        try run.validateAndStage()
        if let unchanged = try run.check() { return unchanged }
        try run.makeRelease()
        try run.commit()
        try run.saveCache()
        return run.summary
    }

    /// `openapi.json` describes the files of this release, including the release files written after it
    /// (file index, update manifest, and deltas when there is a release to compare with).
    /// It only restates the other files' paths, so it is left out of the content digest: the appearance of the
    /// delta path on a second build must not make a release of its own.
    static func openAPI(files: [OutputFile], kinds: [OutputKind], site: SiteConfig, hasPrevious: Bool) throws -> OutputFile {
        var scan = OpenAPIDocument.PathScan()
        for f in files { try scan.add(f) }
        return try openAPI(scan: scan, kinds: kinds, site: site, hasPrevious: hasPrevious)
    }

    /// The same from the scan of the files' paths (in the tree's order).
    static func openAPI(scan: OpenAPIDocument.PathScan, kinds: [OutputKind], site: SiteConfig, hasPrevious: Bool) throws -> OutputFile {
        var scan = scan
        var release = [("releases/1/files.json", ManifestKinds.fileIndex), ("update-manifest.json", ManifestKinds.manifest)]
        if hasPrevious { release.append(("releases/2/delta-from-1.json", ManifestKinds.delta)) }
        release.append((OpenAPIDocument.path, OpenAPIDocument.kind))
        for (path, kind) in release { try scan.add(path, kind: kind.name, template: kind.pathTemplate) }
        let doc = try OpenAPIDocument.render(kinds: kinds, assets: scan.assets, scan: scan, site: site)
        return OutputFile(path: OpenAPIDocument.path, json: doc, kind: OpenAPIDocument.kind, stampsBuildTime: true)
    }

    struct Rendered {
        let path: String; let size: Int; let sha256: String; let schema: String?
        /// Kept from the output's tree by its fingerprint, not rendered (`keptFragments`: a file written from fragments,
        /// which the cache describes).
        var reused = false, keptFragments = false
        /// A file written from fragments: its `Checksum` (see `BuildCache.Entry.checksum`).
        var checksum: [UInt8] = []
        /// Where its fragments lie (a file written from fragments), and how many were copied from the earlier version.
        var fragments: [(key: Fingerprint, range: Range<Int>)] = []
        var order: [Int32] = []
        var copiedFragments = 0
        /// Its fragments copied from the earlier version: where each was there and is here.
        var same: [(old: Range<Int>, new: Range<Int>)] = []
        /// Objects whose members a splice placed: where they are there and here (see `FragmentReuse.objects`).
        var objects: [(old: ObjectLayout, new: ObjectLayout)] = []
    }

    /// The tree in the output folder (`previous` when the build follows the output's own release, else whatever
    /// release the output holds), whose unchanged files are kept rather than written.
    static func outputTree(_ options: BuildOptions, previous: PreviousRelease?) throws -> PreviousRelease? {
        try options.previousSite == nil && !options.firstRelease
            && (options.previous.map { $0.standardizedFileURL == options.output.standardizedFileURL } ?? true)
            ? previous : PreviousRelease.load(from: options.output)
    }

    /// The fragments of the files written from fragments in this build and in the one before (as the cache says).
    static func fragmentLayouts(_ rendered: [Rendered], cache: [String: BuildCache.Entry]) -> [String: ReleaseFiles.Fragments] {
        var out: [String: ReleaseFiles.Fragments] = [:]
        // (By position: a loop over the records would copy each of 100,000 to look at two fields.)
        for i in rendered.indices where !rendered[i].fragments.isEmpty && !rendered[i].reused {
            let r = rendered[i]
            guard let c = cache[r.path], !c.fragments.isEmpty else { continue }
            var layout = ReleaseFiles.Fragments(oldSha256: c.sha256, old: c.fragments.map(\.range), new: r.fragments.map(\.range))
            layout.same = r.same
            layout.objects = r.objects
            out[r.path] = layout
        }
        return out
    }

    /// Writes the cache of the tree now in the output: each fingerprinted file with its hash and size, in file order.
    static func saveCache(_ files: [OutputFile], _ rendered: [Rendered], previous: [String: BuildCache.Entry], release: String, to url: URL,
                          output: URL, memos: [String: [Int32]] = [:], summary: inout BuildSummary) {
        let bytes = BuildCache.finish(cacheBytes(files, rendered, previous: previous, release: release),
                                      stamps: stamps(rendered, in: output), memos: memos)
        if let why = BuildCache.save(bytes: bytes, to: url) { summary.warnings.append(why) }
    }

    /// The stamps of the files written from fragments (the large ones a later build reads back), as they are in the
    /// output now that the tree is in place (see `BuildCache.stamps`).
    static func stamps(_ rendered: [Rendered], in output: URL) -> [String: FileStamp] {
        var out: [String: FileStamp] = [:]
        for i in rendered.indices where !rendered[i].fragments.isEmpty || rendered[i].keptFragments {
            let r = rendered[i]
            if let st = FileStamp(path: output.appendingPathComponent(r.path).path), st.size == r.size { out[r.path] = st }
        }
        return out
    }

    /// The cache of a tree: each fingerprinted file with its hash and size, in file order.
    static func cacheBytes(_ files: [OutputFile], _ rendered: [Rendered], previous: [String: BuildCache.Entry], release: String) -> [UInt8] {
        let entries = files.indices.lazy.compactMap { i -> (String, BuildCache.Entry)? in
            guard let fp = files[i].fingerprint else { return nil }
            let r = rendered[i]
            var e = BuildCache.Entry(fingerprint: fp, sha256: r.sha256, size: r.size)
            // (A file kept as it was keeps its fragments.)
            if r.keptFragments, let p = previous[r.path] { (e.fragments, e.order, e.checksum) = (p.fragments, p.order, p.checksum) }
            else if !r.reused { (e.fragments, e.order, e.checksum) = (r.fragments, r.order, r.checksum) }
            return (r.path, e)
        }
        return BuildCache.encode(release: release, entries)
    }

    /// The release files against their schemas, like every other file: a release must not publish a manifest or an
    /// index that breaks its own contract. Largest first on every worker (a 100k-file index is ≈ 18 MB of text).
    static func check(_ files: [ReleaseFiles.NewFile], checkers: [OutputValidation]) throws {
        let order = files.indices.sorted { (files[$0].bytes.count, $1) > (files[$1].bytes.count, $0) }
        let found = Parallel.map(files.count, order: order, threads: checkers.count) { worker, i in
            checkers[worker].check(text: files[i].bytes, path: files[i].path, kind: files[i].kind)
        }
        if let first = found.lazy.compactMap({ $0 }).first { throw first }
    }

    /// `earlier`: the output's current version of a file the cache describes (for files written from fragments).
    static func serialise(_ files: inout [OutputFile], checkers: [OutputValidation], into staged: StagedTree,
                          cache: [String: BuildCache.Entry] = [:], earlier: (String, BuildCache.Entry) -> EarlierFile? = { _, _ in nil },
                          ticker: ProgressTicker? = nil) throws -> [Rendered] {
        let threads = checkers.count
        var seen = Set<String>(minimumCapacity: files.count)
        for i in files.indices where !seen.insert(files[i].path).inserted { throw BuildError(file: "(output)", "two outputs claim the path \(files[i].path)") }
        var out = [Rendered?](repeating: nil, count: files.count)
        var invalid = [BuildError?](repeating: nil, count: files.count)
        var errors = [String?](repeating: nil, count: files.count)
        // Largest files first: a search index takes seconds on its own and must not start last.
        let weights = files.indices.map { weight(files[$0].content) }
        let order = files.indices.sorted { (weights[$0], $1) > (weights[$1], $0) }
        // Each worker notes the files it keeps on its own (see `StagedTree.Keeper`), handed to the tree at the end.
        var keepers = [StagedTree.Keeper](repeating: .init(), count: max(threads, 1))
        defer { staged.adopt(keepers) }
        files.withUnsafeMutableBufferPointer { inputs in
        out.withUnsafeMutableBufferPointer { res in
        invalid.withUnsafeMutableBufferPointer { bad in
        keepers.withUnsafeMutableBufferPointer { keepers in
            errors.withUnsafeMutableBufferPointer { errs in
                // The heaviest files one at a time, then the light ones (pages, mostly kept) a few at a time.
                Parallel.forEach(order, threads: threads, singles: threads * 64, batch: 32) { worker, i in
                    let started = TraceClock.isOn ? Date() : nil
                    defer {
                        inputs[i].dropContent(); ticker?.advance()
                        if let started, Date().timeIntervalSince(started) > 0.05 {
                            FileHandle.standardError.write(Data("  [trace] file \(inputs[i].path): \(String(format: "%.3f", Date().timeIntervalSince(started))) s\n".utf8))
                        }
                    }
                    let schema = inputs[i].kind.map { $0.name == SchemaPublisher.metaKind.name ? SchemaPublisher.metaSchemaURI : $0.schemaPath }
                    // Made from the same inputs as the output's file: kept as it is (checked when it was made). (Its
                    // fields read in place: 100,000 kept files are not copied whole.)
                    if let fp = inputs[i].fingerprint, let c = cache[inputs[i].path], c.fingerprint == fp,
                       staged.keep(inputs[i].path, sha256: c.sha256, size: c.size, in: &keepers[worker]) {
                        res[i] = Rendered(path: inputs[i].path, size: c.size, sha256: c.sha256, schema: schema, reused: true, keptFragments: !c.fragments.isEmpty)
                        return
                    }
                    let f = inputs[i], checker = checkers[worker]
                    do {
                        // Hash and stage the bytes straight from the writer's buffer: nothing is copied or kept.
                        func stage(_ bytes: UnsafeRawBufferPointer) throws -> Rendered {
                            let sha = sha256Hex(bytes)
                            try staged.put(f.path, bytes: bytes, sha256: sha)
                            return Rendered(path: f.path, size: bytes.count, sha256: sha, schema: schema)
                        }
                        if case .streamed(_, let write) = f.content {
                            let text = JSONStream(capacity: 1024)
                            try write(text)
                            res[i] = try text.withBytes { bytes -> Rendered? in
                                if let k = f.kind, let e = checker.check(text: bytes, path: f.path, kind: k) { bad[i] = e; return nil }
                                return try stage(bytes)
                            }
                        } else if case .fragmented(_, let write) = f.content {
                            // The earlier version's fragments, when the cache knows them and the output still has that file.
                            var reuse = FragmentReuse()
                            var size = 1024
                            if let c = cache[f.path], !c.fragments.isEmpty, let old = earlier(f.path, c) {
                                reuse = FragmentReuse(size: old.size, ranges: c.fragments, order: c.order, read: { old.read($0, $1) })
                                size = old.size + 65536   // (about the new size: a 90 MB buffer is not grown by copies)
                            }
                            let text = JSONStream(capacity: size)
                            let checks = try write(text, reuse)
                            res[i] = try text.withBytes { bytes -> Rendered? in
                                if let k = f.kind {
                                    // Copied parts were checked when they were made (by this very executable: see BuildCache).
                                    let found = reuse.copied == 0 ? checker.check(text: bytes, path: f.path, kind: k)
                                        : checks.lazy.compactMap { c in checker.check(text: c.bytes, path: f.path, kind: k, fragment: c.fragment) }.first
                                    if let e = found { bad[i] = e; return nil }
                                }
                                var r = try stage(bytes)
                                r.fragments = reuse.written
                                r.order = reuse.order
                                r.checksum = Checksum.of(bytes)
                                r.copiedFragments = reuse.copied
                                r.same = reuse.same
                                r.objects = reuse.objects
                                return r
                            }
                        } else if let j = try f.content.json() {
                            if let k = f.kind, let e = checker.check(j, path: f.path, kind: k) { bad[i] = e; return }
                            res[i] = try JSONWriter().withBytes(j, stage)
                        } else if case .bytes(let b) = f.content {
                            res[i] = try b.withUnsafeBytes(stage)
                        }
                    } catch {
                        errs[i] = "\(f.path): \(error)"
                    }
                }
            }
        }
        }
        }
        }
        let violations = Array(invalid.compactMap { $0 }.prefix(20))
        if !violations.isEmpty { throw BuildErrors(violations) }
        if let e = errors.compactMap({ $0 }).first { throw BuildError(file: "(output)", e) }
        return out.map { $0! }
    }

    /// A cheap estimate of a file's work: the number of values in its first two levels.
    static func weight(_ content: OutputFile.Content) -> Int {
        func size(_ v: JSON) -> Int {
            switch v {
            case .array(let a): return a.count
            case .object(let o): return o.count
            default: return 0
            }
        }
        switch content {
        case .bytes(let b): return b.count / 64
        case .deferred(let weight, _), .streamed(let weight, _), .fragmented(let weight, _): return weight
        case .json(.array(let a)): return a.reduce(a.count) { $0 + size($1) }
        case .json(.object(let o)): return o.members.reduce(o.count) { $0 + size($1.value) }
        case .json: return 1
        }
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { sha256Hex($0) } }

    static func sha256Hex(_ bytes: UnsafeRawBufferPointer) -> String {
        let digest = SHA256.hash(data: bytes)
        var s = ""
        s.reserveCapacity(64)
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8](); out.reserveCapacity(64)
        for b in digest { out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 0xF)]) }
        s = String(decoding: out, as: UTF8.self)
        return s
    }

    /// Refuses a later batch of files that claims a path the tree has staged already (the staging folder would keep
    /// one of them). Asked of the staged tree, which knows its paths: no second table of 100,000 paths for a few.
    static func requireDistinctPaths(_ batch: [OutputFile], staged: StagedTree) throws {
        if let dup = batch.first(where: { staged.has($0.path) }) {
            throw BuildError(file: "(output)", "two outputs claim the path \(dup.path)")
        }
    }

    /// What each file contributes to the content digest, by position: its hash, or for a file stamped with the build
    /// time its content key (its content without the stamp); openapi.json has neither and contributes nothing.
    static func contentEntries(_ files: [OutputFile], _ rendered: [Rendered]) -> [(String, String)?] {
        // (By position, fields read in place: zipping copied each file's description and record, 100,000 of each.)
        files.indices.map { i in files[i].stampsBuildTime ? files[i].contentKey.map { (rendered[i].path, $0) } : (rendered[i].path, rendered[i].sha256) }
    }

    /// The digest of the tree's content: every file's entry in path order.
    static func contentDigest(_ files: [OutputFile], _ rendered: [Rendered]) -> String {
        contentDigest(contentEntries(files, rendered), inPathOrder: pathOrder(rendered).order)
    }

    /// Positions of `rendered` in path order (paths are distinct): `kept` (the build before's, from the build cache)
    /// when it still is (`taken`), else sorted (see `KeptOrder`).
    static func pathOrder(_ rendered: [Rendered], kept: [Int32]? = nil) -> (order: [Int], taken: Bool) {
        KeptOrder.order(kept, count: rendered.count) { rendered[$0].path < rendered[$1].path }
    }

    /// The name the files' order by path is kept under in the build cache.
    static let pathOrderMemo = "build.pathOrder"

    /// The same from the entries (`contentEntries`) and their order by path.
    static func contentDigest(_ entries: [(String, String)?], inPathOrder order: [Int]) -> String {
        // One buffer, one hash update (the same bytes as hashing entry by entry).
        var buffer: [UInt8] = []
        buffer.reserveCapacity(entries.count * 100)
        for i in order {
            guard let (path, content) = entries[i] else { continue }
            buffer += path.utf8; buffer.append(0); buffer += content.utf8; buffer.append(0x0A)
        }
        return sha256Hex(buffer)
    }
}

extension SiteConfig {
    /// Only for messages before site.json is read.
    static let placeholder = SiteConfig(siteName: "", baseURL: "https://example.invalid/", appVersion: "0", minimumAppVersion: "0",
                                        urlScheme: "app", webBaseURL: "", features: [], cachingStrategy: "", ttl: [], imageSizes: [],
                                        defaultImageSize: "small", offlineBudgetBytes: 0, offlineProductsPerCategory: 0, pageSize: 0, target: .githubPages, sections: [:])
}
