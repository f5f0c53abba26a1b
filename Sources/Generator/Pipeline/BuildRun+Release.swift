import Foundation

extension BuildRun {
    /// The tree against the hosting target's rules, and its content digest and order by path; nil, and the summary
    /// says so, when the content is the previous release's (no version is made, nothing written; the cache is kept up
    /// to date).
    func check(_ staged: StagedFiles, _ inputs: BuildInputs, previous: PreviousRelease?, earlier: PreviousBuild) throws -> CheckedTree? {
        summary.notes += earlier.notes
        // The content digest is made meanwhile (both walk every file), and the files' order by path with it, once: the
        // release stage lists them in it. (The build before's order when it still is: the same files.)
        let (files, rendered) = (staged.files, staged.rendered)
        let keptOrder = earlier.keptOrder(Build.pathOrderName)
        let digesting = Background { () -> (String, [Int], Bool) in
            let (order, taken) = Build.pathOrder(rendered, kept: keptOrder)
            return (Build.contentDigest(Build.contentEntries(files, rendered), inPathOrder: order), order, taken)
        }
        summary.warnings += try PagesRules.check(files.indices.map { .init(path: rendered[$0].path, size: rendered[$0].size, sizeSetting: files[$0].kind?.sizeSetting) },
                                                 target: inputs.site.target)
        let (digest, pathOrder, taken) = try digesting.wait()
        if taken { summary.notes.append("file order by path: taken from the build cache") }
        var checked = CheckedTree(files: staged, digest: digest, pathOrder: pathOrder)
        checked.files.keptOrders[Build.pathOrderName] = KeptOrder.keep(pathOrder)
        stage("check")
        summary.reused = rendered.indices.lazy.filter { rendered[$0].reused }.count
        summary.copiedFragments = rendered.indices.reduce(0) { $0 + rendered[$1].copiedFragments }
        // Identical content creates no version and writes nothing.
        guard let previous, previous.contentDigest == digest,
              options.previous == nil || options.previous == options.output || options.previousSite != nil else { return checked }
        // The tree stays; its files' fingerprints may have changed (a setting that moved no byte): kept for next time.
        if options.useCache, let tree = earlier.tree, tree.fileIndex.sha256 == previous.fileIndex.sha256 {
            if let why = earlier.saveCache(of: checked.files, release: tree.fileIndex.sha256, output: options.output) { summary.warnings.append(why) }
        }
        if let why = earlier.productSnapshot?.commit() { summary.warnings.append(why) }
        try renewSignature(of: previous, inputs.signing)
        _ = unchanged(previous)
        return nil
    }

