import ArgumentParser
import Foundation
import Generator
import Schemas
import TreeClient

struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build the tree from an input folder.",
        discussion: """
        The new tree is staged beside the output folder and put in place only when complete; \
        unchanged files are not rewritten. Timestamps come from SOURCE_DATE_EPOCH when set.

        Rebuilds are incremental: a cache (.OUT.cache beside the output, or OUT.cache in --cache DIR) records what \
        each file was made from; files whose inputs did not change are kept without being rendered, and a small \
        change is applied to the output in place (a journal lets the next build undo one that was killed). Deleting \
        the cache, or --no-cache, gives a full build with the same bytes.

        The output folder is replaced as a whole, so it must be a new path, an empty folder or a tree built \
        by generator: the input folder (or a folder containing it or inside it), the current folder or one \
        containing it, the home folder, /, a file and a folder holding other files are refused before anything \
        is touched. Symlinks are resolved first. One build at a time writes an output: a second one waits for \
        the first (--wait) and then builds on top of its release. The staging folder a killed build left beside \
        the output (.OUT.staging-PID, marked as made by a build) is removed by the next build.

        With --previous https://…/ the previous release is read from the live site (update-manifest.json, its file \
        index, and the old version of each changed JSON file for the patches, every file checked against its hash): \
        versions and deltas continue from what apps have even when no earlier tree is at hand. A 404 for \
        update-manifest.json means nothing is published yet (release 1). Any other failure (no connection, a timeout, \
        a 5xx, a redirect, which is never followed, a body larger than listed, a server below 100 bytes/s, a step \
        past --deadline, a hash that does not match) fails the build: it never starts over at version 1 by itself; \
        --first-release does, deliberately.

        Exit codes: 0 built (or nothing changed), 1 input errors, a failed write or a previous release that cannot be \
        read (nothing was changed), 2 usage errors: a refused --out or --previous, or another build still writing the \
        output after --wait seconds (nothing was touched).
        """)

    @Option(name: .long, help: "Input folder: site.json and any of catalog/, auctions/, nba/, collections/ (each folder present is compiled).")
    var input: String = "input"

    @Option(name: .long, help: "Output folder: a new path, an empty folder or a tree built earlier; it is replaced only by a complete new tree.")
    var out: String = "dist"

    @Option(name: .long, help: ArgumentHelp("Previous release to continue from: a tree built earlier, or the live site's URL (http(s)://…/, read over HTTP). Default: the output folder's own.", valueName: "folder-or-url"))
    var previous: String?

    @Flag(name: .customLong("first-release"), help: "Start a new release history at version 1, reading no previous release (apps already on a higher version refuse the new history until it passes their version).")
    var firstRelease = false

    @Option(name: .long, help: ArgumentHelp("Seconds (whole, at least 1) a request to the site given with --previous may wait for data before it is retried.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(name: .long, help: ArgumentHelp("Further attempts for a request to the site that failed in a way that may pass (timeout, 5xx, cut connection).", valueName: "n"))
    var retries: Int = 3

    @Option(name: .long, help: ArgumentHelp("Seconds each step of reading the --previous site may take, retries included (its manifest and file index; then the old versions of changed files).", valueName: "seconds"))
    var deadline: Double = 3600

    @Option(name: .long, help: "Worker threads (default: all cores). Output never depends on it.")
    var threads: Int?

    @Flag(name: .long, help: "Report bad data rows as counted warnings instead of failing.")
    var skipBadRows = false

    @Flag(name: .long, help: "Print a machine-readable JSON summary on stdout.")
    var json = false

    @Flag(name: .long, help: "Print progress (stage, files done of total) on stderr about every second even when stderr is not a terminal (on a terminal it is on by default, unless --json).")
    var progress = false

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another build writing the same output; 0 fails at once (exit 2).", valueName: "seconds"))
    var wait: Double = 60

    @Option(name: .long, help: ArgumentHelp("Folder of the build cache (OUT.cache there); default: .OUT.cache beside the output. Not inside the input or output folder.", valueName: "folder"))
    var cache: String?

    @Flag(name: .customLong("no-cache"), help: "Read and write no build cache: every file is rendered (the tree is the same).")
    var noCache = false

    @Option(name: .customLong("signing-key"), help: ArgumentHelp("A private key that signs the release (repeat for several; or GENERATOR_SIGNING_KEY holding a key's text). Required when the input holds roots/; never inside the input or output folder.", valueName: "file"))
    var signingKeys: [String] = []

    @Flag(name: .customLong("accept-unsigned-previous"), help: "With roots in the input and --previous URL: continue from an unsigned release there (a site's first signed release). Otherwise the site's release must be signed under the input's roots.")
    var acceptUnsignedPrevious = false

    @Flag(help: "Build an input with roots/ without signing it (a pull request's preview, which must not hold the key). Apps that pin a root refuse such a tree.")
    var unsigned = false

    func run() throws {
        let isTTY = isatty(STDERR_FILENO) == 1
        guard wait >= 0, wait.isFinite else {
            FileHandle.standardError.write(Data("error: --wait must be a number of seconds, 0 or more\n".utf8))
            throw ExitCode(2)
        }
        guard timeout > 0, timeout.isFinite, deadline > 0, deadline.isFinite, retries >= 0 else {
            FileHandle.standardError.write(Data("error: --timeout and --deadline must be numbers of seconds above 0 and --retries 0 or more\n".utf8))
            throw ExitCode(2)
        }
        // --previous is a site when it is an http(s) URL; another scheme is a mistake, not a folder name.
        var site: URL?
        var folder = previous
        if let previous, let scheme = previous.range(of: "://").map({ previous[..<$0.lowerBound].lowercased() }),
           scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
            guard scheme == "http" || scheme == "https", let url = URL(string: previous), url.host?.isEmpty == false else {
                FileHandle.standardError.write(Data("error: --previous \(OutputGuard.printable(previous)): a site is an http:// or https:// URL with a host; a folder is a path\n".utf8))
                throw ExitCode(2)
            }
            site = url
            folder = nil
        }
        // Refused before anything else, with the paths as the user typed them (Build.run checks again, resolved).
        do {
            _ = try OutputGuard.check(output: out, input: input, previous: folder)
        } catch let e as OutputGuard.Refusal {
            FileHandle.standardError.write(Data("error: \(e)\n".utf8))
            throw ExitCode(2)
        }
        // What a failure leaves: the previous tree as it was, or no tree at all.
        let hadTree = FileManager.default.fileExists(atPath: out)
        let unchanged = hadTree ? "\(out) was left unchanged" : "nothing was written to \(out)"
        // Progress goes to stderr, so --json keeps stdout pure JSON even with --progress.
        let showProgress = progress || (isTTY && !json)
        let options: BuildOptions
        do { options = try buildOptions(site: site, folder: folder, showProgress: showProgress) } catch {
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\nbuild not started; \(unchanged)\n".utf8))
            throw ExitCode(2)
        }
        let started = Date()
        let summary: BuildSummary
        do {
            summary = try Build.run(options, progress: { msg in
                if showProgress { FileHandle.standardError.write(Data("  … \(msg)\n".utf8)) }
            }, waiting: { pid in
                // Always said, TTY or not: a CI log must show why a build sat still.
                let who = pid.map { "another build (pid \($0))" } ?? "another build"
                FileHandle.standardError.write(Data("\(who) is writing \(out); waiting up to \(BuildLock.Busy.seconds(wait)) for it to finish\n".utf8))
            })
        } catch let e as OutputGuard.Refusal {
            FileHandle.standardError.write(Data("error: \(e)\n".utf8))
            throw ExitCode(2)
        } catch let e as BuildLock.Busy {
            FileHandle.standardError.write(Data("error: \(e)\nbuild not started; \(unchanged)\n".utf8))
            throw ExitCode(2)
        } catch let e as BuildErrors {
            FileHandle.standardError.write(Data("\(e)\nbuild failed: \(e.errors.count) error(s); \(unchanged)\n".utf8))
            throw ExitCode(1)
        } catch let e as BuildError {
            FileHandle.standardError.write(Data("error: \(e)\nbuild failed; \(unchanged)\n".utf8))
            throw ExitCode(1)
        }
        let seconds = Date().timeIntervalSince(started)
        if json {
            print(try JSONWriter(pretty: true).string(SummaryText.json(summary, seconds: seconds)), terminator: "")
        } else {
            print(SummaryText.text(summary, out: out, seconds: seconds))
        }
    }
}

