import ArgumentParser
import Foundation
import Generator
import Schemas
import TreeClient

struct FlagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags",
        abstract: "Evaluate a built tree's feature flags and update policy for a unit, as an app would.",
        discussion: """
        Reads DIST/config/flags.json (only as a regular file inside the tree) and evaluates it with the same code as \
        TreeClient on a device. With --contexts, evaluates one context per line of a JSON-lines file \
        ({"unit": …, "platform": …, "appVersion": …, "attributes": {…}}) and prints one JSON answer per line. \
        Exit codes: 0 done, 2 error (no flags file, a malformed context).
        """)

    @Argument(help: "A built tree (e.g. dist).") var dist: String
    @Option(help: "The unit a rollout buckets: an install id or a user id.") var unit: String?
    @Option(help: "The platform (e.g. ios, android, web).") var platform: String?
    @Option(name: .customLong("app-version"), help: "The app's version, dotted numbers (e.g. 3.2.0).") var appVersion: String?
    @Option(name: .customLong("attr"), help: ArgumentHelp("Another attribute a rule may test (repeatable), e.g. country=US.", valueName: "key=value"))
    var attributes: [String] = []
    @Option(help: "A JSON-lines file of contexts to evaluate instead of the options above.") var contexts: String?
    @Flag(help: "Print {\"flags\": {key: value}, \"update\": …} as JSON.") var json = false

    func validate() throws {
        for a in attributes where !a.contains("=") || a.hasPrefix("=") {
            throw ValidationError("--attr \(a): write KEY=VALUE, e.g. country=US")
        }
        if let v = appVersion, AppVersion(v) == nil { throw ValidationError("--app-version \(v): dotted numbers, e.g. 3.2.0") }
        if contexts == nil && unit == nil { throw ValidationError("--unit is required (the id a rollout buckets), or --contexts FILE") }
    }

    func run() throws {
        do {
            let flags = try TreeFlags.load(dist: OutputGuard.fileURL(dist))
            if let contexts { try evaluateLines(flags, contexts); return }
            var attrs: [String: String] = [:]
            for a in attributes { let eq = a.firstIndex(of: "=")!; attrs[String(a[..<eq])] = String(a[a.index(after: eq)...]) }
            let context = FlagContext(unit: unit, platform: platform, appVersion: appVersion, attributes: attrs)
            let answer = try TreeFlags.answer(flags, context)
            if json { print(try JSONWriter(pretty: true).string(answer), terminator: ""); return }
            for m in answer["flags"]?.objectValue?.members ?? [] { print(TreeReader.terminalSafe("\(m.key) = \(m.value.compactText)")) }
            print("update: \(answer["update"]?.stringValue ?? "none")")
        } catch let e as ExitCode { throw e } catch {
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\n".utf8))
            throw ExitCode(2)
        }
    }

    func evaluateLines(_ flags: FeatureFlags, _ path: String) throws {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        var out = ""
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let answer = try TreeFlags.answer(flags, try TreeFlags.context(jsonLine: String(line), number: i + 1))
            out += try JSONWriter().string(answer) + "\n"
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }
}
