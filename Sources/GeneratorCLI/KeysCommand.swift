import ArgumentParser
import Foundation
import Generator

/// `generator keys …`: the keys that sign releases.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make the Ed25519 keys that sign releases.",
        subcommands: [Generate.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new signing key pair into a folder, and print its public key and key id.",
            discussion: """
            Writes DIR/signing-key (the private key, mode 0600: keep it out of the repository, e.g. as a CI secret \
            GENERATOR_SIGNING_KEY holding the file's text) and DIR/signing-key.pub (the public key apps pin). \
            Neither file may exist already: a key is never overwritten. Exit codes: 0 written, 1 refused or failed.
            """)

        @Option(help: "The folder to write the two files into (made, mode 0700, when missing).") var out: String

        func run() throws {
            let key = SigningKey.generate()
            do {
                let files = try key.write(to: OutputGuard.fileURL(out))
                print("Wrote \(files.privateKey.path) (private: keep it secret) and \(files.publicKey.path)")
                print("public key: \(Data(key.publicKey.rawRepresentation).base64EncodedString())")
                print("key id:     \(key.publicKey.keyID)")
            } catch {
                FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
