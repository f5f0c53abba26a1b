import ArgumentParser
import Foundation
import Generator
import TreeClient

/// `generator verify DIST|URL --root root.json`: a tree or a live site checked the way an app with that pinned root
/// checks it.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a built tree or a live site the way an app that pins a root does.",
        discussion: """
        Checks update-manifest.json's signature under the pinned root (following roots/N.root.json from it), that \
        neither the root nor the release has expired, then the file index against the signed sha256 and size, then \
        every file the index lists. A URL is read as an app reads it: the tree is synced into a temporary folder \
        (removed after) with the same checks, hashes and size caps. The first check that fails is named.

        Exit codes: 0 verified, 1 a check failed, 2 usage errors (a missing tree or root).
        """)

    @Argument(help: "A built tree's folder, or a site's base URL (http:// or https://).") var tree: String
    @Option(help: ArgumentHelp("The root of trust to pin (root.json as the publisher gives it to apps).", valueName: "file")) var root: String
    @Option(help: ArgumentHelp("Seconds a request may wait for data (URL only).", valueName: "seconds")) var timeout: Double = 30

    func run() throws {
        let trust = try PinnedRoot.trust(root)
        if let url = URL(string: tree), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false {
            try verifySite(url, trust)
        } else {
            try verifyFolder(OutputGuard.fileURL(tree), trust)
        }
    }

    private func verifyFolder(_ folder: URL, _ trust: ReleaseTrust) throws {
        guard FileManager.default.fileExists(atPath: folder.path) else {
            FileHandle.standardError.write(Data("error: \(tree): no such folder\n".utf8))
            throw ExitCode(2)
        }
        do {
            let v = try TreeVerifier(folder: folder, trust: trust).verify()
            print("verified \(tree): version \(v.version) (\(v.currentVersion)), signed under root \(v.rootVersion) by \(v.signers) key(s), "
                  + "current until \(TrustTime.text(v.expires)); \(v.files) files match the signed file index")
        } catch {
            FileHandle.standardError.write(Data("error: \(tree): \(TreePath.shown("\(error)", limit: 2000))\nverification failed\n".utf8))
            throw ExitCode(1)
        }
    }

    private func verifySite(_ site: URL, _ trust: ReleaseTrust) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("generator-verify-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let report = try TreeSync(site: site, directory: scratch.appendingPathComponent("copy"),
                                      configuration: .init(timeout: timeout, retries: 1), trust: trust).run(progress: nil)
            print("verified \(site.absoluteString): version \(report.toVersion) (\(report.currentVersion)), signed under root "
                  + "\(report.rootVersion ?? 0), current until \(report.expires.map(TrustTime.text) ?? "?"); every file matches the signed file index")
        } catch {
            FileHandle.standardError.write(Data("error: \(site.absoluteString): \(TreePath.shown("\(error)", limit: 2000))\nverification failed\n".utf8))
            throw ExitCode(1)
        }
    }
}