    /// Manifest: the new release's file index, deltas from the releases kept (with JSON patches against the previous
    /// one) and update manifest, checked like every file and staged; the next build cache's bytes made meanwhile.
    func makeRelease(_ checked: CheckedTree, _ inputs: BuildInputs, previous: PreviousRelease?, earlier: PreviousBuild) throws -> ReleasedTree {
        let version = (previous?.version ?? 0) + 1
        summary.version = version
        summary.currentVersion = inputs.release.versionString(day: ISODate.day(epochSeconds: options.epochSeconds), version: version, previous: previous)
        let (staged, rendered) = (checked.files.staged, checked.files.rendered)
        // (In path order: the release stage walks it beside the previous index.)
        var tree = checked.pathOrder.map { i in
            ReleaseFiles.TreeFile(path: rendered[i].path, size: rendered[i].size, sha256: rendered[i].sha256, schema: rendered[i].schema)
        }
        begin("release \(version): file index and deltas")
        let made = try ReleaseFiles.make(version: version, currentVersion: summary.currentVersion, generatedAt: inputs.context.generatedAt,
                                         contentDigest: checked.digest, inputDigest: try inputs.inputDigest.wait(), current: tree, previous: previous,
                                         settings: inputs.release, site: inputs.site, threads: options.threads,
                                         fragments: earlier.fragmentLayouts(rendered), previousChecked: earlier.checkedIndex(of: previous),
                                         bytes: { staged.mapped($0) })
        var clock = TraceClock()
        let indexPath = "releases/\(version)/files.json"
        // The build cache's bytes are made while the release files are checked and the tree is committed; they are
        // written once the tree is in place (the cache names the release it describes).
        let cacheBytes = options.useCache ? made.files.first { $0.path == indexPath }.map { earlier.makeCacheBytes(of: checked.files, release: $0.sha256) } : nil
        if let cacheBytes { onClose { cacheBytes.join() } }
        // The file index and deltas against the target's file limit too (the whole tree's size was checked above).
        _ = try PagesRules.check(made.files.map { .init(path: $0.path, size: $0.bytes.count) }, target: inputs.site.target, siteLimit: false)
        // Older file indexes are carried as they were published (immutable, and read back with the sha256 the previous
        // release lists for them): checked when they were made, not again (18 MB each at 100,000 files). (The new file
        // index by its entries that the previous one did not list as they are, when that one was checked.)
        try Build.check(made.files.filter { previous?.entries.sha256(of: $0.path) != $0.sha256 }.map { f in
            guard f.path == indexPath, let part = made.indexToCheck else { return f }
            return (f.path, part, f.sha256, f.kind)
        }, checkers: checked.files.checkers)
        clock.lap("release: files checked")
        var files = made.files
        if let signing = inputs.signing, !signing.keys.isEmpty, let m = files.firstIndex(where: { $0.path == "update-manifest.json" }) {
            files[m] = try signed(files[m], signing, checkers: checked.files.checkers)
        }
        for f in files {
            try staged.put(f.path, bytes: f.bytes, sha256: f.sha256)
            tree.append(.init(path: f.path, size: f.bytes.count, sha256: f.sha256, schema: f.kind.schemaPath))
        }
        ticker?.end()
        stage("manifest")
        return ReleasedTree(files: checked.files, version: version, tree: tree, cacheBytes: cacheBytes)
    }

    /// The manifest signed (see `ReleaseSigning.sign`), checked like the unsigned one.
    private func signed(_ manifest: ReleaseFiles.NewFile, _ signing: ReleaseSigning, checkers: [OutputValidation]) throws -> ReleaseFiles.NewFile {
        let bytes = try signing.sign(manifest: manifest.bytes, epochSeconds: options.epochSeconds)
        let file: ReleaseFiles.NewFile = (manifest.path, bytes, Build.sha256Hex(bytes), manifest.kind)
        try Build.check([file], checkers: checkers)
        return file
    }

    /// The staged tree swapped in (or its changes applied in place), and what the summary tells of it.
    func commit(_ released: ReleasedTree) throws {
        let (files, rendered) = (released.files.files, released.files.rendered)
        var byKind: [String: (Int, Int)] = [:]
        for i in files.indices {
            let k = files[i].kind?.name ?? files[i].asset?.name ?? "other"
            byKind[k, default: (0, 0)].0 += 1
            byKind[k, default: (0, 0)].1 += rendered[i].size
        }
        summary.bytesByKind = byKind.sorted { $0.key < $1.key }.map { ($0.key, $0.value.0, $0.value.1) }
        begin("moving \(released.tree.count) files into place")
        let stats = try released.files.staged.commit()
        ticker?.end()
        stage("commit")
        summary.written = stats.written; summary.linked = stats.linked; summary.removed = stats.removed
        summary.inPlace = stats.inPlace
        summary.fileCount = released.tree.count
        summary.totalBytes = released.tree.reduce(0) { $0 + $1.size }
    }

    /// What the next build reads, now that the tree is in place: the products snapshot, and the build cache with the
    /// stamps its large files have now.
    func saveCache(_ released: ReleasedTree, earlier: PreviousBuild) throws {
        if let why = earlier.productSnapshot?.commit() { summary.warnings.append(why) }
        guard let cacheBytes = released.cacheBytes else { return }
        if let why = try earlier.saveCache(cacheBytes.take(), of: released.files, output: options.output) { summary.warnings.append(why) }
        stage("cache")
    }
}