enum SummaryText {
    static func text(_ s: BuildSummary, out: String, seconds: Double) -> String {
        var lines: [String] = []
        if !s.changed, let site = s.previousSite {
            lines.append("No content changes since the release at \(site): it stays at version \(s.version) (\(s.currentVersion)); nothing written to \(out).")
        } else if !s.changed {
            lines.append("No content changes: \(out) stays at version \(s.version) (\(s.currentVersion)); nothing written.")
        } else {
            lines.append("Built \(out): version \(s.version) (\(s.currentVersion)), \(s.fileCount) files, \(s.totalBytes) bytes in \(String(format: "%.2f", seconds)) s")
            lines.append("  \(s.fileCount - 2) files in the file index, plus the index itself and update-manifest.json")
            lines.append("  written \(s.written), unchanged \(s.linked)" + (s.reused > 0 ? " (\(s.reused) kept by the build cache without rendering)" : "")
                         + (s.copiedFragments > 0 ? ", \(s.copiedFragments) index entries copied" : "")
                         + (s.inPlace ? "; applied in place" : "")
                         + (s.productLinesReused > 0 ? "; \(s.productLinesReused) product lines taken from the cache's snapshot" : ""))
            lines.append("  stages: " + s.stageSeconds.map { "\($0.0) \(String(format: "%.2f", $0.1)) s" }.joined(separator: ", "))
        }
        for n in s.notes { lines.append("  \(n)") }
        var domain = ""
        for r in s.report {
            if r.domain != domain { domain = r.domain; lines.append("\(domain):") }
            var l = "  \(r.key): \(r.count)"
            if let p = r.policy { l += " — \(p)" }
            if !r.examples.isEmpty, r.count > 0 { l += " (e.g. \(r.examples.prefix(5).joined(separator: ", ")))" }
            lines.append(l)
        }
        if !s.bytesByKind.isEmpty {
            lines.append("size by output kind:")
            for k in s.bytesByKind { lines.append("  \(k.kind): \(k.files) files, \(k.bytes) bytes") }
        }
        for w in s.warnings { lines.append("warning: \(w)") }
        return lines.joined(separator: "\n")
    }

