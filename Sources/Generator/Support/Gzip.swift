import CZlib

/// gzip compression (level 9 by default, as static hosts such as GitHub Pages serve JSON): the sizes in reports and
/// benchmarks (what a client actually downloads), and the bodies `generator serve` sends.
public enum Gzip {
    public static func compressedSize(_ bytes: [UInt8]) -> Int {
        compress(bytes)?.count ?? bytes.count
    }

    /// The gzip member (RFC 1952) holding `bytes`; nil only when zlib cannot start.
    public static func compress(_ bytes: [UInt8], level: Int32 = 9) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip wrapper, as served over HTTP.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(bytes.count)))
        var out = [UInt8](repeating: 0, count: bound)
        var input = bytes
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = UInt32(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = UInt32(outBuf.count)
                _ = deflate(&stream, Z_FINISH)
                return outBuf.count - Int(stream.avail_out)
            }
        }
        out.removeLast(out.count - produced)
        return out
    }
}
