import Foundation
import TreeClient

extension BuildRun {
    /// Reads the site's settings, takes the output's lock, and reads the live site's release when the build follows
    /// one (before any dataset, so an unreachable site costs seconds, not a whole compile). `waiting`: told once, with
    /// the holder's pid, when the build starts waiting for another one.
    func readInputs(waiting: (Int32?) -> Void) throws -> (BuildInputs, site: PreviousRelease?) {
        var clock = TraceClock()
        let siteURL = options.input.appendingPathComponent("site.json")
        let probe = BuildContext(site: SiteConfig.placeholder, inputDirectory: options.input, epochSeconds: options.epochSeconds, threads: options.threads)
        guard FileManager.default.fileExists(atPath: options.input.path) else {
            throw BuildError(file: options.input.path, "input folder not found")
        }
        let site = try SiteConfig.load(siteURL, displayName: probe.displayPath(siteURL))
        var context = BuildContext(site: site, inputDirectory: options.input, epochSeconds: options.epochSeconds,
                                   threads: options.threads, skipBadRows: options.skipBadRows)
        context.memory = options.memory
        let release = try ReleaseSettings.read(site, file: context.displayPath(siteURL))
        let signing = try ReleaseSigning.read(input: options.input, keys: options.signingKeys, unsigned: options.unsigned, epochSeconds: options.epochSeconds,
                                              expiresDays: release.expiresDays)
        // Only for the standard domains: the fingerprint knows the executable, not domains passed in by a caller.
        let (input, skipBadRows) = (options.input, options.skipBadRows)
        let inputDigest = Background { try InputFingerprint.digest(input: input, skipBadRows: skipBadRows) }
        onClose { _ = try? inputDigest.wait() }
        try lockOutput(waiting: waiting)
        clock.lap("settings and lock")
        return (BuildInputs(context: context, release: release, inputDigest: inputDigest, signing: signing), try readSitePrevious(signing))
    }

    /// One writer at a time, from reading the previous release to the swap; a killed build's leftovers go first,
    /// whether or not this build writes anything.
    private func lockOutput(waiting: (Int32?) -> Void) throws {
        let lock = try BuildLock(output: options.output, wait: options.lockWait, waiting: waiting)
        onClose { lock.release() }
        // Again, now that no build can change it: the output may have changed while this build waited.
        _ = try OutputGuard.check(output: options.output.path, input: options.input.path, previous: options.previous?.path)
        StagedTree.removeAbandoned(beside: options.output, holding: lock)
        BuildCache.removeAbandonedTemporaries(of: BuildCache.location(for: options.output, folder: options.cacheFolder))
    }

    /// The live site's release (`--previous URL`), or what `--first-release` says.
    private func readSitePrevious(_ signing: ReleaseSigning?) throws -> PreviousRelease? {
        if options.firstRelease {
            summary.notes.append("--first-release: a new release history starts at version 1" + (options.previousSite.map { " (\($0.absoluteString) was not read)" } ?? ""))
            return nil
        }
        guard let site = options.previousSite else { return nil }
        summary.previousSite = site.absoluteString
        progress("reading the previous release from \(site.absoluteString)")
        let found = try PreviousRelease.load(site: site, fetcher: HTTPFetcher(options.http), signing: signing,
                                             acceptUnsigned: options.acceptUnsignedPrevious, progress: progress)
        summary.notes.append(found.map { "previous release: version \($0.version) (\($0.currentVersion)) at \(site.absoluteString)" }
                             ?? "no release published at \(site.absoluteString) yet (update-manifest.json: HTTP 404): this is release 1")
        return found
    }

    /// The release this one follows: the live site's, a folder's (`--previous DIR` or the output's own), or none.
    func previousRelease(site: PreviousRelease?) throws -> PreviousRelease? {
        if options.firstRelease { return nil }
        if options.previousSite != nil { return site }
        return try PreviousRelease.load(from: options.previous ?? options.output)
    }

    /// The summary when the inputs and the compiler are those of the release the output holds: the tree would be the
    /// same, so nothing is done.
    func sameInputs(_ inputs: BuildInputs, previous: PreviousRelease?, domains: [Domain]) throws -> BuildSummary? {
        guard options.previous == nil, domains.map(\.name) == Build.domains.map(\.name), let previous else { return nil }
        var clock = TraceClock()
        let same = previous.inputDigest == (try inputs.inputDigest.wait())
        clock.lap("input fingerprint")
        guard same else { return nil }
        try renewSignature(of: previous, inputs.signing)
        return unchanged(previous)
    }

    /// What the build before left in the output folder: its tree, and its cache read on a thread of its own while the
    /// domains read their inputs (see `PreviousBuild`).
    func openPreviousBuild(following previous: PreviousRelease?) throws -> PreviousBuild {
        var clock = TraceClock()
        let earlier = try PreviousBuild(options: options, following: previous)
        onClose { earlier.close() }
        clock.lap("output tree")
        stage("config")
        return earlier
    }
}
