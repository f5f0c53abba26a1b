import Foundation
import XCTest
import TestTools
@testable import Generator

/// Paths and helpers shared by the generator tests. Trees are built in /dev/shm (fast tmpfs) when present.
enum TestSupport {
    static let repoRoot = Repository.root
    /// `Tests/Data`: the real catalog, auction and NBA data and the community suites (see its README).
    static let testData = Repository.testData
    static let defaultInput = repoRoot.appendingPathComponent("input")

    /// The first `count` bytes of the real products file (JSON Lines): real bytes for byte-level code.
    static func realProductBytes(_ count: Int) -> [UInt8] {
        Array(try! Data(contentsOf: testData.appendingPathComponent("catalog/products.jsonl")).prefix(count))
    }

    /// A deterministic pseudo-random generator (SplitMix64): a fixed seed gives the same draws on every run.
    typealias Random = SplitMix64
}

extension SplitMix64 {
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

extension TestSupport {
    static func tempDir(_ name: String = "t") -> URL {
        let url = scratch.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// One folder per test process for every temporary tree, removed when the process exits (tmpfs is memory: a few
    /// hundred test trees left behind per run add up to gigabytes). Folders of test processes that are gone (killed
    /// before they could clean up) are removed first.
    static let scratch: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix("gen-tests-") {
            if let pid = Int32(name.dropFirst("gen-tests-".count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
            }
        }
        let url = base.appendingPathComponent("gen-tests-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        scratchPath = url.path
        atexit { if let p = TestSupport.scratchPath { try? FileManager.default.removeItem(atPath: p) } }
        return url
    }()
    nonisolated(unsafe) static var scratchPath: String?

    /// An input folder: a copy of the default site.json (optionally edited) and given files.
    static func makeInput(site: ((inout [String: Any]) -> Void)? = nil, files: [String: String], copyDefaultCatalog: Bool = false) -> URL {
        let dir = tempDir("input")
        var siteObj = try! JSONSerialization.jsonObject(with: Data(contentsOf: defaultInput.appendingPathComponent("site.json"))) as! [String: Any]
        var catalog = siteObj["catalog"] as? [String: Any] ?? [:]
        catalog.removeValue(forKey: "featured")
        siteObj["catalog"] = catalog
        // The default site.json names the default input's auction and NBA files; a test input has only its own.
        siteObj.removeValue(forKey: "auctions")
        siteObj.removeValue(forKey: "nba")
        site?(&siteObj)
        try! JSONSerialization.data(withJSONObject: siteObj, options: [.prettyPrinted, .sortedKeys]).write(to: dir.appendingPathComponent("site.json"))
        if copyDefaultCatalog {
            try! FileManager.default.copyItem(at: defaultInput.appendingPathComponent("catalog"), to: dir.appendingPathComponent("catalog"))
        }
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try! text.write(to: url, atomically: true, encoding: .utf8)
        }
        return dir
    }

    /// `body(i)` for every i in 0..<count on `workers` threads, results in index order: for tests whose time goes to
    /// waiting on outside processes or servers, or that can use the core the suite leaves idle.
    static func concurrently<T>(_ count: Int, workers: Int = 2, _ body: (Int) throws -> T) -> [Result<T, Error>] {
        var results = [Result<T, Error>?](repeating: nil, count: count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: min(workers, max(count, 1))) { w in
            for i in stride(from: w, to: count, by: workers) {
                let r = Result { try body(i) }
                lock.lock(); results[i] = r; lock.unlock()
            }
        }
        return results.map { $0! }
    }

    /// Relative path → bytes of every file of a tree.
    static func snapshot(_ root: URL) -> [String: Data] {
        var out: [String: Data] = [:]
        let fm = FileManager.default
        guard let e = fm.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return out }
        for case let url as URL in e where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            out[String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))] = try! Data(contentsOf: url)
        }
        return out
    }

    static let categoriesJSON = #"{"categories":[{"id":"tools","name":"Tools","parent":null},{"id":"tools/drills","name":"Drills","parent":"tools"}]}"#

    static func productLine(_ id: String, price: String = "19.99", name: String = "Cordless Drill", category: String = "tools/drills") -> String {
        #"{"id":"\#(id)","name":"\#(name)","description":"d","brand":"Acme","price":\#(price),"currency":"USD","inStock":true,"imageUrl":"https://x.example/i.jpg","rating":{"average":4.5,"count":10},"category":"\#(category)"}"#
    }

    /// The built `generator` executable (next to the test bundle).
    static var generatorBinary: URL { builtExecutable("generator") }

    /// An executable of the package as built with the tests (the CLI, a snippet).
    static func builtExecutable(_ name: String) -> URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return repoRoot.appendingPathComponent(".build/debug/\(name)")
    }

    /// Runs a program found on PATH (or an absolute path) in `cwd`; returns exit status and stderr+stdout. A `python3`
    /// command skips the test when there is no python3 (the oracles need only its standard library).
    static func run(_ command: [String], cwd: URL? = nil, env: [String: String] = [:]) throws -> (status: Int32, output: String) {
        if command.first == "python3" { try Tool.require(.python3) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = command
        if let cwd { p.currentDirectoryURL = cwd }
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `scripts/check-tree.py TREE`: python-jsonschema's verdict on a tree (schemas, hashes, file index), an outside
    /// judge beside our `generator validate`. Skips (or fails, under REQUIRE_TOOLS=1) without python-jsonschema.
    static func checkTree(_ tree: URL) throws -> (status: Int32, output: String) {
        try Tool.require(.python3, .jsonschema)
        return try run(["python3", Repository.script("check-tree.py").path, tree.path])
    }

    /// The two judges of a tree side by side, each a process of its own: python-jsonschema's `check-tree.py` and our
    /// `generator validate`.
    static func judges(_ tree: URL) throws -> (python: Result<(status: Int32, output: String), Error>, ours: Result<(status: Int32, output: String), Error>) {
        try Tool.require(.python3, .jsonschema)
        let both = concurrently(2) { k in k == 0 ? try checkTree(tree) : try runCLI(["validate", tree.path]) }
        return (both[0], both[1])
    }

    /// Runs the CLI (in `cwd` when given); returns exit status and stderr+stdout.
    static func runCLI(_ args: [String], cwd: URL? = nil, env: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = generatorBinary
        p.arguments = args
        if let cwd { p.currentDirectoryURL = cwd }
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A PNG decoder (zlib and the five row filters; 8-bit RGB or RGBA) that prints, as JSON, the picture's width,
    /// height, share of non-white pixels (`inked`) and, for each `name=#rrggbb` argument after the file, the number
    /// of pixels near that colour.
    static let pngScript = #"""
    import json, struct, sys, zlib
    data = open(sys.argv[1], "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    targets = {a.split("=")[0]: tuple(int(a.split("=")[1][k:k + 2], 16) for k in (1, 3, 5)) for a in sys.argv[2:]}
    counts = {name: 0 for name in targets}
    inked = 0
    for line in rows:
        for x in range(0, stride, channels):
            r, g, b = line[x], line[x + 1], line[x + 2]
            alpha = line[x + 3] if channels == 4 else 255
            if alpha > 0 and (r, g, b) != (255, 255, 255): inked += 1
            for name, t in targets.items():
                if abs(r - t[0]) + abs(g - t[1]) + abs(b - t[2]) <= 40: counts[name] += 1
    print(json.dumps(dict(width=width, height=height, inked=inked / (width * height), **counts)))
    """#
}
