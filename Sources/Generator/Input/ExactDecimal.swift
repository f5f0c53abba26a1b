import Foundation
import Schemas

/// A decimal of any size, exactly: for sums and averages of money, which `Decimal` (38 digits) would round
/// (1e160 + 0.01) or turn into NaN. Sign, decimal digits and the number of them after the point.
struct ExactDecimal: Equatable, Comparable, CustomStringConvertible {
    /// Digits, least significant first: no zero at the top, none at the bottom of a fraction; zero is [].
    private(set) var digits: [UInt8] = []
    private(set) var scale = 0
    private(set) var negative = false

    static let zero = ExactDecimal()

    init() {}

    init(_ v: Int) {
        var m = v.magnitude
        while m > 0 { digits.append(UInt8(m % 10)); m /= 10 }
        negative = v < 0
    }

    /// `units` × 10^-`scale`: 1299 at scale 2 is 12.99.
    init(units: Int, scale: Int) {
        self.init(units)
        self.scale = scale
        normalise()
    }

    init(_ n: Money.Normal) {
        digits = n.digits.reversed().map { $0 - 0x30 }
        if n.exponent >= 0 { digits.insert(contentsOf: [UInt8](repeating: 0, count: n.exponent), at: 0) } else { scale = -n.exponent }
        negative = n.negative
        normalise()
    }

    /// From number text (a JSON literal or Decimal's plain description); nil for anything else (NaN).
    init?(literal: String) {
        guard let n = Money.Normal(literal: literal) else { return nil }
        self.init(n)
    }

    /// Exactly the Decimal's value; nil for NaN.
    init?(exactly d: Decimal) {
        if d.isNaN { return nil }
        self.init(literal: d.description)
    }

    init(_ n: JSONNumber) {
        // JSON numbers are literals, an Int or a finite double's shortest text: all parse. A non-finite double has no
        // exact value; it is kept as zero here and refused by the writer wherever it is written.
        self = ExactDecimal(literal: n.description) ?? .zero
    }

    private init(negative: Bool, digits: [UInt8], scale: Int) {
        self.negative = negative; self.digits = digits; self.scale = scale
        normalise()
    }

    private mutating func normalise() {
        while digits.last == 0 { digits.removeLast() }
        var drop = 0
        while drop < scale, drop < digits.count, digits[drop] == 0 { drop += 1 }
        if drop > 0 { digits.removeFirst(drop); scale -= drop }
        if digits.isEmpty { scale = 0; negative = false }
    }

    var isZero: Bool { digits.isEmpty }

    /// The digits at `s` decimal places (`s` ≥ scale): zeros appended below.
    private func magnitude(at s: Int) -> [UInt8] { s == scale || digits.isEmpty ? digits : [UInt8](repeating: 0, count: s - scale) + digits }

