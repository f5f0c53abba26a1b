import Foundation

extension BuildRun {
    /// Emit: every present domain reads its inputs and renders its files (content-named ones are made later, on a
    /// thread of their own); then the files every tree has besides the domains' (see `treeFiles`), and the schemas
    /// compiled once per worker.
    func compile(_ domains: [Domain], _ inputs: BuildInputs, earlier: PreviousBuild) throws -> CompiledTree {
        var context = inputs.context
        context.previous = earlier
        var files: [OutputFile] = [], later: [@Sendable () throws -> [OutputFile]] = []
        var keptOrders: [String: [Int32]] = [:], kinds: [String: OutputKind] = [:]
        for domain in domains where domain.isPresent(in: context) {
            begin("\(domain.name): reading and compiling")
            let result = try domain.build(context)
            ticker?.end()
            stage(domain.name)
            if files.isEmpty { files = result.files } else { files += result.files }   // (the first list taken, not copied)
            later += result.later
            keptOrders.merge(result.keptOrders) { a, _ in a }
            for k in result.kinds { kinds[k.name] = k }
            summary.report += result.report
            progress("\(domain.name): \(result.files.count) files")
        }
        summary.productLinesReused = earlier.productSnapshot?.reused ?? 0
        if let why = try earlier.takeCache() { summary.notes.append(why) }
        // The app's entry point is in every tree: without a catalog it is written after the other files, versioned
        // by their content.
        let siteAppConfig = !files.contains { $0.path == "app-config.json" }
        if siteAppConfig { kinds[AppConfigOutput.kind.name] = AppConfigOutput.kind }
        for k in [ManifestKinds.fileIndex, ManifestKinds.delta, ManifestKinds.manifest, OpenAPIDocument.kind] { kinds[k.name] = k }
        if let signing = inputs.signing {
            for k in [SigningKinds.root, SigningKinds.newestRoot] { kinds[k.name] = k }
            files += try signing.rootFiles()
        }
        Self.addTreeFiles(to: &files, kinds: kinds, site: inputs.site)
        // Content-named files are built on a thread of their own while the others are checked and written.
        // (The work is handed over, not kept: it holds the domains' models, released once it is done.)
        let work = later
        later = []
        let lateFiles = Background { try work.flatMap { try $0() } }
        onClose { lateFiles.join() }
        // One compiled copy of the schemas per worker, shared by every serialise pass.
        let checker = try OutputValidation(kinds: Array(kinds.values) + [SchemaPublisher.metaKind], baseURL: inputs.site.baseURL)
        let checkers = try [checker] + (1..<options.threads).map { _ in try checker.copy() }
        stage("compile schemas")
        return CompiledTree(files: files, kinds: kinds, keptOrders: keptOrders, siteAppConfig: siteAppConfig, lateFiles: lateFiles,
                            checkers: checkers)
    }

    /// The files every tree has besides the domains': the schema of every kind used, TypeScript declarations of every
    /// kind, and what GitHub Pages needs (`.nojekyll`: serve the tree as is; `404.html`). (Room made for them at once:
    /// appending would double the capacity of a list of a million files.)
    private static func addTreeFiles(to files: inout [OutputFile], kinds: [String: OutputKind], site: SiteConfig) {
        files.reserveCapacity(files.count + kinds.count + 3)
        for k in kinds.values.sorted(by: { $0.name < $1.name }) {
            files.append(OutputFile(path: k.schemaPath, json: SchemaPublisher.document(for: k, baseURL: site.baseURL), kind: SchemaPublisher.metaKind))
        }
        // (The schema files' own kind aside in the declarations: a JSON Schema document.)
        files.append(OutputFile(path: TypeScriptTypes.path, bytes: TypeScriptTypes.render(kinds: Array(kinds.values) + [SchemaPublisher.metaKind], site: site),
                                asset: TypeScriptTypes.asset))
        files.append(OutputFile(path: ".nojekyll", bytes: [], asset: NotFoundPage.noJekyll))
        files.append(OutputFile(path: NotFoundPage.path, bytes: NotFoundPage.render(site: site), asset: NotFoundPage.asset))
    }
}
