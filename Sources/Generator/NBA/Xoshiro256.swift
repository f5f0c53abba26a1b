import Foundation

/// xoshiro256** (Blackman & Vigna), seeded by SplitMix64: a fast generator with identical output everywhere.
struct Xoshiro256 {
    var s: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var x = seed
        func splitmix() -> UInt64 {
            x &+= 0x9E3779B97F4A7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return z ^ (z >> 31)
        }
        s = (splitmix(), splitmix(), splitmix(), splitmix())
    }

    @inline(__always) static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    mutating func next() -> UInt64 {
        let result = Self.rotl(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0; s.3 ^= s.1; s.1 ^= s.2; s.0 ^= s.3
        s.2 ^= t
        s.3 = Self.rotl(s.3, 45)
        return result
    }

    /// Uniform in [0, 1) with 53 random bits.
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A pair of independent standard normals: Marsaglia's polar method (only +, −, ×, ÷, sqrt and DetMath.log).
    mutating func normalPair() -> (Double, Double) {
        while true {
            let u = 2 * uniform() - 1, v = 2 * uniform() - 1
            let s = u * u + v * v
            if s >= 1 || s == 0 { continue }
            let f = (-2 * DetMath.log(s) / s).squareRoot()
            return (u * f, v * f)
        }
    }
}
