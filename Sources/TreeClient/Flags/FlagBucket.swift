import Crypto

/// Which of 10,000 buckets a unit falls in for a flag, the same in every client: the first four bytes of SHA-256 of
/// the UTF-8 text `"<flag key>:<unit id>"`, read as a big-endian unsigned integer, modulo 10,000. A rollout of
/// `percent` takes the units whose bucket is below `percent × 100`, so raising a percent only ever adds units, and
/// each flag (its key is in the hashed text) splits the units independently of every other flag.
public enum FlagBucket {
    public static let count = 10_000

    public static func bucket(flag: String, unit: String) -> Int {
        let digest = SHA256.hash(data: Array("\(flag):\(unit)".utf8))
        var first: UInt32 = 0
        for byte in digest.prefix(4) { first = first << 8 | UInt32(byte) }
        return Int(first % UInt32(count))
    }

    /// The buckets a percent takes: `percent × 100`, rounded (percents have at most two decimals, so this is exact
    /// in every client's floating point).
    public static func threshold(percent: Double) -> Int { Int((percent * 100).rounded()) }

    public static func isIn(flag: String, unit: String, percent: Double) -> Bool {
        bucket(flag: flag, unit: unit) < threshold(percent: percent)
    }
}
