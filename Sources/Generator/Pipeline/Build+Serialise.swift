import Foundation
import Schemas
import Indexer

extension Build {
    struct Rendered {
        let path: String; let size: Int; let sha256: String; let schema: String?
        /// Kept from the output's tree by its fingerprint, not rendered (`keptFragments`: a file written from fragments,
        /// which the cache describes).
        var reused = false, keptFragments = false
        /// A file written from fragments: its `Checksum` (see `BuildCache.Entry.checksum`).
        var checksum: [UInt8] = []
        /// Where its fragments lie (a file written from fragments), and how many were copied from the earlier version.
        var fragments: [(key: Fingerprint, range: Range<Int>)] = []
        var order: [Int32] = []
        var copiedFragments = 0
        /// Its fragments copied from the earlier version: where each was there and is here.
        var same: [(old: Range<Int>, new: Range<Int>)] = []
        /// Objects whose members a splice placed: where they are there and here (see `FragmentReuse.objects`).
        var objects: [(old: ObjectLayout, new: ObjectLayout)] = []
    }

    /// What became of one file: staged (or kept from the output's tree), refused by its schema, or not writable.
    enum Outcome { case rendered(Rendered), invalid(BuildError), failed(String) }

    /// Every file checked, serialised and staged, in parallel, heaviest first: a search index takes seconds on its own
    /// and must not start last. Each file's content is let go once it is staged. `earlier`: the output's current version
    /// of a file the cache describes (for files written from fragments).
    static func serialise(_ files: inout [OutputFile], checkers: [OutputValidation], into staged: StagedTree,
                          cache: [String: BuildCache.Entry] = [:], earlier: (String, BuildCache.Entry) -> EarlierFile? = { _, _ in nil },
                          ticker: ProgressTicker? = nil) throws -> [Rendered] {
        let threads = checkers.count
        var seen = Set<String>(minimumCapacity: files.count)
        for i in files.indices where !seen.insert(files[i].path).inserted { throw BuildError(file: "(output)", "two outputs claim the path \(files[i].path)") }
        let weights = files.indices.map { weight(files[$0].content) }
        let order = files.indices.sorted { (weights[$0], $1) > (weights[$1], $0) }
        // Each worker notes the files it keeps on its own (see `StagedTree.Keeper`), handed to the tree at the end.
        let keepers = (0..<max(threads, 1)).map { _ in StagedTree.Keeper() }
        defer { staged.adopt(keepers) }
        // The heaviest files one at a time, then the light ones (pages, mostly kept) a few at a time.
        let outcomes = Parallel.map(&files, order: order, threads: threads, singles: threads * 64, batch: 32) { worker, _, file -> Outcome in
            let started = TraceClock.isOn ? Date() : nil
            defer {
                file.dropContent(); ticker?.advance()
                if let started, Date().timeIntervalSince(started) > 0.05 {
                    FileHandle.standardError.write(Data("  [trace] file \(file.path): \(String(format: "%.3f", Date().timeIntervalSince(started))) s\n".utf8))
                }
            }
            let writer = FileWriter(file: file, checker: checkers[worker], staged: staged)
            // Made from the same inputs as the output's file: kept as it is (checked when it was made). (Its fields
            // read in place: 100,000 kept files are not copied whole.)
            if let fp = file.fingerprint, let c = cache[file.path], c.fingerprint == fp,
               staged.keep(file.path, sha256: c.sha256, size: c.size, in: keepers[worker]) {
                return .rendered(Rendered(path: file.path, size: c.size, sha256: c.sha256, schema: writer.schema, reused: true,
                                          keptFragments: !c.fragments.isEmpty))
            }
            do { return try writer.write(earlier: { cache[file.path].flatMap { c in c.fragments.isEmpty ? nil : earlier(file.path, c).map { (c, $0) } } }) }
            catch { return .failed("\(file.path): \(error)") }
        }
        var violations: [BuildError] = [], failure: String?
        for case .invalid(let e) in outcomes where violations.count < 20 { violations.append(e) }
        if !violations.isEmpty { throw BuildErrors(violations) }
        for case .failed(let e) in outcomes where failure == nil { failure = e }
        if let failure { throw BuildError(file: "(output)", failure) }
        return outcomes.map { if case .rendered(let r) = $0 { return r }; fatalError("every file has an outcome") }
    }

    /// One file checked against its kind's schema and staged, hashed and written straight from the writer's buffer:
    /// nothing is copied or kept.
    struct FileWriter {
        let file: OutputFile
        let checker: OutputValidation
        let staged: StagedTree

