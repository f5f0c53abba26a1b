import Foundation
import LowLevel

/// What the build before left in the output folder, and everything a rebuild may keep of it, behind one interface:
///
/// - **the output's tree**, the release it holds: unchanged files are linked from it rather than written;
/// - **the build cache** (`BuildCache`, beside the output): what each of its files was made from, so a file made from
///   the same inputs is kept without being rendered; where the fragments of its large files lie, so they are copied
///   rather than rendered (`earlierFile`); and the orders the domains worked out (`keptOrder`), taken again when they
///   still are (`KeptOrder`);
/// - **the products snapshot** (`ProductSnapshotFile`): the catalog's records as read, taken instead of parsing
///   unchanged lines again.
///
/// All of it is a speed-up and nothing else: without it (a first build, `--no-cache`, a cache of another release or
/// another executable) the build makes the same bytes. The cache is read on a thread of its own while the domains
/// read their inputs; what a domain asks of it waits for that read.
final class PreviousBuild: Sendable {
    /// The release in the output folder (nil: none, or a first build).
    let tree: PreviousRelease?
    /// Where the build cache is.
    let cacheFile: URL
    /// The products snapshot (nil with `--no-cache`).
    let productSnapshot: ProductSnapshotFile?
    /// The cache being read (nil with `--no-cache`, or when there is no tree it could describe).
    private let reading: Background<Result<BuildCache, BuildCache.Unused>>?

    /// The cache's entries once taken (`takeCache`), and whether it was: it describes the output's release, made by
    /// this very executable.
    private let taken = Locked<(entries: [String: BuildCache.Entry], taken: Bool)>(([:], false))
    var entries: [String: BuildCache.Entry] { taken.withLock { $0.entries } }
    var cacheTaken: Bool { taken.withLock { $0.taken } }

    /// What was kept, for the summary; the files of a folder by fingerprint (made once per folder).
    private let said = Locked<[String]>([])
    private let byFingerprint = Locked<[String: [Fingerprint: String]]>([:])

    /// The output's tree (the release `previous` when the build follows the output's own, else whatever the output
    /// holds), and its cache being read when the cache is used.
    init(options: BuildOptions, following previous: PreviousRelease?) throws {
        let tree = try options.previousSite == nil && !options.firstRelease
            && (options.previous.map { $0.standardizedFileURL == options.output.standardizedFileURL } ?? true)
            ? previous : PreviousRelease.load(from: options.output)
        let cacheFile = BuildCache.location(for: options.output, folder: options.cacheFolder)
        self.tree = tree
        self.cacheFile = cacheFile
        productSnapshot = options.useCache ? ProductSnapshotFile(url: ProductSnapshot.location(cache: cacheFile)) : nil
        reading = options.useCache ? tree.map { Self.read(cacheFile, describing: $0) } : nil
    }

    /// The cache, read, checked and matched to the tree's release on a thread of its own. Its large files as they were
    /// when that build left them are not hashed again while they still are; those whose stamps changed (a tree copied
    /// or restored: new inodes) are hashed now, while the domains read their inputs, rather than when their new
    /// versions are spliced from them (opened the safe way, as the release lists them; one whose stamp is known is
    /// not read).
    private static func read(_ cacheFile: URL, describing tree: PreviousRelease) -> Background<Result<BuildCache, BuildCache.Unused>> {
        Background {
            let found = BuildCache.load(cacheFile, release: tree.fileIndex.sha256)
            if case .success(let c) = found {
                tree.verified.add(c.stamps)
                for (path, e) in c.entries where !e.fragments.isEmpty && tree.entries.sha256(of: path) == e.sha256 {
                    _ = tree.earlier(path, checksum: e.checksum)
                }
            }
            return found
        }
    }

    /// The cache as read, waited for (nil: none).
    private var cache: BuildCache? { (try? reading?.wait().get()) ?? nil }

    /// After the domains: the cache's entries taken for the build's own stages; why it cannot be used, if it cannot.
    func takeCache() throws -> String? {
        switch try reading?.wait() {
        case .success(let c)?: taken.withLock { $0 = (c.entries, true) }; return nil
        case .failure(let why)?: return why.description
        case nil: return nil
        }
    }

    /// Lets go of what is still running.
    func close() {
        reading?.join()
        productSnapshot?.close()
    }

    // MARK: For the build's stages

    /// The hash of a file of the output's tree, as its release lists it.
    func sha256(of path: String) -> String? { tree?.entries.sha256(of: path) }

    /// A file the cache describes, as the output has it now (checked against its index entry): for files written from
    /// fragments, whose next version copies most of it.
    func earlierFile(_ path: String, _ entry: BuildCache.Entry) -> EarlierFile? {
        guard let tree, tree.entries.sha256(of: path) == entry.sha256 else { return nil }
        return tree.earlier(path, checksum: entry.checksum)
    }

    /// Whether the index of `previous` (the release this build follows) was checked by this executable when it was
    /// made: the cache was taken, and it describes that very release.
    func checkedIndex(of previous: PreviousRelease?) -> Bool {
        cacheTaken && tree?.fileIndex.sha256 == previous?.fileIndex.sha256
    }

    // MARK: For the domains

    /// What the build before kept under `name` (`DomainResult.keptOrders`): unchecked, for the caller to check.
    func keptOrder(_ name: String) -> [Int32]? { cache?.keptOrders[name] }

    /// What was kept this way, for the build's summary.
    var notes: [String] { said.withLock { $0 } }
    func note(_ text: String) { said.withLock { $0.append(text) } }

    /// The files the cache says were made from `fingerprint`.
    func paths(madeFrom fingerprint: Fingerprint) -> Set<String> {
        Set((cache?.entries ?? [:]).lazy.filter { $0.value.fingerprint == fingerprint }.map(\.key))
    }

    /// The file under `folder` the cache says was made from `fingerprint` (the files of a folder by fingerprint, made
    /// once: hundreds of content-named shards each look themselves up).
    func path(madeFrom fingerprint: Fingerprint, in folder: String) -> String? {
        let entries = cache?.entries ?? [:]
        return byFingerprint.withLock { byFingerprint in
            if byFingerprint[folder] == nil {
                var table: [Fingerprint: String] = [:]
                for (path, e) in entries where path.hasPrefix(folder) && path.utf8.count > folder.utf8.count {
                    // (Two files of one fingerprint: neither is taken.)
                    table[e.fingerprint] = table[e.fingerprint] == nil ? path : ""
                }
                byFingerprint[folder] = table
            }
            return byFingerprint[folder]![fingerprint].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// A file's bytes, when the output still has it as the release's index describes it (size and hash).
    func read(_ path: String) -> [UInt8]? {
        guard let file = tree?.earlier(path) else { return nil }
        return file.readAll()
    }
}
