import ArgumentParser

@main
struct GeneratorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generator",
        abstract: "Compiles datasets into a versioned, schema-checked static JSON tree for mobile apps.",
        subcommands: [BuildCommand.self, ValidateCommand.self, DiffCommand.self, SearchCommand.self, SyncCommand.self, ServeCommand.self],
        defaultSubcommand: nil)
}
