import Foundation
import Crypto

/// What the release and the writer need of a byte span and the standard library does not give: comparing two runs of
/// bytes, and hashing them with swift-crypto (which takes buffers). Done through the spans' pointers here only.
extension Span where Element == UInt8 {
    /// Whether both hold the same bytes. (memcmp: the release's byte diff compares runs up to a whole 90 MB search
    /// index; `Benchmarks/catalog/small-changes.sh`, one price changed: release stage 0.26 s.)
    func sameBytes(as other: Span<UInt8>) -> Bool {
        guard count == other.count else { return false }
        if isEmpty { return true }
        return withUnsafeBufferPointer { a in other.withUnsafeBufferPointer { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
    }

    /// Its SHA-256 digest, hashed where the bytes are (every file the build writes, a 90 MB index among them).
    var sha256: SHA256.Digest { withUnsafeBytes { SHA256.hash(data: $0) } }
}
