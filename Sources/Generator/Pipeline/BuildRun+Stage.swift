import Foundation

extension BuildRun {
    /// Every file against its kind's schema, then to bytes and into a staging folder beside the output, in one parallel
    /// pass (see `Build.serialise`): each file's JSON is checked, serialised and written while it is hot in cache, then
    /// released. The content-named files follow once made, then the files that describe the others (app-config when no
    /// domain wrote it, openapi.json). The output folder itself changes only when the complete tree is swapped in.
    /// (`compiled` is consumed: its files are moved out, so each file's text is released once it is staged instead of
    /// being held by the compiled tree until the build ends — 100 MB at 100k products.)
    func validateAndStage(_ compiled: consuming CompiledTree, _ inputs: BuildInputs, previous: PreviousRelease?,
                          earlier: PreviousBuild) throws -> StagedFiles {
        var files: [OutputFile] = []
        swap(&files, &compiled.files)
        let staged = try StagedTree(output: options.output, previousHash: { earlier.sha256(of: $0) },
                                    previousPaths: { earlier.tree?.files.map(\.path) ?? [] }, expectedFiles: files.count)
        onClose { staged.discard() }
        begin("checking and writing files", total: files.count)
        // openapi.json's scan of the paths, meanwhile (the files' paths and kinds taken first: their contents go as
        // they are written).
        let paths = files.map { (path: $0.path, kind: $0.kind, asset: $0.asset) }
        let scanning = Background { () throws -> OpenAPIDocument.PathScan in
            var scan = OpenAPIDocument.PathScan()
            for f in paths { try scan.add(f.path, kind: f.kind, asset: f.asset) }
            return scan
        }
        let (checkers, cache) = (compiled.checkers, earlier.entries)
        var rendered = try Build.serialise(&files, checkers: checkers, into: staged, cache: cache, earlier: earlier.earlierFile, ticker: ticker)
        // Then the late files (content-named, built meanwhile).
        var clock = TraceClock()
        var second = try compiled.lateFiles.take()   // (taken, so each file's text goes once it is staged)
        clock.lap("waited for the content-named files")
        try Build.requireDistinctPaths(second, staged: staged)
        ticker?.grow(second.count)
        rendered += try Build.serialise(&second, checkers: checkers, into: staged, cache: cache, earlier: earlier.earlierFile, ticker: ticker)
        files += second
        var last: [OutputFile] = []
        if compiled.siteAppConfig {
            let dataVersion = String(Build.contentDigest(files, rendered).prefix(12))
            last.append(try AppConfigOutput.file(site: inputs.site, dataVersion: dataVersion, generatedAt: inputs.context.generatedAt, hasCatalog: false,
                                                    hasFlags: FlagsDomain.hasInput(inputs.context)))
        }
        var scan = try scanning.take()
        for f in second + last { try scan.add(f) }
        last.append(try Build.openAPI(scan: scan, kinds: Array(compiled.kinds.values) + [SchemaPublisher.metaKind], site: inputs.site,
                                      hasPrevious: previous != nil && inputs.release.keep > 0))
        try Build.requireDistinctPaths(last, staged: staged)
        ticker?.grow(last.count)
        rendered += try Build.serialise(&last, checkers: checkers, into: staged, ticker: ticker)
        ticker?.end()
        files += last
        stage("validate, serialise and stage")
        return StagedFiles(files: files, rendered: rendered, staged: staged, keptOrders: compiled.keptOrders, checkers: checkers)
    }
}
