import Foundation

/// Platt scaling of the model's over probability, fitted walk-forward: a game is calibrated only with games dated
/// before it. On q, the model's probability of over given no push, the calibrated probability is σ(a·logit(q) + b).
/// (a, b) maximise the log likelihood of the earlier outcomes minus λ/2·(a² + b²): a Gaussian prior centred on the
/// market (a = b = 0 says ½ at the line), so with few games the fit stays near ½ and it follows the model only as
/// far as earlier games show the model's probabilities carry information.
struct Calibration: Equatable {
    var a = 0.0, b = 0.0
    /// Earlier games it was fitted on.
    var games = 0

    /// logit(q), with q kept within [1e-6, 1 − 1e-6] so a certain-looking raw probability stays finite.
    static func logit(_ q: Double) -> Double {
        let c = min(max(q, 1e-6), 1 - 1e-6)
        return DetMath.log(c / (1 - c))
    }

    static func sigmoid(_ z: Double) -> Double { 1 / (1 + DetMath.exp(-z)) }

    /// Calibrated probability of over given no push.
    func apply(_ q: Double) -> Double { Self.sigmoid(a * Self.logit(q) + b) }

    /// Calibrated (over, under) from raw ones that may leave room for a push: the conditional over probability is
    /// calibrated, the push probability kept.
    func apply(over: Double, under: Double) -> (over: Double, under: Double) {
        let decided = over + under
        guard decided > 0 else { return (over, under) }
        let q = apply(over / decided)
        return (q * decided, (1 - q) * decided)
    }

    /// The penalised maximum-likelihood fit by Newton's method from `start` (the objective is strictly concave,
    /// so the optimum is unique and the start only saves iterations).
    static func fit(x: [Double], y: [Double], prior λ: Double, from start: Calibration = Calibration()) -> Calibration {
        var a = start.a, b = start.b
        for _ in 0..<100 {
            var ga = λ * a, gb = λ * b, haa = λ, hab = 0.0, hbb = λ
            for i in x.indices {
                let p = sigmoid(a * x[i] + b), w = p * (1 - p), r = p - y[i]
                ga += r * x[i]; gb += r
                haa += w * x[i] * x[i]; hab += w * x[i]; hbb += w
            }
            let det = haa * hbb - hab * hab
            let da = (hbb * ga - hab * gb) / det, db = (haa * gb - hab * ga) / det
            a -= da; b -= db
            // Newton converges quadratically: a step below 1e-7 leaves an error far below the published 4 places.
            if abs(da) < 1e-7 && abs(db) < 1e-7 { break }
        }
        return Calibration(a: a, b: b, games: x.count)
    }

    /// One fit per date of `dates`, each on the decided games of `history` dated strictly before it. `history` is
    /// in date order; fits are warm-started from the previous date's.
    static func walkForward(dates: [String], history: [Forecast], prior: Double) -> [String: Calibration] {
        var out: [String: Calibration] = [:]
        var x: [Double] = [], y: [Double] = []
        var next = 0, last = Calibration()
        for date in Set(dates).sorted() {
            var added = false
            while next < history.count, history[next].game.date < date {
                let f = history[next]
                next += 1
                guard let over = f.outcome else { continue }   // a push says nothing about over or under
                x.append(logit(f.conditionalOver)); y.append(over ? 1 : 0)
                added = true
            }
            if added { last = fit(x: x, y: y, prior: prior, from: last) }
            out[date] = last
        }
        return out
    }
}
