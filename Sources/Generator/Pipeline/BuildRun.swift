import Foundation
import Crypto
import Schemas
import TreeClient

#if canImport(Glibc)
/// glibc's `malloc_trim` (not in Swift's Glibc module): returns freed heap memory to the system.
@_silgen_name("malloc_trim") private func c_malloc_trim(_ pad: Int) -> Int32
#else
private func c_malloc_trim(_ pad: Int) -> Int32 { 0 }
#endif

/// One build, stage by stage (`Build.run` calls them in order): what each stage reads from the ones before is a
/// property here. Each stage says when it starts (`begin`), and ends with `stage(name)`, which records its time (and,
/// with `GENERATOR_TRACE`, its CPU time and memory).
final class BuildRun {
    private(set) var options: BuildOptions
    private(set) var summary = BuildSummary()
    private let progress: (String) -> Void
    private let ticker: ProgressTicker?
    private var clock = Date()
    private var cpuBefore = 0.0
    private let trace = ProcessInfo.processInfo.environment["GENERATOR_TRACE"] != nil

    // Inputs (`start`).
    private var context: BuildContext!
    private var site: SiteConfig { context.site }
    private var release: ReleaseSettings!
    /// The inputs' digest, hashed on a thread of its own (a first build needs it only for the release files, and
    /// reading the previous release overlaps it otherwise).
    private var fingerprint: Background<String>?
    private var lock: BuildLock?

    // The release this one follows and the tree in the output (`start`, `readOutputTree`).
    private var sitePrevious: PreviousRelease?
    private var previousLoaded: PreviousRelease??
    private var previous: PreviousRelease?
    private var current: PreviousRelease?
    private var cacheFile: URL!
    private var cacheRead: Background<Result<BuildCache, BuildCache.Unused>>?
    private var snapshotFile: ProductSnapshotFile?
    /// What the output's files were made from (empty, and the summary says why, when the cache cannot be used).
    private var cache: [String: BuildCache.Entry] = [:]
    /// The build cache was read and taken: it describes the output's release, made by this very executable.
    private var cacheTaken = false

    // The tree (`compile` … `validateAndStage`).
    private var files: [OutputFile] = []
    private var later: [@Sendable () throws -> [OutputFile]] = []
    /// What the domains worked out for a later build to take again (`DomainResult.memos`): kept in the build cache.
    private var memos: [String: [Int32]] = [:]
    private var kinds: [String: OutputKind] = [:]
    private var siteAppConfig = false
    private var lateFiles: Background<[OutputFile]>?
    private var checkers: [OutputValidation] = []
    private var staged: StagedTree?
    private var rendered: [Build.Rendered] = []
    private var digest = ""
    /// `rendered`'s positions in path order.
    private var pathOrder: [Int] = []

    // The release (`makeRelease`, `commit`, `saveCache`).
    private var version = 0
    private var tree: [ReleaseFiles.TreeFile] = []
    private var cacheBytes: Background<([UInt8], Checksum)>?

    /// Refuses an unsafe output, previous release or cache folder (`OutputGuard.Refusal`) before anything is touched.
    init(_ options: BuildOptions, progress: @escaping (String) -> Void) throws {
        // First of all: a build replaces its output folder, so it must be one that may be replaced.
        let checked = try OutputGuard.check(output: options.output.path, input: options.input.path, previous: options.previous?.path)
        var options = options
        options.output = checked.output
        options.previous = checked.previous
        if let folder = options.cacheFolder {
            options.cacheFolder = try OutputGuard.check(cache: folder.path, output: checked.output, input: options.input.path)
        }
        self.options = options
        self.progress = progress
        ticker = options.progressInterval.map { ProgressTicker(interval: $0, report: progress) }
    }

    /// Whatever a failed build leaves running or staged, let go (nothing once the tree is committed): in the reverse
    /// order of their making, the staged tree before the lock.
    func close() {
        cacheBytes?.join()
        staged?.discard()
        lateFiles?.join()
        cacheRead?.join()
        snapshotFile?.close()
        lock?.release()
        _ = try? fingerprint?.wait()
        ticker?.stop()
    }

