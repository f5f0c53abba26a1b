import Foundation
import LowLevel
import Schemas
#if canImport(Glibc)
import Glibc
#endif

/// Decides whether a folder may be replaced by a build (or read as a previous release) before anything is touched.
///
/// A build replaces its whole output folder, so a wrong `--out` is data loss: the input folder, the current folder,
/// the home folder or any folder holding someone's files would be deleted. Only three kinds of output are accepted:
/// a path that does not exist yet, an empty folder, and a tree this tool built (its `update-manifest.json` names a file
/// index that exists). Paths are compared after symlinks are resolved, so a link to the input folder is the input folder.
/// Every command that writes a tree calls `check` first; the CLI maps a `Refusal` to exit 2.
public enum OutputGuard {
    /// Why a path was refused, and what to do instead.
    public struct Refusal: Error, CustomStringConvertible, Sendable, Equatable {
        public enum Problem: Sendable, Equatable {
            case empty, tilde, root, home, containsHome, currentFolder, containsCurrentFolder
            case inputFolder, containsInput, insideInput
            case containsPrevious, insidePrevious
            case outputFolder, insideOutput
            case notAFolder, underAFile, unresolvable, notOurTree, notATree
        }
        /// `copy`: the local copy `generator sync` replaces; `cache`: the folder of `build --cache`.
        public enum Role: Sendable, Equatable { case output, previous, copy, cache }

        public let role: Role
        /// The path as the user gave it.
        public let path: String
        public let problem: Problem
        /// The path after symlinks were resolved (shown when it differs from `path`).
        public let resolved: String

        public var reason: String {
            switch problem {
            case .empty: return "the path is empty (it would mean the current folder)"
            case .tilde: return "it begins with '~', which the shell did not expand (Foundation would take it as a home folder)"
            case .root: return "it is the root folder"
            case .home: return "it is your home folder"
            case .containsHome: return "it contains your home folder"
            case .currentFolder: return "it is the current folder"
            case .containsCurrentFolder: return "it contains the current folder"
            case .inputFolder: return "it is the input folder"
            case .containsInput: return "it contains the input folder"
            case .insideInput: return "it is inside the input folder"
            case .containsPrevious: return "it contains the previous release given with --previous"
            case .insidePrevious: return "it is inside the previous release given with --previous"
            case .outputFolder: return "it is the output folder"
            case .insideOutput: return "it is inside the output folder (which a build replaces)"
            case .notAFolder: return "it exists and is not a folder"
            case .underAFile: return "a part of the path is a file, not a folder"
            case .unresolvable: return "it is a symlink that leads nowhere (or a loop), or cannot be resolved"
            case .notOurTree: return "it is a folder with files that were not built by generator (no update-manifest.json naming an existing file index)"
            case .notATree: return "it is not a tree built by generator (no update-manifest.json naming an existing file index)"
            }
        }

        public var advice: String {
            switch (role, problem) {
            case (.output, .empty): return "give a folder, e.g. --out dist"
            case (.previous, .empty): return "give the folder of a tree built earlier, or leave --previous out"
            case (_, .tilde): return "write the path in full (e.g. \"$HOME/dist\", unquoted ~/dist) or without '~'"
            case (.output, .inputFolder), (.output, .containsInput), (.output, .insideInput):
                return "choose an output folder outside the input folder, e.g. --out dist"
            case (.output, .notAFolder), (.output, .underAFile):
                return "a build writes a folder; remove the file yourself or choose another path, e.g. --out dist"
            case (.output, .notOurTree):
                return "a build replaces the whole folder; choose a new or empty folder, or empty this one yourself"
            case (.output, .containsPrevious), (.output, .insidePrevious):
                return "keep the previous release and the output apart (or give the same folder for both)"
            case (.output, _):
                return "a build replaces the whole folder; choose a folder of its own, e.g. --out dist"
            case (.previous, .inputFolder), (.previous, .containsInput), (.previous, .insideInput):
                return "give the folder of a tree built earlier, outside the input folder"
            case (.previous, _):
                return "give the folder of a tree built earlier (its update-manifest.json and file index), or leave --previous out"
            case (.copy, _):
                return "a sync replaces the whole folder; choose a new or empty folder of its own, or one an earlier sync made"
            case (.cache, _):
                return "give a folder outside the input and output folders, e.g. --cache .build-cache, or leave --cache out"
            }
        }

