import Foundation
import Schemas

/// The pipeline, as named stages over one build (`BuildRun`), each taking the value the one before returned:
/// inputs (settings, lock, the release this one follows) → the previous build (the output's tree and its cache) →
/// compiled (every domain's files and the tree's own) → staged (checked and written into a staging folder) → checked
/// (the host's rules, the content digest) → released (file index, deltas, manifest) → committed (swapped in) → the
/// cache for the next build. A build whose inputs or content are the previous release's stops early.
public enum Build {
    /// Every domain the compiler knows, in build order.
    public static let domains: [Domain] = [CatalogDomain(), CollectionsDomain(), AuctionsDomain(), NBADomain(), FlagsDomain()]

    /// Refuses an unsafe output or previous release (`OutputGuard.Refusal`) before anything is touched, and throws
    /// `BuildLock.Busy` when another build holds the output for longer than `options.lockWait`.
    /// `waiting`: told once, with the holder's pid, when the build starts waiting for another one.
    public static func run(_ options: BuildOptions, domains: [Domain] = Build.domains,
                           progress: @escaping (String) -> Void = { _ in }, waiting: (Int32?) -> Void = { _ in }) throws -> BuildSummary {
        let run = try BuildRun(options, progress: progress)
        defer {
            run.close()   // (a failed build leaves nothing running, staged or locked)
            if options.leavesMemoryToExit { LeftToExit.keep(run) }
        }
        let (inputs, site) = try run.readInputs(waiting: waiting)
        let previous = try run.previousRelease(site: site)
        if let same = try run.sameInputs(inputs, previous: previous, domains: domains) { return same }
        let earlier = try run.openPreviousBuild(following: previous)
        let compiled = try run.compile(domains, inputs, earlier: earlier)
        let staged = try run.validateAndStage(consume compiled, inputs, previous: previous, earlier: earlier)
        run.keep(staged)
        guard let checked = try run.check(staged, inputs, previous: previous, earlier: earlier) else { return run.summary }
        let released = try run.makeRelease(checked, inputs, previous: previous, earlier: earlier)
        run.keep(released)
        try run.commit(released)
        try run.saveCache(released, earlier: earlier)
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

    /// The release files against their schemas, like every other file: a release must not publish a manifest or an
    /// index that breaks its own contract. Largest first on every worker (a 100k-file index is ≈ 18 MB of text).
    static func check(_ files: [ReleaseFiles.NewFile], checkers: [OutputValidation]) throws {
        let order = files.indices.sorted { (files[$0].bytes.count, $1) > (files[$1].bytes.count, $0) }
        let found = Parallel.map(files.count, order: order, threads: checkers.count) { worker, i in
            checkers[worker].check(text: files[i].bytes, path: files[i].path, kind: files[i].kind)
        }
        if let first = found.lazy.compactMap({ $0 }).first { throw first }
    }
}

extension SiteConfig {
    /// Only for messages before site.json is read.
    static let placeholder = SiteConfig(siteName: "", baseURL: "https://example.invalid/", appVersion: "0", minimumAppVersion: "0",
                                        urlScheme: "app", webBaseURL: "", features: [], cachingStrategy: "", ttl: [], imageSizes: [],
                                        defaultImageSize: "small", offlineBudgetBytes: 0, offlineProductsPerCategory: 0, pageSize: 0, target: .githubPages, sections: [:])
}
