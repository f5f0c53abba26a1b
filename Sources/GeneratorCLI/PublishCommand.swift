import ArgumentParser
import Foundation
import Generator
import TreeClient

struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Upload a built tree to S3-compatible object storage, safely for apps that sync while it uploads.",
        discussion: """
        DIST must be a valid built tree (every file's size, sha256 and schema are checked first). Only files whose \
        sha256 differs from the file index published on the store are uploaded, and no object the published release \
        names is written before the switch: files it does not name first, then the new bytes of files it names that \
        change, as content-addressed copies (releases/objects/SHA256.EXT), then update-manifest.json, the one object \
        that switches apps to the new release; then the changed files at their paths, and the copies are deleted. A \
        publish stopped anywhere leaves a manifest whose every file apps can get (sync reads a path not yet rewritten \
        from its copy); running it again completes it. With --prune, objects named only by file indexes of releases \
        the tree no longer keeps are deleted afterwards; nothing this command did not upload is ever deleted.

        Credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, when set, AWS_SESSION_TOKEN; region: AWS_REGION or \
        AWS_DEFAULT_REGION (default us-east-1); store: --endpoint, else AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else \
        AWS's own (https://BUCKET.s3.REGION.amazonaws.com). A custom endpoint is addressed path-style (ENDPOINT/BUCKET/KEY).

        Exit codes: 0 published (or already published, its stopped publish completed, or a dry run), 1 a request \
        failed (the message says where it stopped; the manifest on the store names a release apps can sync whole; run \
        it again to complete it), 2 usage errors, missing \
        credentials, a DIST that is not a valid tree, or a store holding a manifest that is not ours or a newer release \
        (nothing uploaded).
        """)

    @Argument(help: "The built tree to publish (e.g. dist).") var dist: String

    @Option(name: .long, help: ArgumentHelp("Where: s3://BUCKET or s3://BUCKET/PREFIX.", valueName: "s3://bucket/prefix"))
    var to: String

    @Option(name: .long, help: ArgumentHelp("The store's URL (MinIO, SeaweedFS, Ceph, R2, …); default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS.", valueName: "url"))
    var endpoint: String?

    @Flag(name: .long, help: "Afterwards, delete objects named only by file indexes of releases the tree no longer keeps.")
    var prune = false

    @Option(name: .long, help: ArgumentHelp("Uploads at once.", valueName: "n"))
    var parallel: Int = 8

    @Option(name: .long, help: ArgumentHelp("Further attempts for a request that failed in a way that may pass (timeout, 5xx, cut connection).", valueName: "n"))
    var retries: Int = 3

    @Option(name: .long, help: ArgumentHelp("Seconds (whole, at least 1) a request may wait for data before it is retried.", valueName: "seconds"))
    var timeout: Double = 30

    @Flag(name: .customLong("dry-run"), help: "Read the store and print what would be uploaded and pruned; write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Publish over a manifest that is not one of ours, or over a newer release (a rollback apps will not follow).")
    var force = false

    func run() throws {
        func usage(_ text: String) -> ExitCode {
            FileHandle.standardError.write(Data("error: \(text)\n".utf8))
            return ExitCode(2)
        }
        guard timeout > 0, timeout.isFinite, retries >= 0, parallel >= 1 else {
            throw usage("--timeout must be above 0, --retries 0 or more, --parallel 1 or more")
        }
        let env = ProcessInfo.processInfo.environment
        func value(_ name: String) -> String? { env[name].flatMap { $0.isEmpty ? nil : $0 } }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        let location: S3Location
        do { location = try S3Location(to, endpoint: endpoint ?? value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL"), region: region) } catch {
            throw usage("\(error)")
        }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw usage("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones)")
        }
        let signer = S3Signer(credentials: S3Credentials(accessKeyId: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN")), region: region)
        let client = S3Client(location: location, signer: signer, timeout: timeout, retries: retries, maxConnections: parallel)
        var options = TreePublisher.Options()
        options.prune = prune
        options.dryRun = dryRun
        options.force = force
        options.parallel = parallel
        let publisher = TreePublisher(dist: OutputGuard.fileURL(dist), location: location, store: client, options: options) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let report: TreePublisher.Report
        do { report = try publisher.run() } catch let f as TreePublisher.Failure {
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe(f.description))\n".utf8))
            throw ExitCode(f.kind == .refused ? 2 : 1)
        } catch {
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\n".utf8))
            throw ExitCode(1)
        }
        for n in report.notes { print("note: \(TreePath.shown(n, limit: 400))") }
        let from = report.previousVersion.map { "version \($0)" } ?? "nothing published"
        let what = "version \(report.version) (\(TreePath.shown(report.currentVersion)))"
        if report.dryRun {
            let files = report.plan.filter { $0.phase != .manifest }
            print("dry run: \(location) has \(from); publishing \(dist) (\(what)) would upload \(files.count) file(s)"
                  + (report.alreadyPublished ? "" : " and update-manifest.json") + ", skip \(report.skipped) unchanged"
                  + (report.cleanup.isEmpty ? "" : ", remove \(report.cleanup.count) content-addressed cop\(report.cleanup.count == 1 ? "y" : "ies")")
                  + (prune ? ", prune \(report.deletions.count) object(s)" : ""))
            for p in report.plan {
                switch p.phase {
                case .new: print("  upload new: \(TreePath.shown(p.path))")
                case .copy: print("  upload copy: \(TreePath.shown(p.path)) (new bytes of \(TreePath.shown(p.of ?? "")))")
                case .manifest: print("  switch: \(TreePath.shown(p.path))")
                case .rewrite: print("  rewrite: \(TreePath.shown(p.path))")
                }
            }
            for p in report.cleanup { print("  remove copy: \(TreePath.shown(p))") }
            for p in report.deletions { print("  prune: \(TreePath.shown(p))") }
            return
        }
        if report.alreadyPublished {
            if report.rewritten + report.copiesRemoved > 0 {
                print("\(location) already has \(what): completed its publish (rewrote \(report.rewritten) file(s) at their paths, removed "
                      + "\(report.copiesRemoved) content-addressed cop\(report.copiesRemoved == 1 ? "y" : "ies"))")
            } else {
                print("\(location) already has \(what): nothing to upload")
            }
        } else {
            print("published \(dist) (\(what)) to \(location) (was \(from))")
        }
        print("  uploaded \(report.uploaded) file(s), \(report.uploadedBytes) bytes; skipped \(report.skipped) unchanged; pruned \(report.pruned)")
        if report.copies + report.rewritten + report.copiesRemoved > 0 {
            print("  changed files: \(report.copies) content-addressed cop\(report.copies == 1 ? "y" : "ies") before the switch, \(report.rewritten) "
                  + "rewritten at their paths after it, \(report.copiesRemoved) cop\(report.copiesRemoved == 1 ? "y" : "ies") removed")
        }
        print("  apps read it at \(location.publicBase.absoluteString)")
    }
}
