import ArgumentParser
import Foundation
import Generator

@main
struct GeneratorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generator",
        abstract: "Compiles datasets into a versioned, schema-checked static JSON tree for mobile apps.",
        subcommands: [BuildCommand.self, ValidateCommand.self, DiffCommand.self, SearchCommand.self, SyncCommand.self, ServeCommand.self, PublishCommand.self,
                      KeysCommand.self, VerifyCommand.self, FlagsCommand.self],
        defaultSubcommand: nil)

    /// First of all, the process may start again with huge pages for its heap (see `HugePages`).
    static func main() {
        HugePages.startProcess()
        main(nil)
    }

    /// No command named: the usage on stderr and exit 2, like every other usage error (`--help` still exits 0).
    func run() throws {
        FileHandle.standardError.write(Data((Self.helpMessage() + "\n").utf8))
        throw ExitCode(2)
    }
}