        public var description: String {
            let shown = resolved.isEmpty || resolved == path ? OutputGuard.printable(path)
                : "\(OutputGuard.printable(path)) (\(OutputGuard.printable(resolved)))"
            let verb = role == .previous ? "refusing to read the previous release from" : role == .copy ? "refusing to sync into"
                : role == .cache ? "refusing to keep the build cache in" : "refusing to write to"
            return "\(verb) \(shown.isEmpty ? "\"\"" : shown): \(reason); \(advice)"
        }
    }

    /// The paths a build may use, symlinks resolved.
    public struct Checked: Sendable, Equatable {
        public let output: URL
        public let previous: URL?
    }

    /// Checks an output folder (and a previous release to read) against the input folder, the current folder and home.
    /// Paths are taken as given (relative to `cwd`); nothing is created or changed.
    public static func check(output: String, input: String, previous: String? = nil,
                             cwd: String = FileManager.default.currentDirectoryPath,
                             home: String? = ProcessInfo.processInfo.environment["HOME"]) throws -> Checked {
        func refuse(_ role: Refusal.Role, _ path: String, _ problem: Refusal.Problem, _ resolved: String = "") -> Refusal {
            Refusal(role: role, path: path, problem: problem, resolved: resolved)
        }
        guard !output.isEmpty else { throw refuse(.output, output, .empty) }
        // URL(fileURLWithPath:) expands a leading "~" or "~user" to a home folder (from the password database, not
        // $HOME), so "~" checked here as ./~ would be written to the home folder: such paths are refused outright.
        if output.hasPrefix("~") { throw refuse(.output, output, .tilde) }
        if let previous, previous.hasPrefix("~") { throw refuse(.previous, previous, .tilde) }
        let inputPath = resolve(input, cwd: cwd).path ?? absolute(input, cwd: cwd)

        // The previous release is only read, but it must be a tree, and reading the input folder as one is a mistake.
        var previousPath: String?
        if let previous {
            guard !previous.isEmpty else { throw refuse(.previous, previous, .empty) }
            let r = resolve(previous, cwd: cwd)
            guard let p = r.path else { throw refuse(.previous, previous, r.problem ?? .unresolvable) }
            switch relation(p, inputPath) {
            case .same: throw refuse(.previous, previous, .inputFolder, p)
            case .contains: throw refuse(.previous, previous, .containsInput, p)
            case .inside: throw refuse(.previous, previous, .insideInput, p)
            case nil: break
            }
            guard isBuiltTree(p) else { throw refuse(.previous, previous, .notATree, p) }
            previousPath = p
        }

        let out = try replaceable(output, role: .output, input: inputPath, previous: previousPath, cwd: cwd, home: home)
        return Checked(output: URL(fileURLWithPath: out, isDirectory: true),
                       previous: previousPath.map { URL(fileURLWithPath: $0, isDirectory: true) })
    }

    /// Checks the folder of `build --cache`: not the input folder or inside it (a pull request controls the input, and
    /// the cache would change the input's fingerprint), not the output folder or inside it (a build replaces that),
    /// and a folder if it exists. Returns it with symlinks resolved; it is created when the cache is written.
    public static func check(cache: String, output: URL, input: String, cwd: String = FileManager.default.currentDirectoryPath) throws -> URL {
        func refuse(_ problem: Refusal.Problem, _ resolved: String = "") -> Refusal {
            Refusal(role: .cache, path: cache, problem: problem, resolved: resolved)
        }
        guard !cache.isEmpty else { throw refuse(.empty) }
        if cache.hasPrefix("~") { throw refuse(.tilde) }
        let r = resolve(cache, cwd: cwd)
        guard let c = r.path else { throw refuse(r.problem ?? .unresolvable) }
        let inputPath = resolve(input, cwd: cwd).path ?? absolute(input, cwd: cwd)
        switch relation(c, inputPath) {
        case .same: throw refuse(.inputFolder, c)
        case .inside: throw refuse(.insideInput, c)
        default: break
        }
        let out = resolve(output.path, cwd: cwd).path ?? output.path
        switch relation(c, out) {
        case .same: throw refuse(.outputFolder, c)
        case .inside: throw refuse(.insideOutput, c)
        default: break
        }
        var st = stat()
        if lstat(c, &st) == 0, st.st_mode & S_IFMT != S_IFDIR { throw refuse(.notAFolder, c) }
        return URL(fileURLWithPath: c, isDirectory: true)
    }

    /// Checks the folder `generator sync` replaces with a copy of a published tree, by the rules of a build's output
    /// (no input folder to keep apart): not /, home, the current folder or a folder containing them, and a new path,
    /// an empty folder or a tree (a copy made earlier).
    public static func check(syncTarget: String, cwd: String = FileManager.default.currentDirectoryPath,
                             home: String? = ProcessInfo.processInfo.environment["HOME"]) throws -> URL {
        guard !syncTarget.isEmpty else { throw Refusal(role: .copy, path: syncTarget, problem: .empty, resolved: "") }
        if syncTarget.hasPrefix("~") { throw Refusal(role: .copy, path: syncTarget, problem: .tilde, resolved: "") }
        return URL(fileURLWithPath: try replaceable(syncTarget, role: .copy, input: nil, previous: nil, cwd: cwd, home: home), isDirectory: true)
    }

    /// The resolved path of a folder that may be replaced whole, or the refusal.
    private static func replaceable(_ path: String, role: Refusal.Role, input inputPath: String?, previous: String?,
                                    cwd: String, home: String?) throws -> String {
        func refuse(_ role: Refusal.Role, _ path: String, _ problem: Refusal.Problem, _ resolved: String = "") -> Refusal {
            Refusal(role: role, path: path, problem: problem, resolved: resolved)
        }
        let here = resolve(".", cwd: cwd).path ?? cwd
        let r = resolve(path, cwd: cwd)
        guard let out = r.path else { throw refuse(role, path, r.problem ?? .unresolvable) }
        if relation(out, "/") == .same { throw refuse(role, path, .root, out) }
        // $HOME and the password database's home folder (they differ under sudo, in CI and in tests).
        for home in [home, accountHome()].compactMap({ $0 }) where !home.isEmpty {
            guard let h = resolve(home, cwd: cwd).path else { continue }
            switch relation(out, h) {
            case .same: throw refuse(role, path, .home, out)
            case .contains: throw refuse(role, path, .containsHome, out)
            default: break
            }
        }
        switch relation(out, here) {
        case .same: throw refuse(role, path, .currentFolder, out)
        case .contains: throw refuse(role, path, .containsCurrentFolder, out)
        default: break
        }
        if let inputPath { switch relation(out, inputPath) {
        case .same: throw refuse(role, path, .inputFolder, out)
        case .contains: throw refuse(role, path, .containsInput, out)
        case .inside: throw refuse(role, path, .insideInput, out)
        case nil: break
        } }
        if let p = previous {
            // The swap would delete a previous release inside the output, or write into the previous release.
            switch relation(out, p) {
            case .contains: throw refuse(role, path, .containsPrevious, out)
            case .inside: throw refuse(role, path, .insidePrevious, out)
            default: break
            }
        }
        var st = stat()
        if lstat(out, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else { throw refuse(role, path, .notAFolder, out) }
            guard isEmptyFolder(out) || isBuiltTree(out) else { throw refuse(role, path, .notOurTree, out) }
        }
        return out
    }

    /// A path for a message: control characters escaped, so a hostile folder name cannot drive the terminal.
    public static func printable(_ path: String) -> String {
        var out = ""
        for u in path.unicodeScalars {
            if u.value < 0x20 || (0x7F...0x9F).contains(u.value) { out += String(format: "\\u{%02X}", u.value) } else { out.unicodeScalars.append(u) }
        }
        return out
    }

    /// `path` made absolute against `cwd`, without touching the file system.
    /// The home folder of this process's user in the password database.
    static func accountHome() -> String? {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }

    /// A file URL for a path given on the command line, relative to the current folder, with no tilde expansion
    /// (`URL(fileURLWithPath: "~")` is the home folder). Every command builds its URLs through this.
    public static func fileURL(_ path: String, cwd: String = FileManager.default.currentDirectoryPath) -> URL {
        URL(fileURLWithPath: absolute(path, cwd: cwd))
    }

    static func absolute(_ path: String, cwd: String) -> String {
        path.hasPrefix("/") ? path : (cwd.hasSuffix("/") ? cwd : cwd + "/") + path
    }

    /// The real path of `path`: the real path of its deepest existing ancestor, then the remaining components (which
    /// do not exist, so cannot be links). Nil with the problem when a component exists but cannot be followed (a
    /// dangling symlink, a loop, no permission) or when the path runs through a file.
    public static func resolve(_ path: String, cwd: String = FileManager.default.currentDirectoryPath)
        -> (path: String?, problem: Refusal.Problem?) {
        var base = absolute(path, cwd: cwd).split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var rest: [String] = []
        while true {
            let candidate = "/" + base.joined(separator: "/")
            if let real = realpath(candidate, nil) {
                defer { free(real) }
                var resolved = String(cString: real)
                if !rest.isEmpty {
                    var st = stat()
                    guard stat(resolved, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return (nil, .underAFile) }
                    // The first missing component must really be missing: if lstat sees it, realpath could not follow it.
                    if rest[0] != "..", rest[0] != ".", lstat(resolved + (resolved == "/" ? "" : "/") + rest[0], &st) == 0 {
                        return (nil, .unresolvable)
                    }
                }
                var parts = resolved.split(separator: "/").map(String.init)
                for c in rest {
                    if c == "." { continue }
                    if c == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
                    parts.append(c)
                }
                resolved = "/" + parts.joined(separator: "/")
                return (resolved, nil)
            }
            if errno == ENOTDIR { return (nil, .underAFile) }
            guard let last = base.popLast() else { return (nil, .unresolvable) }
            rest.insert(last, at: 0)
        }
    }

    /// True when `a` is a strict ancestor of `b` (both absolute, resolved).
    static func isAncestor(_ a: String, of b: String) -> Bool {
        a != b && (a == "/" || b.hasPrefix(a + "/"))
    }

    enum Relation { case same, contains, inside }

    /// How folder `a` stands to folder `b` (both resolved; either may not exist yet): the same folder, an ancestor of
    /// it (`contains`), or inside it. By path, then by identity (device and inode), so that a second path to the same
    /// folder (a bind mount) is caught too.
    static func relation(_ a: String, _ b: String) -> Relation? {
        if a == b { return .same }
        if isAncestor(a, of: b) { return .contains }
        if isAncestor(b, of: a) { return .inside }
        func identity(_ path: String) -> [Int]? {
            var st = stat()
            return stat(path, &st) == 0 ? [Int(st.st_dev), Int(st.st_ino)] : nil
        }
        func lineage(_ path: String) -> [String] {   // the path, then each parent up to /
            var out = [path], p = path
            while p != "/" { p = (p as NSString).deletingLastPathComponent; if p.isEmpty { p = "/" }; out.append(p) }
            return out
        }
        if let idA = identity(a) {
            let chain = lineage(b).map(identity)
            if chain.first == idA { return .same }
            if chain.dropFirst().contains(where: { $0 == idA }) { return .contains }
        }
        if let idB = identity(b), lineage(a).dropFirst().map(identity).contains(where: { $0 == idB }) { return .inside }
        return nil
    }

    static func isEmptyFolder(_ path: String) -> Bool {
        guard let dir = opendir(path) else { return false }
        defer { closedir(dir) }
        var empty = true
        forEachFolderEntry(dir) { _, _ in empty = false }
        return empty
    }

    /// A tree this tool built: a regular `update-manifest.json` (not a link) whose `fileIndex.path` is a plain relative
    /// path to a regular file inside the folder.
    public static func isBuiltTree(_ path: String) -> Bool {
        let manifestPath = path + "/update-manifest.json"
        var st = stat()
        // A manifest is a few kilobytes; a huge file there is not one of ours.
        guard lstat(manifestPath, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size < 16 << 20,
              let data = FileManager.default.contents(atPath: manifestPath),
              let manifest = try? JSONReader.parse(data),
              let index = manifest["fileIndex"]?["path"]?.stringValue ?? manifest["fileIndex"]?.stringValue,
              !index.isEmpty, !index.hasPrefix("/"), !index.contains("\\"),
              !index.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              !index.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." || $0.isEmpty })
        else { return false }
        // Every component below the tree must be a real folder or file, never a link out of it.
        var at = path
        for c in index.split(separator: "/") {
            at += "/" + c
            guard lstat(at, &st) == 0, st.st_mode & S_IFMT != S_IFLNK else { return false }
        }
        return st.st_mode & S_IFMT == S_IFREG
    }
}
