import Foundation
import Schemas

/// Collections: any tabular dataset declared in `input/collections/<name>.json` becomes paginated list pages,
/// one file per item, an index with facet counts and exact statistics, and a JSON Schema generated from the
/// declaration — the way Hugo turns data files into pages, but typed and validated.
public struct CollectionsDomain: Domain {
    public let name = "collections"
    public init() {}

    /// `collections.folder` in site.json (default `collections`), resolved inside the input folder.
    func folder(_ context: BuildContext) throws -> (url: URL, display: String) {
        var s = try context.site.section("collections", file: context.siteFile)
        let f = try s.optionalString("folder")
        try s.finish()
        if let f { return try context.inputFile(f, file: context.siteFile, field: "collections.folder") }
        return try context.inputFile("collections", file: context.displayPath(context.inputDirectory.appendingPathComponent("collections")), field: nil)
    }

    /// The declarations (`*.json` directly in the folder), each resolved inside the input folder: a link pointing
    /// out is an error naming it.
    func declarationFiles(_ context: BuildContext) throws -> [(url: URL, display: String)] {
        let (dir, display) = try folder(context)
        return try InputFiles.list(dir, display: display).filter { $0.hasSuffix(".json") }.map { name in
            let shown = display + "/" + name
            let url = try InputFiles.resolve(name, root: try context.inputRoot(), from: dir, file: shown, field: nil)
            return (url, shown)
        }
    }

    public func isPresent(in context: BuildContext) -> Bool {
        do { return !(try declarationFiles(context)).isEmpty } catch { return true }   // build() reports it
    }

    public func build(_ context: BuildContext) throws -> DomainResult {
        var result = DomainResult()
        var errors: [BuildError] = []
        for (url, display) in try declarationFiles(context) {
            do {
                let decl = try CollectionDeclaration.load(url, display: display)
                let model = try load(decl, context)
                let out = try CollectionOutputs.render(model, context)
                result.files += out.files
                result.kinds += out.kinds
                result.report += model.report
            } catch let e as BuildError { errors.append(e) } catch let e as BuildErrors { errors += e.errors }
        }
        if !errors.isEmpty { throw BuildErrors(errors) }
        return result
    }

    /// Read → Check: every record converted to its declared types; errors name file, line, field and expected type.
    func load(_ decl: CollectionDeclaration, _ context: BuildContext) throws -> CollectionModel {
        var items: [CollectionItem] = []
        var errors: [BuildError] = []
        var skipped = 0
        var ids = CollectionItemIds(idField: decl.field(decl.idField)!)
        for (i, source) in decl.sources.enumerated() {
            let (url, display) = try context.inputFile(source, file: decl.file, field: "sources[\(i)]")
            guard InputFiles.kind(url) != .missing else {
                throw BuildError(file: decl.file, field: "sources[\(i)]", "\(Excerpt.text(source)) not found (paths are relative to the input folder)")
            }
            let read = try ProductFileReader.read(url, display: display, threads: context.threads, skipBadRecords: context.skipBadRows)
            skipped += read.skipped.count
            for r in read.records {
                var rowErrors: [BuildError] = []
                let values = try Self.values(of: r, decl, file: display, errors: &rowErrors)
                if rowErrors.isEmpty {
                    do { items.append(try ids.item(values, decl, file: display, line: r.line)) } catch { rowErrors.append(error) }
                }
                // A bad row is left out under --skip-bad-rows; otherwise the build stops at 50 errors.
                if !rowErrors.isEmpty {
                    if context.skipBadRows { skipped += 1 } else { errors += rowErrors }
                    if errors.count >= 50 { throw BuildErrors(errors) }
                }
            }
        }
        if !errors.isEmpty { throw BuildErrors(errors) }
        items.sort { a, b in Self.precedes(a, b, decl) }
        var report = [ReportItem(domain: name, key: "\(decl.name): items", count: items.count)]
        if skipped > 0 { report.append(ReportItem(domain: name, key: "\(decl.name): bad rows skipped", count: skipped, policy: "--skip-bad-rows: left out")) }
        return CollectionModel(declaration: decl, items: items, report: report)
    }

    /// One record's values in the declared types, in field order; each problem (file, line, field) is added to `errors`.
    static func values(of r: RawRecord, _ decl: CollectionDeclaration, file: String, errors: inout [BuildError]) throws -> JSONObject {
        var values = JSONObject()
        if case .json(let j) = r.source, j.objectValue == nil {
            errors.append(BuildError(file: file, line: r.line, "expected an object, found \(j.typeName)"))
        }
        let isCSV: Bool = { if case .csv = r.source { return true }; return false }()
        for f in decl.fields {
            switch r.value(f.from.split(separator: ".").map(String.init)) {
            case nil:
                if f.required { errors.append(BuildError(file: file, line: r.line, field: f.from, "required field is missing (expected \(f.type.rawValue))")) }
            case .null?:
                if f.nullable { values.append(f.key, .null) }
                else if isCSV && f.type == .stringArray { values.append(f.key, .array([])) }   // an empty list
                else if isCSV && !f.required { /* an empty cell of an optional field: missing */ }
                else { errors.append(BuildError(file: file, line: r.line, field: f.from, "is null or empty, but the field is not nullable (expected \(f.type.rawValue))")) }
            case let v?:
                do { values.append(f.key, try CollectionValues.convert(v, f)) }
                catch let m as CollectionValues.Mismatch { errors.append(BuildError(file: file, line: r.line, field: f.from, m.message)) }
            }
        }
        return values
    }
}