    static func json(_ s: BuildSummary, seconds: Double) -> JSON {
        .obj([
            "changed": .bool(s.changed), "renewed": .bool(s.renewed), "version": .int(s.version), "currentVersion": .string(s.currentVersion),
            "files": .int(s.fileCount), "bytes": .int(s.totalBytes), "written": .int(s.written), "unchanged": .int(s.linked),
            "reused": .int(s.reused), "inPlace": .bool(s.inPlace), "productLinesReused": .int(s.productLinesReused),
            "seconds": .double((seconds * 1000).rounded() / 1000),
            "report": .array(s.report.map { .obj(["domain": .string($0.domain), "key": .string($0.key), "count": .int($0.count),
                                                   "policy": .optional($0.policy), "examples": .strings($0.examples)]) }),
            "sizeByKind": .array(s.bytesByKind.map { .obj(["kind": .string($0.kind), "files": .int($0.files), "bytes": .int($0.bytes)]) }),
            "warnings": .strings(s.warnings),
            "previousSite": .optional(s.previousSite),
            "notes": .strings(s.notes),
        ])
    }
}

extension BuildCommand {
    /// The options of this command line (`site`: --previous as a URL; `folder`: as a folder). Throws when a signing
    /// key cannot be read, or lies inside the input or output folder.
    func buildOptions(site: URL?, folder: String?, showProgress: Bool) throws -> BuildOptions {
        var options = BuildOptions(input: OutputGuard.fileURL(input), output: OutputGuard.fileURL(out),
                                   previous: folder.map { OutputGuard.fileURL($0) },
                                   threads: threads ?? ProcessInfo.processInfo.activeProcessorCount, skipBadRows: skipBadRows,
                                   lockWait: wait)
        if showProgress { options.progressInterval = 1 }
        options.previousSite = site
        options.firstRelease = firstRelease
        options.useCache = !noCache
        options.acceptUnsignedPrevious = acceptUnsignedPrevious
        options.unsigned = unsigned
        options.leavesMemoryToExit = true   // (the process ends after the build)
        options.cacheFolder = cache.map { OutputGuard.fileURL($0) }
        options.http = HTTPFetcher.Configuration(timeout: timeout, retries: retries, deadline: deadline)
        options.signingKeys = try Self.readSigningKeys(signingKeys, input: options.input, output: options.output)
        return options
    }

    /// The keys from `--signing-key` files (never inside the input or output) and `GENERATOR_SIGNING_KEY`.
    static func readSigningKeys(_ files: [String], input: URL, output: URL) throws -> [SigningKey] {
        var keys = try files.map { try SigningKey.read($0, notInside: [input, output]) }
        if let text = ProcessInfo.processInfo.environment["GENERATOR_SIGNING_KEY"], !text.isEmpty {
            keys.append(try SigningKey(text: text, source: "GENERATOR_SIGNING_KEY"))
        }
        return keys
    }
}
