import Foundation
import Crypto

extension Build {
    /// The SHA-256 of `bytes` in lowercase hex (an array, a slice, `Data`, a buffer: any `DataProtocol`).
    static func sha256Hex<D: DataProtocol>(_ bytes: D) -> String { hex(SHA256.hash(data: bytes)) }

    /// The same of bytes lent as a span (a writer's buffer, a mapped file).
    static func sha256Hex(_ bytes: Span<UInt8>) -> String { hex(bytes.sha256) }

    private static func hex(_ digest: SHA256.Digest) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8](); out.reserveCapacity(64)
        for b in digest { out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// What each file contributes to the content digest, by position: its hash, or for a file stamped with the build
    /// time its content key (its content without the stamp); openapi.json has neither and contributes nothing.
    static func contentEntries(_ files: [OutputFile], _ rendered: [Rendered]) -> [(String, String)?] {
        // (By position, fields read in place: zipping copied each file's description and record, 100,000 of each.)
        files.indices.map { i in files[i].stampsBuildTime ? files[i].contentKey.map { (rendered[i].path, $0) } : (rendered[i].path, rendered[i].sha256) }
    }

    /// The digest of the tree's content: every file's entry in path order.
    static func contentDigest(_ files: [OutputFile], _ rendered: [Rendered]) -> String {
        contentDigest(contentEntries(files, rendered), inPathOrder: pathOrder(rendered).order)
    }

    /// Positions of `rendered` in path order (paths are distinct): `kept` (the build before's, from the build cache)
    /// when it still is (`taken`), else sorted (see `KeptOrder`).
    static func pathOrder(_ rendered: [Rendered], kept: [Int32]? = nil) -> (order: [Int], taken: Bool) {
        KeptOrder.order(kept, count: rendered.count) { rendered[$0].path < rendered[$1].path }
    }

    /// The name the files' order by path is kept under in the build cache.
    static let pathOrderName = "build.pathOrder"

    /// The same from the entries (`contentEntries`) and their order by path.
    static func contentDigest(_ entries: [(String, String)?], inPathOrder order: [Int]) -> String {
        // One buffer, one hash update (the same bytes as hashing entry by entry).
        var buffer: [UInt8] = []
        buffer.reserveCapacity(entries.count * 100)
        for i in order {
            guard let (path, content) = entries[i] else { continue }
            buffer += path.utf8; buffer.append(0); buffer += content.utf8; buffer.append(0x0A)
        }
        return sha256Hex(buffer)
    }
}
