import Foundation
import Crypto
import Indexer

/// What an output file was made from: a SHA-256 over every input record and setting its bytes depend on. Equal
/// fingerprints (with the same compiler, see `BuildCache`) mean equal bytes, so a rebuild reuses the file from the
/// previous tree without rendering, checking or hashing it again. (The Indexer's `FragmentKey`: fragments of large
/// files are named by fingerprints too.)
public typealias Fingerprint = FragmentKey

extension Fingerprint {
    /// The 32 bytes, big-endian.
    var bytes: [UInt8] {
        [a, b, c, d].flatMap { w in (0..<8).map { UInt8(truncatingIfNeeded: w >> (56 - 8 * $0)) } }
    }

    /// This fingerprint under another name (`salt`, itself a fingerprint of that name and its context): a bijection,
    /// so distinct fingerprints stay distinct under one salt, and a salt that changes changes every result. Four
    /// XORs instead of a hash per item (100,000 product pages, 200,000 index entries).
    func salted(_ salt: Fingerprint) -> Fingerprint { Fingerprint(a: a ^ salt.a, b: b ^ salt.b, c: c ^ salt.c, d: d ^ salt.d) }

    /// The fingerprint of a file's exact bytes (for inputs read whole, such as site.json).
    static func of(_ bytes: [UInt8]) -> Fingerprint { Fingerprint(digest: SHA256.hash(data: bytes)) }
}

/// Builds a fingerprint from typed parts. Every part is written with its length or a fixed width, so two different
/// sequences of parts can never give the same stream of bytes ("ab" + "c" differs from "a" + "bc").
struct FingerprintHasher {
    /// The parts' bytes, hashed once by `finish` (a product's fingerprint has 30 parts: one update each cost more
    /// than the hash).
    private var buffer: ContiguousArray<UInt8> = []

    /// `domain` names what is fingerprinted (an output kind, a unit): equal parts under two names give two fingerprints.
    init(_ domain: String) { buffer.reserveCapacity(256); add(domain) }

    mutating func add(_ text: String) {
        add(text.utf8.count)
        buffer.append(contentsOf: text.utf8)
    }

    /// Text given as its UTF-8 bytes: the same as adding it as a string.
    mutating func add(utf8 u: Span<UInt8>) {
        add(u.count)
        buffer.append(u)
    }

    /// The same for optional text (as adding an optional string).
    mutating func add(utf8 u: Span<UInt8>?) {
        if let u { add(1); add(utf8: u) } else { add(0) }
    }

    mutating func add(_ text: String?) {
        if let text { add(1); add(text) } else { add(0) }
    }

    mutating func add(_ n: Int) { buffer.appendLittleEndian(Int64(n)) }

    mutating func add(_ flag: Bool) { add(flag ? 1 : 0) }

    /// The exact bits of a double (0.1 and 0.1000000001 differ; so do 0 and −0, which print differently).
    mutating func add(_ x: Double?) {
        guard let x else { return add(0) }
        add(1); add(Int(truncatingIfNeeded: x.bitPattern))
    }

    /// Its four words, little-endian.
    mutating func add(_ f: Fingerprint) {
        buffer.appendLittleEndian(f.a); buffer.appendLittleEndian(f.b); buffer.appendLittleEndian(f.c); buffer.appendLittleEndian(f.d)
    }

    mutating func add(bytes: [UInt8]) {
        add(bytes.count)
        buffer.append(contentsOf: bytes)
    }

    func finish() -> Fingerprint { Fingerprint(digest: SHA256.hash(data: buffer[...])) }
}