    /// A stage starts: said at once, then repeated with its count while it lasts (with a ticker).
    private func begin(_ name: String, total: Int? = nil) {
        if let ticker { ticker.begin(name, total: total) } else { progress(name) }
    }

    /// A stage ends: its time recorded.
    private func stage(_ name: String) {
        // Memory freed by the stage goes back to the system (glibc keeps it otherwise: after the catalog's records or
        // the staged pages, hundreds of MB the next stage would not reuse in the same shapes).
        _ = c_malloc_trim(0)
        let now = Date()
        let wall = now.timeIntervalSince(clock)
        summary.stageSeconds.append((name, wall))
        clock = now
        if trace {
            // CPU time against wall time shows how well a stage uses the cores.
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            FileHandle.standardError.write(Data(String(format: "  [trace] after %@: %.2f s wall, %.2f s CPU, peak memory %d MB, now %d MB (%d MB in huge pages)\n",
                                                       name, wall, cpu - cpuBefore, usage.ru_maxrss / 1024, TraceClock.residentMB(),
                                                       TraceClock.hugePagesMB()).utf8))
            cpuBefore = cpu
        }
    }

    /// The summary of a build that made no new release: the previous one stands.
    private func unchanged(_ previous: PreviousRelease) -> BuildSummary {
        summary.changed = false
        summary.version = previous.version
        summary.currentVersion = previous.currentVersion
        summary.fileCount = previous.files.count + 1
        return summary
    }

    /// Reads the site's settings, takes the output's lock and reads the release this one follows; returns the summary
    /// when the inputs and compiler are those of that release (the tree would be the same: nothing is done).
    /// `waiting`: told once, with the holder's pid, when the build starts waiting for another one.
    func start(domains: [Domain], waiting: (Int32?) -> Void) throws -> BuildSummary? {
        var clock = TraceClock()
        let siteURL = options.input.appendingPathComponent("site.json")
        let probe = BuildContext(site: SiteConfig.placeholder, inputDirectory: options.input, epochSeconds: options.epochSeconds, threads: options.threads)
        guard FileManager.default.fileExists(atPath: options.input.path) else {
            throw BuildError(file: options.input.path, "input folder not found")
        }
        let site = try SiteConfig.load(siteURL, displayName: probe.displayPath(siteURL))
        context = BuildContext(site: site, inputDirectory: options.input, epochSeconds: options.epochSeconds,
                               threads: options.threads, skipBadRows: options.skipBadRows)
        context.memory = options.memory
        release = try ReleaseSettings.read(site, file: context.displayPath(siteURL))

        // Only for the standard domains: the fingerprint knows the executable, not domains passed in by a caller.
        let input = options.input, skipBadRows = options.skipBadRows
        let fingerprint = Background { try InputFingerprint.digest(input: input, skipBadRows: skipBadRows) }
        self.fingerprint = fingerprint
        // One writer at a time, from reading the previous release to the swap; a killed build's leftovers go first,
        // whether or not this build writes anything.
        let lock = try BuildLock(output: options.output, wait: options.lockWait, waiting: waiting)
        self.lock = lock
        // Again, now that no build can change it: the output may have changed while this build waited.
        _ = try OutputGuard.check(output: options.output.path, input: options.input.path, previous: options.previous?.path)
        StagedTree.removeAbandoned(beside: options.output, holding: lock)
        BuildCache.removeAbandonedTemporaries(of: BuildCache.location(for: options.output, folder: options.cacheFolder))
        clock.lap("settings and lock")

        // The release this one follows: the live site's, a folder's (--previous DIR or the output's own), or none.
        // Read before any dataset, so an unreachable site costs seconds, not a whole compile.
        if options.firstRelease {
            summary.notes.append("--first-release: a new release history starts at version 1" + (options.previousSite.map { " (\($0.absoluteString) was not read)" } ?? ""))
        } else if let site = options.previousSite {
            summary.previousSite = site.absoluteString
            progress("reading the previous release from \(site.absoluteString)")
            sitePrevious = try PreviousRelease.load(site: site, fetcher: HTTPFetcher(options.http), progress: progress)
            summary.notes.append(sitePrevious.map { "previous release: version \($0.version) (\($0.currentVersion)) at \(site.absoluteString)" }
                                 ?? "no release published at \(site.absoluteString) yet (update-manifest.json: HTTP 404): this is release 1")
        }
        // Fast path: same inputs and same compiler as the release in the output folder → same tree.
        if options.previous == nil, domains.map(\.name) == Build.domains.map(\.name), let previous = try previousRelease() {
            clock.lap("previous release")
            let same = previous.inputDigest == (try fingerprint.wait())
            clock.lap("input fingerprint")
            if same { return unchanged(previous) }
        }
        return nil
    }