    private static func compareMagnitudes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        if x.count != y.count { return x.count < y.count ? -1 : 1 }
        for i in stride(from: x.count - 1, through: 0, by: -1) where x[i] != y[i] { return x[i] < y[i] ? -1 : 1 }
        return 0
    }

    static func + (a: ExactDecimal, b: ExactDecimal) -> ExactDecimal {
        if a.isZero { return b }
        if b.isZero { return a }
        let s = max(a.scale, b.scale)
        let x = a.magnitude(at: s), y = b.magnitude(at: s)
        if a.negative == b.negative {
            var out = [UInt8](), carry: UInt8 = 0
            out.reserveCapacity(max(x.count, y.count) + 1)
            for i in 0..<max(x.count, y.count) {
                let t = (i < x.count ? x[i] : 0) + (i < y.count ? y[i] : 0) + carry
                out.append(t % 10); carry = t / 10
            }
            if carry > 0 { out.append(carry) }
            return ExactDecimal(negative: a.negative, digits: out, scale: s)
        }
        let c = compareMagnitudes(x, y)
        if c == 0 { return .zero }
        let (big, small, negative) = c > 0 ? (x, y, a.negative) : (y, x, b.negative)
        var out = [UInt8](), borrow = 0
        out.reserveCapacity(big.count)
        for i in 0..<big.count {
            var t = Int(big[i]) - (i < small.count ? Int(small[i]) : 0) - borrow
            borrow = t < 0 ? 1 : 0
            if t < 0 { t += 10 }
            out.append(UInt8(t))
        }
        return ExactDecimal(negative: negative, digits: out, scale: s)
    }

    static func += (a: inout ExactDecimal, b: ExactDecimal) { a = a + b }

    static prefix func - (a: ExactDecimal) -> ExactDecimal {
        var r = a
        if !r.isZero { r.negative.toggle() }
        return r
    }

    static func < (a: ExactDecimal, b: ExactDecimal) -> Bool {
        if a.negative != b.negative { return a.negative }
        let s = max(a.scale, b.scale)
        let c = compareMagnitudes(a.magnitude(at: s), b.magnitude(at: s))
        return a.negative ? c > 0 : c < 0
    }

    enum Rounding { case halfEven, halfUp }

    /// `self / divisor` rounded to `places` decimal places: half to even (`.halfEven`, the default for averages) or
    /// half away from zero (`.halfUp`). Exact: the rounding looks at the whole remainder, not at a rounded quotient.
    func divided(by divisor: Int, places: Int, rounding: Rounding = .halfEven) -> ExactDecimal {
        precondition(divisor > 0 && divisor <= Int.max / 10 && places >= 0)
        // Long division of the digits (extended with zeros down to `places` when needed), most significant first.
        let s = max(scale, places)
        var quotient = [UInt8](repeating: 0, count: digits.count + (s - scale))
        var r = 0
        let m = magnitude(at: s)
        for i in stride(from: m.count - 1, through: 0, by: -1) {
            r = r * 10 + Int(m[i])
            quotient[i] = UInt8(r / divisor); r %= divisor
        }
        // Drop the digits below `places`; the dropped digits and the remainder tell below, at or above one half.
        let drop = s - places
        var order: Int   // −1 below half, 0 exactly half, 1 above
        if drop == 0 {
            order = r == 0 ? -1 : (r < divisor - r ? -1 : (r == divisor - r ? 0 : 1))
        } else {
            let top = drop - 1 < quotient.count ? quotient[drop - 1] : 0
            let restNonZero = r != 0 || quotient.prefix(min(drop - 1, quotient.count)).contains { $0 != 0 }
            order = top > 5 ? 1 : (top < 5 ? -1 : (restNonZero ? 1 : 0))
        }
        var kept = Array(quotient.dropFirst(min(drop, quotient.count)))
        let last = kept.first ?? 0
        if order > 0 || (order == 0 && (rounding == .halfUp || last % 2 == 1)) {
            var i = 0
            while true {
                if i == kept.count { kept.append(1); break }
                if kept[i] == 9 { kept[i] = 0; i += 1 } else { kept[i] += 1; break }
            }
        }
        return ExactDecimal(negative: negative, digits: kept, scale: places)
    }

    /// Plain decimal text without an exponent or trailing fraction zeros: `1234.5`, `-0.01`, `0`.
    var description: String {
        if digits.isEmpty { return "0" }
        var s = negative ? "-" : ""
        let whole = digits.count > scale ? digits[scale...].reversed().map { $0 + 0x30 } : [0x30]
        s += String(decoding: whole, as: UTF8.self)
        if scale > 0 {
            let frac = (0..<scale).reversed().map { $0 < digits.count ? digits[$0] + 0x30 : 0x30 }
            s += "." + String(decoding: frac, as: UTF8.self)
        }
        return s
    }

    /// As a JSON number: an integer when it fits, else its exact decimal text (the bytes `JSONNumber(Decimal)` gives).
    var json: JSONNumber { JSONNumber(literal: description) }

    /// The sum of JSON numbers, exactly.
    static func sum(_ numbers: some Sequence<JSONNumber>) -> ExactDecimal {
        numbers.reduce(ExactDecimal.zero) { $0 + ExactDecimal($1) }
    }
}
