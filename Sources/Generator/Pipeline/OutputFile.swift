import Foundation
import Schemas
import Indexer

/// A file of the tree, before it is serialised.
public struct OutputFile: Sendable {
    public enum Content: Sendable {
        case json(JSON)
        case bytes([UInt8])
        /// Rendered when the file is validated and serialised, then released at once: large kinds (100,000 product
        /// pages, a 90 MB search index) never sit in memory all together as JSON values. `weight` estimates the
        /// work (roughly the number of values), so the heaviest files start first.
        case deferred(weight: Int, render: @Sendable () throws -> JSON)
        /// Written as text straight from typed values when the file is serialised (no `JSON` value at all), then
        /// checked against its schema from the bytes: for the kinds with 100,000 files or 100 MB of text.
        case streamed(weight: Int, write: @Sendable (JSONStream) throws -> Void)
        /// Written like `streamed`, from fragments the next build may copy instead of rendering (see `FragmentReuse`):
        /// `write` gets the earlier version's fragments (none on a first build), records the new ones, and returns
        /// what must be checked when it copied any (the parts it rendered, each against its kind's fragment schema, or
        /// the whole kind's schema when the check names none). When it copied nothing, the whole text is checked.
        case fragmented(weight: Int, write: @Sendable (JSONStream, FragmentReuse) throws -> [FragmentCheck])

        /// The JSON value (rendering deferred content now; streamed content is written and parsed back); nil for raw bytes.
        func json() throws -> JSON? {
            switch self {
            case .json(let j): return j
            case .deferred(_, let render): return try render()
            case .streamed(_, let write):
                let s = JSONStream()
                try write(s)
                return try s.withSpan { try JSONReader.parse($0) }
            case .fragmented(_, let write):
                let s = JSONStream()
                _ = try write(s, FragmentReuse())
                return try s.withSpan { try JSONReader.parse($0) }
            case .bytes: return nil
            }
        }
    }
    public let path: String
    public private(set) var content: Content
    /// The kind it belongs to (its schema); nil only for non-JSON files, which say what they are in `asset`.
    public let kind: OutputKind?
    /// What a non-JSON file is (nil for JSON files).
    public private(set) var asset: AssetKind? = nil
    /// What the file is made from (see `Fingerprint`), when its renderer can tell without rendering it: a rebuild
    /// whose cache holds the same fingerprint for this path keeps the previous tree's file and renders nothing.
    /// Nil: the file is always rendered (and still kept when its bytes come out the same).
    public var fingerprint: Fingerprint? = nil
    /// True when the file carries the build time (so it changes with SOURCE_DATE_EPOCH alone) or only restates
    /// the other files (openapi.json). Release logic ignores such files when deciding whether content changed.
    public let stampsBuildTime: Bool
    /// For a file that stamps the build time but also carries content of its own (app-config.json's versions and
    /// features): a digest of that content without the time, so a change to it still makes a release.
    public var contentKey: String? = nil

    public init(path: String, json: JSON, kind: OutputKind, stampsBuildTime: Bool = false) {
        self.path = path; self.content = .json(json); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }
    /// A non-JSON file (checked by no schema; described in openapi.json by its asset kind). JSON files are never
    /// given as bytes: their schema could not check them.
    public init(path: String, bytes: [UInt8], asset: AssetKind) {
        self.path = path; self.content = .bytes(bytes); self.kind = nil; self.stampsBuildTime = false; self.asset = asset
    }
    /// A JSON file rendered only when it is validated and serialised (see `Content.deferred`).
    public init(path: String, kind: OutputKind, stampsBuildTime: Bool = false, weight: Int, render: @escaping @Sendable () throws -> JSON) {
        self.path = path; self.content = .deferred(weight: weight, render: render); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }
    /// A JSON file written as text when it is validated and serialised (see `Content.streamed`).
    public init(path: String, kind: OutputKind, stampsBuildTime: Bool = false, weight: Int, write: @escaping @Sendable (JSONStream) throws -> Void) {
        self.path = path; self.content = .streamed(weight: weight, write: write); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }
    init(path: String, content: Content, kind: OutputKind?, stampsBuildTime: Bool) {
        self.path = path; self.content = content; self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }

    /// A JSON file written from fragments (see `Content.fragmented`).
    public init(path: String, kind: OutputKind, stampsBuildTime: Bool = false, weight: Int,
                fragments write: @escaping @Sendable (JSONStream, FragmentReuse) throws -> [FragmentCheck]) {
        self.path = path; self.content = .fragmented(weight: weight, write: write); self.kind = kind; self.stampsBuildTime = stampsBuildTime
    }

    /// The same file with deferred content rendered now (to time a unit on its own).
    func materialised() throws -> OutputFile {
        switch content {
        case .deferred, .fragmented: break
        case .streamed(_, let write):
            let s = JSONStream()
            try write(s)
            var f = OutputFile(path: path, content: .streamed(weight: 1, write: { [bytes = s.bytes] in $0.raw(bytes) }), kind: kind, stampsBuildTime: stampsBuildTime)
            f.contentKey = contentKey
            f.fingerprint = fingerprint
            return f
        default: return self
        }
        guard let json = try content.json() else { return self }
        var f = OutputFile(path: path, content: .json(json), kind: kind, stampsBuildTime: stampsBuildTime)
        f.contentKey = contentKey
        f.fingerprint = fingerprint
        return f
    }

    /// Lets go of its content (once serialised, only its path, kind and flags are needed), in place: the rest is not
    /// copied, once per file of 100,000.
    mutating func dropContent() { content = .bytes([]) }
}