    /// The previous release (read once: a 100,000-file index takes a while to parse).
    private func previousRelease() throws -> PreviousRelease? {
        if options.firstRelease { return nil }
        if options.previousSite != nil { return sitePrevious }
        if let p = previousLoaded { return p }
        let p = try PreviousRelease.load(from: options.previous ?? options.output)
        previousLoaded = .some(p)
        return p
    }

    /// The release this one follows, and the tree in the output with what its files were made from (the build cache,
    /// read, checked and matched to that tree's release on a thread of its own while the domains read their inputs):
    /// read before the domains, which may keep parts of their work from it.
    func readOutputTree() throws {
        var clock = TraceClock()
        previous = try previousRelease()
        clock.lap("previous release and input fingerprint")
        let current = try Build.outputTree(options, previous: previous)
        self.current = current
        let cacheFile = BuildCache.location(for: options.output, folder: options.cacheFolder)
        self.cacheFile = cacheFile
        if options.useCache {
            snapshotFile = ProductSnapshotFile(url: ProductSnapshot.location(cache: cacheFile))
            context.productSnapshot = snapshotFile
        }
        if options.useCache, let current {
            let read = Background { () -> Result<BuildCache, BuildCache.Unused> in
                let found = BuildCache.load(cacheFile, release: current.fileIndex.sha256)
                // Its large files as they were when that build left them: not hashed again while they still are.
                if case .success(let c) = found {
                    current.verified.add(c.stamps)
                    // Those whose stamps changed (a tree copied or restored: new inodes) are hashed now, while the
                    // domains read their inputs, rather than when their new versions are spliced from them (opened the
                    // safe way, as the release lists them; one whose stamp is known is not read).
                    for (path, e) in c.entries where !e.fragments.isEmpty && current.entries.sha256(of: path) == e.sha256 {
                        _ = current.earlier(path, checksum: e.checksum)
                    }
                }
                return found
            }
            cacheRead = read
            context.earlier = EarlierTree(cache: { (try? read.wait().get().entries) ?? [:] }, memos: { (try? read.wait().get().memos) ?? [:] },
                                          release: current)
        }
        clock.lap("output tree")
        stage("config")
    }

    /// Emit: every present domain reads its inputs and renders its files (content-named ones are made later).
    func compile(_ domains: [Domain]) throws {
        for domain in domains where domain.isPresent(in: context) {
            begin("\(domain.name): reading and compiling")
            let result = try domain.build(context)
            ticker?.end()
            stage(domain.name)
            if files.isEmpty { files = result.files } else { files += result.files }   // (the first list taken, not copied)
            later += result.later
            memos.merge(result.memos) { a, _ in a }
            for k in result.kinds { kinds[k.name] = k }
            summary.report += result.report
            progress("\(domain.name): \(result.files.count) files")
        }
        summary.productLinesReused = snapshotFile?.reused ?? 0
        switch try cacheRead?.wait() {
        case .success(let c)?: cache = c.entries; cacheTaken = true
        case .failure(let why)?: summary.notes.append(why.description)
        case nil: break
        }
    }

