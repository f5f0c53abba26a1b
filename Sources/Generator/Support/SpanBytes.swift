import Foundation
import Crypto

/// What the build needs of a byte span and the standard library does not give: hashing it with swift-crypto (which
/// takes buffers). Done through the span's pointer here only.
extension Span where Element == UInt8 {
    /// Its SHA-256 digest, hashed where the bytes are (every file the build writes, a 90 MB index among them).
    var sha256: SHA256.Digest { withUnsafeBytes { SHA256.hash(data: $0) } }
}
