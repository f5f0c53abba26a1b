import ArgumentParser
import Foundation
import LowLevel
import Generator
import TreeClient

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep a local copy of a published tree up to date, as an app does (the TreeClient library).",
        discussion: """
        Fetches update-manifest.json (conditionally, with the ETag of the last sync), refuses a version lower than \
        the local copy's, applies the delta from the local version when the site offers one and it is smaller, \
        downloads every other changed file, checks the size and sha256 of every file, and swaps the new copy in \
        whole. A failure at any point leaves the local copy as it was. No body is read past its listed size \
        (update-manifest.json: 1 MB), redirects are never followed, a server below 100 bytes/s is dropped, and the \
        whole sync ends by --deadline.

        DIR must be a new path, an empty folder or a copy made by an earlier sync; the current folder, home, / and \
        a folder holding other files are refused. Beside DIR the sync keeps .DIR.sync-state.json (the ETag) and, \
        while it runs, .DIR.sync.lock and a staging folder.

        Exit codes: 0 synced or already current, 1 failed (the local copy is intact), 2 usage errors or a refused DIR.
        """)

    @Argument(help: "The site's base URL (the folder holding update-manifest.json), http:// or https://.") var url: String
    @Argument(help: "The local copy to create or update.") var dir: String

    @Option(name: .long, help: ArgumentHelp("Seconds (whole, at least 1) a request may wait for data before it is retried.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(name: .long, help: ArgumentHelp("Further attempts for a request that failed in a way that may pass (timeout, 5xx, cut connection, wrong bytes).", valueName: "n"))
    var retries: Int = 3

    @Option(name: .long, help: ArgumentHelp("Files downloaded at once.", valueName: "n"))
    var parallel: Int = 8

    @Option(name: .long, help: ArgumentHelp("The root of trust to pin (a root.json the publisher gave you): only releases signed under it, or under a root chained from it, are taken.", valueName: "file"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("Seconds the whole sync may take, retries included.", valueName: "seconds"))
    var deadline: Double = 3600

    func run() throws {
        guard let site = URL(string: url), let scheme = site.scheme?.lowercased(), scheme == "http" || scheme == "https",
              site.host?.isEmpty == false else {
            FileHandle.standardError.write(Data("error: \(OutputGuard.printable(url)) is not an http:// or https:// URL\n".utf8))
            throw ExitCode(2)
        }
        guard timeout > 0, timeout.isFinite, deadline > 0, deadline.isFinite, retries >= 0, parallel >= 1 else {
            FileHandle.standardError.write(Data("error: --timeout and --deadline must be above 0, --retries 0 or more, --parallel 1 or more\n".utf8))
            throw ExitCode(2)
        }
        // The same guard as a build's output: a sync replaces the folder whole.
        let folder: URL
        do { folder = try OutputGuard.check(syncTarget: dir) } catch let e as OutputGuard.Refusal {
            FileHandle.standardError.write(Data("error: \(e)\n".utf8))
            throw ExitCode(2)
        }
        let isTTY = isatty(STDERR_FILENO) == 1
        let trust = try root.map(PinnedRoot.trust)
        let sync = TreeSync(site: site, directory: folder,
                            configuration: HTTPFetcher.Configuration(timeout: timeout, retries: retries, maxParallel: parallel, deadline: deadline), trust: trust)
        // Progress comes from several download threads at once.
        let lastShown = Locked(-1)
        let show: @Sendable (SyncProgress) -> Void = { p in
            // One line redrawn in place, about a hundred times at most.
            let step = p.done * 100 / max(p.total, 1)
            lastShown.withLock { last in
                guard step > last else { return }
                last = step
                FileHandle.standardError.write(Data("\r  … \(p.done)/\(p.total) files".utf8))
            }
        }
        let report: SyncReport
        do {
            report = try sync.run(progress: isTTY ? show : nil)
            if isTTY && lastShown.withLock({ $0 }) >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        } catch let e as SyncError {
            if isTTY && lastShown.withLock({ $0 }) >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
            if e.kind == .refusedFolder {
                FileHandle.standardError.write(Data("error: \(TreePath.shown(e.message, limit: 2000))\n".utf8))
                throw ExitCode(2)
            }
            let unchanged = FileManager.default.fileExists(atPath: folder.path) ? "\(dir) is unchanged" : "nothing was written to \(dir)"
            if e.kind == .expired {
                let last = e.lastSuccessfulCheck.map { "last found current at \(TrustTime.text($0))" } ?? "never found current"
                FileHandle.standardError.write(Data("stale: \(dir) \(last)\n".utf8))
            }
            FileHandle.standardError.write(Data("error: \(TreePath.shown(e.message, limit: 2000))\nsync failed; \(unchanged)\n".utf8))
            throw ExitCode(1)
        }
        let from = report.fromVersion.map { "version \($0)" } ?? "no copy"
        if report.alreadyCurrent {
            print("\(dir) is current: version \(report.toVersion) (\(report.currentVersion)) at \(url)")
        } else {
            print("synced \(dir): \(from) → version \(report.toVersion) (\(report.currentVersion)) from \(url)"
                  + (report.deltaFrom.map { " using the delta from version \($0)" } ?? ""))
            print("  patched \(report.patched), downloaded \(report.downloaded), deleted \(report.deleted), unchanged \(report.unchanged)")
        }
        print("  downloaded \(report.bytesDownloaded) bytes" + (report.alreadyCurrent ? "" : "; a fresh copy is \(report.freshCopyBytes) bytes"))
        if let v = report.rootVersion, let expires = report.expires {
            let taken = report.rootsTaken.isEmpty ? "" : " (new root(s) taken: \(report.rootsTaken.map(String.init).joined(separator: ", ")))"
            print("  signed under root \(v)\(taken); current until \(TrustTime.text(expires))")
        }
        for n in report.notes { print("  note: \(TreePath.shown(n, limit: 300))") }
    }
}