    /// The files every tree has besides the domains' (schemas of every kind used, TypeScript declarations, what GitHub
    /// Pages needs); the content-named files set building on a thread of their own; the schemas compiled.
    func addTreeFiles() throws {
        // The app's entry point is in every tree: without a catalog it is written after the other files, versioned
        // by their content.
        siteAppConfig = !files.contains { $0.path == "app-config.json" }
        if siteAppConfig { kinds[AppConfigOutput.kind.name] = AppConfigOutput.kind }
        for k in [ManifestKinds.fileIndex, ManifestKinds.delta, ManifestKinds.manifest, OpenAPIDocument.kind] { kinds[k.name] = k }
        // Schemas of every kind used, then the files GitHub Pages needs: .nojekyll (serve the tree as is) and 404.html.
        // (Room made for them at once: appending would double the capacity of a list of a million files.)
        files.reserveCapacity(files.count + kinds.count + 3)
        for k in kinds.values.sorted(by: { $0.name < $1.name }) {
            files.append(OutputFile(path: k.schemaPath, json: SchemaPublisher.document(for: k, baseURL: site.baseURL), kind: SchemaPublisher.metaKind))
        }
        // TypeScript declarations of every kind used (the schema files' own kind aside: a JSON Schema document).
        files.append(OutputFile(path: TypeScriptTypes.path, bytes: TypeScriptTypes.render(kinds: Array(kinds.values) + [SchemaPublisher.metaKind], site: site),
                                asset: TypeScriptTypes.asset))
        files.append(OutputFile(path: ".nojekyll", bytes: [], asset: NotFoundPage.noJekyll))
        files.append(OutputFile(path: NotFoundPage.path, bytes: NotFoundPage.render(site: site), asset: NotFoundPage.asset))
        // Content-named files are built on a thread of their own while the others are checked and written.
        // (The work is handed over, not kept: it holds the domains' models, released once it is done.)
        let work = later
        lateFiles = Background { try work.flatMap { try $0() } }
        later = []
        // One compiled copy of the schemas per worker, shared by every serialise pass.
        let checker = try OutputValidation(kinds: Array(kinds.values) + [SchemaPublisher.metaKind], baseURL: site.baseURL)
        checkers = try [checker] + (1..<options.threads).map { _ in try checker.copy() }
        stage("compile schemas")
    }

    /// Every file against its kind's schema, then to bytes and into a staging folder beside the output, in one parallel
    /// pass: each file's JSON is checked, serialised and written while it is hot in cache, then released. The output
    /// folder itself changes only at the end, when the complete tree is swapped in.
    func validateAndStage() throws {
        let (entries, previousFiles) = (current?.entries, current?.files ?? [])
        let staged = try StagedTree(output: options.output, previousHash: { entries?.sha256(of: $0) }, previousPaths: { previousFiles.map(\.path) },
                                    expectedFiles: files.count)
        self.staged = staged
        begin("checking and writing files", total: files.count)
        // A file the cache describes, as the output has it now (checked against its index entry).
        let current = self.current
        let earlier: (String, BuildCache.Entry) -> EarlierFile? = { path, entry in
            guard let current, current.entries.sha256(of: path) == entry.sha256 else { return nil }
            return current.earlier(path, checksum: entry.checksum)
        }
        // openapi.json's scan of the paths, meanwhile (the files' paths and kinds taken first: their contents go as
        // they are written).
        let paths = files.map { (path: $0.path, kind: $0.kind, asset: $0.asset) }
        let scanning = Background { () throws -> OpenAPIDocument.PathScan in
            var scan = OpenAPIDocument.PathScan()
            for f in paths { try scan.add(f.path, kind: f.kind, asset: f.asset) }
            return scan
        }
        rendered = try Build.serialise(&files, checkers: checkers, into: staged, cache: cache, earlier: earlier, ticker: ticker)
        // Then the late files (content-named, built meanwhile).
        var clock = TraceClock()
        var second = try lateFiles!.take()   // (taken, so each file's text goes once it is staged)
        clock.lap("waited for the content-named files")
        try Build.requireDistinctPaths(second, staged: staged)
        ticker?.grow(second.count)
        rendered += try Build.serialise(&second, checkers: checkers, into: staged, cache: cache, earlier: earlier, ticker: ticker)
        files += second
        // Then the files that describe the others: app-config when no domain wrote it (its dataVersion is the content
        // of the rest), and openapi.json, which lists every path.
        var last: [OutputFile] = []
        if siteAppConfig {
            let dataVersion = String(Build.contentDigest(files, rendered).prefix(12))
            last.append(try AppConfigOutput.file(site: site, dataVersion: dataVersion, generatedAt: context.generatedAt, hasCatalog: false))
        }
        let allKinds = Array(kinds.values) + [SchemaPublisher.metaKind]
        var scan = try scanning.take()
        for f in second + last { try scan.add(f) }
        last.append(try Build.openAPI(scan: scan, kinds: allKinds, site: site, hasPrevious: previous != nil && release.keep > 0))
        try Build.requireDistinctPaths(last, staged: staged)
        ticker?.grow(last.count)
        rendered += try Build.serialise(&last, checkers: checkers, into: staged, ticker: ticker)
        ticker?.end()
        files += last
        stage("validate, serialise and stage")
    }

