import Foundation

/// The tree in the output as the build cache describes it (a cache of this executable, for the release the output
/// holds): what each file was made from, and its bytes, checked against the release's index. With it a domain keeps
/// work the cache cannot keep by path alone: the ranked index's term shards, named by their content.
final class EarlierTree: @unchecked Sendable {
    /// (Read on another thread while the build goes on: waited for only when a unit looks for kept work.)
    private let cache: @Sendable () -> [String: BuildCache.Entry]
    private let release: PreviousRelease

    private let lock = NSLock()
    private var said: [String] = []

    private let memos: @Sendable () -> [String: [Int32]]

    init(cache: @escaping @Sendable () -> [String: BuildCache.Entry], memos: @escaping @Sendable () -> [String: [Int32]] = { [:] },
         release: PreviousRelease) {
        self.cache = cache; self.memos = memos; self.release = release
    }

    /// What the build before kept under `name` (`DomainResult.memos`): unchecked, for the caller to check.
    func memo(_ name: String) -> [Int32]? { memos()[name] }

    /// What was kept this way, for the build's summary.
    var notes: [String] { lock.lock(); defer { lock.unlock() }; return said }
    func note(_ text: String) { lock.lock(); said.append(text); lock.unlock() }

    /// The files the cache says were made from `fingerprint`.
    func paths(madeFrom fingerprint: Fingerprint) -> Set<String> {
        Set(cache().lazy.filter { $0.value.fingerprint == fingerprint }.map(\.key))
    }

    /// The file under `folder` the cache says was made from `fingerprint` (the files of a folder by fingerprint, made
    /// once: hundreds of content-named shards each look themselves up).
    func path(madeFrom fingerprint: Fingerprint, in folder: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        if byFingerprint[folder] == nil {
            var table: [Fingerprint: String] = [:]
            for (path, e) in cache() where path.hasPrefix(folder) && path.utf8.count > folder.utf8.count {
                // (Two files of one fingerprint: neither is taken.)
                table[e.fingerprint] = table[e.fingerprint] == nil ? path : ""
            }
            byFingerprint[folder] = table
        }
        return byFingerprint[folder]![fingerprint].flatMap { $0.isEmpty ? nil : $0 }
    }
    private var byFingerprint: [String: [Fingerprint: String]] = [:]

    /// A file's bytes, when the output still has it as the release's index describes it (size and hash).
    func read(_ path: String) -> [UInt8]? {
        guard let file = release.earlier(path) else { return nil }
        var bytes = [UInt8](repeating: 0, count: file.size)
        guard bytes.withUnsafeMutableBytes({ file.read(0, $0) }) else { return nil }
        return bytes
    }
}