        /// The schema the file index names for it (a schema file names the meta-schema).
        var schema: String? { file.kind.map { $0.name == SchemaPublisher.metaKind.name ? SchemaPublisher.metaSchemaURI : $0.schemaPath } }

        /// `earlier`: for a file written from fragments, the output's version the cache describes, when it still has it
        /// (asked only then: it opens and checks that file).
        func write(earlier: () -> (BuildCache.Entry, EarlierFile)?) throws -> Outcome {
            switch file.content {
            case .streamed(_, let write): return try streamed(write)
            case .fragmented(_, let write): return try fragmented(write, earlier: earlier())
            case .bytes(let b):
                let all = b[...]   // (`Array.span` needs macOS 26)
                return try .rendered(stage(all.span))
            default:
                guard let j = try file.content.json() else { return .failed("\(file.path): no content") }
                if let k = file.kind, let e = checker.check(j, path: file.path, kind: k) { return .invalid(e) }
                return try .rendered(JSONWriter().withSpan(j, stage))
            }
        }

        private func stage(_ bytes: Span<UInt8>) throws -> Rendered {
            let sha = Build.sha256Hex(bytes)
            try staged.put(file.path, bytes: bytes, sha256: sha)
            return Rendered(path: file.path, size: bytes.count, sha256: sha, schema: schema)
        }

        /// Written as text straight from typed values, then checked from the text.
        private func streamed(_ write: (JSONStream) throws -> Void) throws -> Outcome {
            let text = JSONStream(capacity: 1024)
            try write(text)
            return try text.withSpan { bytes -> Outcome in
                if let k = file.kind, let e = checker.check(text: bytes, path: file.path, kind: k) { return .invalid(e) }
                return .rendered(try stage(bytes))
            }
        }

        /// Written from fragments, copying those of the earlier version that are still the same (see `FragmentReuse`):
        /// the parts it rendered are checked, or the whole text when it copied nothing.
        private func fragmented(_ write: (JSONStream, FragmentReuse) throws -> [FragmentCheck], earlier: (BuildCache.Entry, EarlierFile)?) throws -> Outcome {
            var reuse = FragmentReuse()
            var size = 1024
            if let (c, old) = earlier {
                reuse = FragmentReuse(size: old.size, ranges: c.fragments, order: c.order, read: { old.read($0, $1, into: &$2) })
                size = old.size + 65536   // (about the new size: a 90 MB buffer is not grown by copies)
            }
            let text = JSONStream(capacity: size)
            let checks = try write(text, reuse)
            return try text.withSpan { bytes -> Outcome in
                if let k = file.kind {
                    // Copied parts were checked when they were made (by this very executable: see BuildCache).
                    let found = reuse.copied == 0 ? checker.check(text: bytes, path: file.path, kind: k)
                        : checks.lazy.compactMap { c in checker.check(text: c.bytes, path: file.path, kind: k, fragment: c.fragment) }.first
                    if let e = found { return .invalid(e) }
                }
                var r = try stage(bytes)
                r.fragments = reuse.written
                r.order = reuse.order
                r.checksum = Checksum.of(bytes)
                r.copiedFragments = reuse.copied
                r.same = reuse.same
                r.objects = reuse.objects
                return .rendered(r)
            }
        }
    }

    /// A cheap estimate of a file's work: the number of values in its first two levels.
    static func weight(_ content: OutputFile.Content) -> Int {
        func size(_ v: JSON) -> Int {
            switch v {
            case .array(let a): return a.count
            case .object(let o): return o.count
            default: return 0
            }
        }
        switch content {
        case .bytes(let b): return b.count / 64
        case .deferred(let weight, _), .streamed(let weight, _), .fragmented(let weight, _): return weight
        case .json(.array(let a)): return a.reduce(a.count) { $0 + size($1) }
        case .json(.object(let o)): return o.members.reduce(o.count) { $0 + size($1.value) }
        case .json: return 1
        }
    }

    /// Refuses a later batch of files that claims a path the tree has staged already (the staging folder would keep
    /// one of them). Asked of the staged tree, which knows its paths: no second table of 100,000 paths for a few.
    static func requireDistinctPaths(_ batch: [OutputFile], staged: StagedTree) throws {
        if let dup = batch.first(where: { staged.has($0.path) }) {
            throw BuildError(file: "(output)", "two outputs claim the path \(dup.path)")
        }
    }
}
