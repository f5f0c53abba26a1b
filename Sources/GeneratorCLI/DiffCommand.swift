import ArgumentParser
import Foundation
import Generator
import Schemas

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two built trees (e.g. the published release and a pull request's build).",
        discussion: """
        Exit codes: 0 no differences, 1 differences (with --fail-on breaking: breaking changes only), 2 error \
        (including a tree holding a symlink or special file, never followed, or a release whose paths leave the tree).
        Breaking: an output kind or a fixed path removed, or a schema change installed apps would reject \
        (a required property removed or renamed, a type changed or narrowed, an enum value removed).
        """)

    enum Format: String, ExpressibleByArgument { case text, markdown, json }
    enum FailOn: String, ExpressibleByArgument { case any, breaking, never }

    @Argument(help: "The older tree.") var old: String
    @Argument(help: "The newer tree.") var new: String
    @Option(help: "Output format: text, markdown (CI job summary, PR comment) or json.") var format: Format = .text
    @Option(name: .customLong("fail-on"), help: "When to exit 1: any difference (default), breaking changes only, or never.")
    var failOn: FailOn = .any

    func run() throws {
        let diff: TreeDiff
        do { diff = try TreeDiff.compare(old: OutputGuard.fileURL(old), new: OutputGuard.fileURL(new)) } catch {
            // A symlink, special file or unsafe path in either tree (never followed), or a tree that cannot be read.
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\n".utf8))
            throw ExitCode(2)
        }
        switch format {
        // Names and schema properties come from the trees: printed with control characters escaped.
        case .text: print(TreeReader.terminalSafe(diff.text()))
        case .markdown: print(TreeReader.terminalSafe(diff.markdown()))
        case .json: print(try JSONWriter(pretty: true).string(diff.json()), terminator: "")
        }
        switch failOn {
        case .any: if !diff.isEmpty { throw ExitCode(1) }
        case .breaking: if !diff.breaking.isEmpty { throw ExitCode(1) }
        case .never: break
        }
    }
}
