import Foundation
import Schemas

/// Feature flags: `input/flags.json` (optional) becomes `config/flags.json` and its browser evaluator
/// `flags/flags.js`; `app-config.json` then names the file (`endpoints.flags`).
public struct FlagsDomain: Domain {
    public let name = "flags"
    public init() {}

    static let inputName = "flags.json"

    public func isPresent(in context: BuildContext) -> Bool { Self.hasInput(context) }

    /// Whether the input folder has `flags.json` (a link pointing out of the folder counts: `build` refuses it).
    static func hasInput(_ context: BuildContext) -> Bool {
        InputFiles.kind(context.inputDirectory.appendingPathComponent(inputName)) != .missing
    }

    public func build(_ context: BuildContext) throws -> DomainResult {
        let (url, display) = try context.inputFile(Self.inputName, file: context.displayPath(context.inputDirectory.appendingPathComponent(Self.inputName)),
                                                   field: nil)
        let data = try InputFiles.read(url, display: display)
        let json: JSON
        do { json = try JSONReader.parse(data) } catch let e as JSONSyntaxError {
            throw BuildError(file: display, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
        }
        let document = try FlagsInput.parse(json, file: display)
        let count = document["flags"]?.objectValue?.count ?? 0
        return DomainResult(
            files: [OutputFile(path: FlagsOutput.path, json: document, kind: FlagsOutput.kind),
                    OutputFile(path: "flags/flags.js", bytes: try WebSearch.template("flags", "js"), asset: FlagsOutput.script)],
            kinds: [FlagsOutput.kind],
            report: [ReportItem(domain: name, key: "flags", count: count),
                     ReportItem(domain: name, key: "platforms with an update policy", count: document["updates"]?.objectValue?.count ?? 0)])
    }
}