    /// The tree against the hosting target's rules, and its content digest; returns the summary when the content is
    /// the previous release's (no version is made, nothing written; the cache is kept up to date).
    func check() throws -> BuildSummary? {
        summary.notes += context.earlier?.notes ?? []
        // (The content digest is made meanwhile: both walk every file.)
        let (files, rendered) = (self.files, self.rendered)
        // (The files' order by path is made there too, once: the release stage lists them in it.)
        // (The build before's order when it still is: the same files.)
        let keptOrder = context.earlier?.memo(Build.pathOrderMemo)
        let digesting = Background { () -> (String, [Int], Bool) in
            let (order, taken) = Build.pathOrder(rendered, kept: keptOrder)
            return (Build.contentDigest(Build.contentEntries(files, rendered), inPathOrder: order), order, taken)
        }
        summary.warnings += try PagesRules.check(files.indices.map { .init(path: rendered[$0].path, size: rendered[$0].size, sizeSetting: files[$0].kind?.sizeSetting) },
                                                 target: site.target)
        let taken: Bool
        (digest, pathOrder, taken) = try digesting.wait()
        if taken { summary.notes.append("file order by path: taken from the build cache") }
        memos[Build.pathOrderMemo] = KeptOrder.memo(pathOrder)
        stage("check")
        summary.reused = rendered.indices.lazy.filter { self.rendered[$0].reused }.count
        summary.copiedFragments = rendered.indices.reduce(0) { $0 + self.rendered[$1].copiedFragments }
        // Identical content creates no version and writes nothing.
        guard let previous, previous.contentDigest == digest,
              options.previous == nil || options.previous == options.output || options.previousSite != nil else { return nil }
        // The tree stays; its files' fingerprints may have changed (a setting that moved no byte): kept for next time.
        if options.useCache, let current, current.fileIndex.sha256 == previous.fileIndex.sha256 {
            Build.saveCache(files, rendered, previous: cache, release: current.fileIndex.sha256, to: cacheFile, output: options.output,
                            memos: memos, summary: &summary)
        }
        if let why = snapshotFile?.commit() { summary.warnings.append(why) }
        return unchanged(previous)
    }

