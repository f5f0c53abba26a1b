import ArgumentParser
import Foundation
import Generator
import Schemas

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two built trees (e.g. the published release and a pull request's build).",
        discussion: """
        Exit codes: 0 no differences, 1 differences (or only what --fail-on names), 2 error \
        (including a tree holding a symlink or special file, never followed, or a release whose paths leave the tree).
        Breaking: an output kind or a fixed path removed, or a schema change installed apps would reject \
        (a required property removed or renamed, a type changed or narrowed, an enum value removed).
        Flag changes (config/flags.json) are listed in words; --fail-on widening=N fails when a rollout \
        takes more than N percentage points more units than before (e.g. 10 → 50 % with widening=25). \
        --fail-on may be given more than once: any condition met exits 1.
        """)

    enum Format: String, ExpressibleByArgument { case text, markdown, json }
    enum FailOn: ExpressibleByArgument, Equatable {
        case any, breaking, never
        /// A rollout widened by more than this many percentage points.
        case widening(Double)

        init?(argument: String) {
            switch argument {
            case "any": self = .any
            case "breaking": self = .breaking
            case "never": self = .never
            default:
                guard argument.hasPrefix("widening="), let n = Double(argument.dropFirst(9)), n.isFinite, n >= 0, n <= 100 else { return nil }
                self = .widening(n)
            }
        }
        static var allValueStrings: [String] { ["any", "breaking", "never", "widening=N"] }
    }

    @Argument(help: "The older tree.") var old: String
    @Argument(help: "The newer tree.") var new: String
    @Option(help: "Output format: text, markdown (CI job summary, PR comment) or json.") var format: Format = .text
    @Option(name: .customLong("fail-on"), help: ArgumentHelp(
        "When to exit 1: any difference (default), breaking changes, a rollout widened by more than N points (widening=N), or never. Repeatable.",
        valueName: "any|breaking|widening=N|never"))
    var failOn: [FailOn] = [.any]

    func validate() throws {
        if failOn.contains(.never) && failOn.count > 1 { throw ValidationError("--fail-on never cannot be combined with other conditions") }
    }

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
        var fails = false
        for condition in failOn {
            switch condition {
            case .any: fails = fails || !diff.isEmpty
            case .breaking: fails = fails || !diff.breaking.isEmpty
            case .widening(let step):
                // Said on stderr (the report on stdout lists every change, not which one stopped the job).
                for f in diff.flagChanges where f.widening > step {
                    let why = "\(f.flag): a rollout widened by \(FlagChanges.percent(f.widening)) points, more than \(FlagChanges.percent(step)) (\(f.text))"
                    FileHandle.standardError.write(Data("fail: \(TreeReader.terminalSafe(why))\n".utf8))
                    fails = true
                }
            case .never: break
            }
        }
        if fails { throw ExitCode(1) }
    }
}
