import ArgumentParser
import Foundation
import Generator
import TreeClient

/// `generator keys …`: the keys that sign releases.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make the Ed25519 keys that sign releases, and the roots that say which keys apps trust.",
        subcommands: [Generate.self, Rotate.self])

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

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the first root of trust, or the next one (new keys, a new threshold, a later expiry).",
            discussion: """
            Writes ROOTS/N.root.json, N one more than the newest root there (1 when there is none). Keep ROOTS in \
            the input folder (input/roots/): every build publishes the roots, root.json being the newest. The new \
            root lists the --key public keys, of which --threshold must sign each release. It must be signed (--sign) \
            by a threshold of its own keys and, when it follows another root, by a threshold of that root's keys: \
            apps that pinned an older root follow the chain only through such signatures. A key the new root no \
            longer lists is revoked: releases it signs later are refused.

            Exit codes: 0 written, 1 refused (missing signatures, a bad key, an existing file) or failed.
            """)

        @Option(help: ArgumentHelp("The folder of roots (input/roots).", valueName: "folder")) var roots: String
        @Option(name: .customLong("key"), help: ArgumentHelp("A public key the new root lists (signing-key.pub; repeat for several).", valueName: "file"))
        var keys: [String] = []
        @Option(name: .customLong("sign"), help: ArgumentHelp("A private key that signs the new root (repeat for several).", valueName: "file"))
        var signers: [String] = []
        @Option(help: "How many of the listed keys must sign each release.") var threshold = 1
        @Option(name: .customLong("expires-days"), help: ArgumentHelp("Days until the root expires (apps then refuse releases until the next root).", valueName: "days"))
        var expiresDays = 365
        @Option(name: .customLong("max-version-jump"), help: ArgumentHelp("The most a release's version may exceed an app's copy's without a newer root.", valueName: "n"))
        var maxVersionJump = 1000

        func run() throws {
            do {
                guard (1...3650).contains(expiresDays) else { throw BuildError(file: roots, "--expires-days must be between 1 and 3650") }
                let made = try RootMaker.next(in: OutputGuard.fileURL(roots), keys: try keys.map { try SigningKey.readPublic($0) },
                                              threshold: threshold, expires: Date().addingTimeInterval(Double(expiresDays) * 86_400),
                                              maxVersionJump: maxVersionJump, signers: try signers.map { try SigningKey.read($0, notInside: []) })
                print("Wrote \(made.file.path): root \(made.root.version), \(made.root.keys.count) key(s), threshold \(made.root.threshold), "
                      + "expires \(TrustTime.text(made.root.expires))")
                for id in made.revoked { print("revoked: \(id)") }
            } catch {
                FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