    /// Manifest: the new release's file index, deltas from the releases kept (with JSON patches against the previous
    /// one) and update manifest, checked like every file and staged; the build cache's bytes made meanwhile.
    func makeRelease() throws {
        version = (previous?.version ?? 0) + 1
        summary.version = version
        summary.currentVersion = release.versionString(day: ISODate.day(epochSeconds: options.epochSeconds), version: version, previous: previous)
        // (In path order: the release stage walks it beside the previous index.)
        tree = pathOrder.map { i in ReleaseFiles.TreeFile(path: rendered[i].path, size: rendered[i].size, sha256: rendered[i].sha256, schema: rendered[i].schema) }
        begin("release \(version): file index and deltas")
        let staged = self.staged!
        // The previous release's file index was checked when this very executable made it, when the build cache
        // (which names that release and the executable) was read.
        let previousChecked = cacheTaken && current?.fileIndex.sha256 == previous?.fileIndex.sha256
        let made = try ReleaseFiles.make(version: version, currentVersion: summary.currentVersion, generatedAt: context.generatedAt,
                                         contentDigest: digest, inputDigest: try fingerprint!.wait(), current: tree, previous: previous,
                                         settings: release, site: site, threads: options.threads,
                                         fragments: Build.fragmentLayouts(rendered, cache: cache), previousChecked: previousChecked,
                                         bytes: { staged.mapped($0) })
        let releaseFiles = made.files
        var clock = TraceClock()
        // The build cache's bytes are made while the release files are checked and the tree is committed; they are
        // written once the tree is in place (the cache names the release it describes).
        if options.useCache, let index = releaseFiles.first(where: { $0.path == "releases/\(version)/files.json" }) {
            let (files, rendered, cache) = (self.files, self.rendered, self.cache)
            // (Hashed there too: only the stamps are hashed once the tree is in place.)
            cacheBytes = Background { () -> ([UInt8], Checksum) in
                let body = Build.cacheBytes(files, rendered, previous: cache, release: index.sha256)
                var digest = Checksum()
                digest.update(body)
                return (body, digest)
            }
        }
        // The file index and deltas against the target's file limit too (the whole tree's size was checked above).
        _ = try PagesRules.check(releaseFiles.map { .init(path: $0.path, size: $0.bytes.count) }, target: site.target, siteLimit: false)
        // Older file indexes are carried as they were published (immutable, and read back with the sha256 the previous
        // release lists for them): checked when they were made, not again (18 MB each at 100,000 files).
        // (The new file index by its entries that the previous one did not list as they are, when that one was checked.)
        let previous = self.previous
        try Build.check(releaseFiles.filter { previous?.entries.sha256(of: $0.path) != $0.sha256 }.map { f in
            guard f.path == "releases/\(version)/files.json", let part = made.indexToCheck else { return f }
            return (f.path, part, f.sha256, f.kind)
        }, checkers: checkers)
        clock.lap("release: files checked")
        for f in releaseFiles {
            try staged.put(f.path, bytes: f.bytes, sha256: f.sha256)
            tree.append(.init(path: f.path, size: f.bytes.count, sha256: f.sha256, schema: f.kind.schemaPath))
        }
        ticker?.end()
        stage("manifest")
    }

    /// The staged tree swapped in (or its changes applied in place), and what the summary tells of it.
    func commit() throws {
        var byKind: [String: (Int, Int)] = [:]
        for i in files.indices {
            let k = files[i].kind?.name ?? files[i].asset?.name ?? "other"
            byKind[k, default: (0, 0)].0 += 1
            byKind[k, default: (0, 0)].1 += rendered[i].size
        }
        summary.bytesByKind = byKind.sorted { $0.key < $1.key }.map { ($0.key, $0.value.0, $0.value.1) }
        begin("moving \(tree.count) files into place")
        let stats = try staged!.commit()
        ticker?.end()
        stage("commit")
        summary.written = stats.written; summary.linked = stats.linked; summary.removed = stats.removed
        summary.inPlace = stats.inPlace
        summary.fileCount = tree.count
        summary.totalBytes = tree.reduce(0) { $0 + $1.size }
    }

    /// The build cache of the tree now in place, with the stamps its large files have now.
    func saveCache() throws {
        if let why = snapshotFile?.commit() { summary.warnings.append(why) }
        guard let cacheBytes else { return }
        let (body, hashed) = try cacheBytes.take()
        let bytes = BuildCache.finish(body, hashed: hashed, stamps: Build.stamps(rendered, in: options.output), memos: memos)
        if let why = BuildCache.save(bytes: bytes, to: cacheFile) { summary.warnings.append(why) }
        stage("cache")
    }
}
