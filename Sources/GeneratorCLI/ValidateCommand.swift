import ArgumentParser
import Foundation
import Generator
import Schemas

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a built tree: file index, sizes, SHA-256 and every JSON file against its schema.",
        discussion: """
        Checks the manifest contract, that every file of the file index exists with its size and sha256, that no \
        file is missing from the index, and every JSON file against the draft 2020-12 schema the index names \
        (the tree's own schemas/). Reads only regular files inside the tree: a symlink (never followed), a FIFO, socket \
        or device (never opened), or a manifest or index path that is absolute or climbs out makes the tree invalid. \
        Exit codes: 0 valid, 1 invalid, 2 usage error.
        """)

    enum Format: String, ExpressibleByArgument { case text, json }

    @Argument(help: "The tree to check (e.g. dist).") var dist: String
    @Option(help: "Output format: text or json.") var format: Format = .text

    func run() throws {
        let report: TreeValidation.Report
        do { report = try TreeValidation.check(OutputGuard.fileURL(dist)) } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        switch format {
        case .json: print(try JSONWriter(pretty: true).string(report.json()), terminator: "")
        case .text:
            for p in report.problems.prefix(50) { print("FAIL \(p.path): \(p.message)") }
            if report.problems.count > 50 { print("… \(report.problems.count - 50) more problems") }
            // The count is of the file index's entries; the index itself and update-manifest.json (which points at it)
            // are checked too but not listed in it, so a tree has two files more than this.
            let what = "\(report.checked) files of the file index checked (size, sha256, schema), and the index and update-manifest.json"
            print(report.isValid ? "valid: \(what)" : "invalid: \(report.problems.count) problem(s); \(what)")
        }
        if !report.isValid { throw ExitCode(1) }
    }
}
