import Foundation

/// Math that gives the same bits on every platform: only IEEE-754 +, −, ×, ÷ and sqrt (which are correctly
/// rounded everywhere), never the C library's log/exp/erf, whose last bits differ between libm implementations.
/// Used by the Monte Carlo sampler and the exact probabilities, so snapshots are byte-identical on any machine.
enum DetMath {
    static let ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10

    /// Natural log for x > 0: x = m·2^e with m in [√½, √2), log m = 2·atanh((m−1)/(m+1)) by its series.
    static func log(_ x: Double) -> Double {
        precondition(x > 0 && x.isFinite)
        var e = Int(x.exponent)
        var m = x.significand           // [1, 2), exact
        if m > 1.4142135623730951 { m /= 2; e += 1 }
        let s = (m - 1) / (m + 1), s2 = s * s
        // |s| ≤ 0.1716: terms to s^29 leave an error below 1e-22.
        var term = s, sum = 0.0
        var k = 1.0
        for _ in 0..<15 { sum += term / k; term *= s2; k += 2 }
        let de = Double(e)
        return de * ln2Hi + (2 * sum + de * ln2Lo)
    }

    /// e^x: x = k·ln2 + r with |r| ≤ ln2/2, e^r by its Taylor series, times 2^k (exact).
    static func exp(_ x: Double) -> Double {
        if x > 709 { return .infinity }
        if x < -745 { return 0 }
        let k = (x / 0.6931471805599453).rounded()
        let r = (x - k * ln2Hi) - k * ln2Lo
        var term = 1.0, sum = 1.0
        for i in 1...20 {
            term *= r / Double(i)
            // sum ≥ e^(−ln2/2) > ½ and the terms only shrink: once a term is below a quarter ulp of the sum, it and
            // every later one leave it unchanged, so stopping here gives the same bits as all 20 terms.
            if abs(term) < sum * 0x1p-55 { break }
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }

    /// Complementary error function: power series of erf below 2, continued fraction above (relative error < 1e-12).
    static func erfc(_ x: Double) -> Double {
        if x < 0 { return 2 - erfc(-x) }
        if x < 2 {
            // erf(x) = 2/√π · Σ (−1)^n x^(2n+1) / (n! (2n+1))
            var sum = 0.0, term = x
            var n = 0.0
            while n < 200 {
                let add = term / (2 * n + 1)
                sum += add
                if abs(add) < 1e-17 * abs(sum) { break }
                n += 1
                term *= -x * x / n
            }
            return 1 - 1.1283791670955126 * sum
        }
        // erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), evaluated from the tail.
        var f = x
        for k in stride(from: 120, through: 1, by: -1) { f = x + (Double(k) / 2) / f }
        return exp(-x * x) / 1.7724538509055160 / f
    }

    /// P(N(μ, σ²) > c).
    static func upperTail(_ c: Double, mean: Double, sd: Double) -> Double {
        0.5 * erfc((c - mean) / (sd * 1.4142135623730951))
    }
}
