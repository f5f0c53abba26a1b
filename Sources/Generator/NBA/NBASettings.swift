import Foundation
import Schemas

/// `nba` in site.json; every key is optional.
struct NBASettings {
    var folder = "nba"
    /// Whether site.json names the folder (messages then name the field).
    var folderNamed = false
    /// Seasons to compile (default: every season in games.csv).
    var seasons: [String]?
    /// Snapshot dates (default: every date with at least one game that has a closing line).
    var dates: [String]?
    var simulations = 10_000
    var rho = 0.2
    var overtimeProbability = 0.06
    var overtimeMean = 12.0
    var overtimeSD = 3.0
    var scoreFloor = 70.0
    var strongEdge = 8.0
    var leanEdge = 3.0
    var kellyFraction = 0.25
    var kellyCap = 0.05
    var backtest = true
    /// Which probabilities edge, EV, Kelly and the verdict use: the walk-forward calibrated ones (default) or the
    /// model's raw ones.
    var useCalibrated = true
    /// Strength λ of the calibration's prior: a Gaussian penalty λ/2·(a² + b²) that pulls the fit toward the market
    /// (probability ½ at the line) until earlier games show that the model's probabilities carry information.
    var calibrationPrior = 10.0
    var gridRho: [Double] = [0.0, 0.2, 0.3, 0.5]
    var gridOvertimePoints: [Double] = [12, 22]

    static func read(_ site: SiteConfig, file: String) throws -> NBASettings {
        var s = NBASettings()
        var o = try site.section("nba", file: file)
        s.folderNamed = o.has("folder")
        s.folder = try o.string("folder", default: "nba")
        if o.has("seasons") { s.seasons = try o.stringArray("seasons") }
        if o.has("dates") { s.dates = try o.stringArray("dates") }
        s.simulations = try o.int("simulations", default: 10_000, min: 100, max: 1_000_000)
        s.rho = try o.double("rho", default: 0.2)
        guard (-0.99...0.99).contains(s.rho) else { throw BuildError(file: file, field: "nba.rho", "must be within −0.99…0.99") }
        s.overtimeProbability = try o.double("overtimeProbability", default: 0.06)
        s.overtimeMean = try o.double("overtimePoints", default: 12)
        s.overtimeSD = try o.double("overtimeSD", default: 3)
        s.scoreFloor = try o.double("scoreFloor", default: 70)
        s.strongEdge = try o.double("strongEdge", default: 8)
        s.leanEdge = try o.double("leanEdge", default: 3)
        s.kellyFraction = try o.double("kellyFraction", default: 0.25)
        s.kellyCap = try o.double("kellyCap", default: 0.05)
        s.backtest = try o.bool("backtest", default: true)
        let probabilities = try o.string("probabilities", default: "calibrated")
        guard ["calibrated", "raw"].contains(probabilities) else {
            throw BuildError(file: file, field: "nba.probabilities", "must be \"calibrated\" or \"raw\", found \(Excerpt.quote(probabilities))")
        }
        s.useCalibrated = probabilities == "calibrated"
        s.calibrationPrior = try o.double("calibrationPrior", default: 10)
        guard s.calibrationPrior > 0, s.calibrationPrior <= 1_000_000 else {
            throw BuildError(file: file, field: "nba.calibrationPrior", "must be above 0 and at most 1000000")
        }
        if o.has("backtestRho") { s.gridRho = try o.stringArray("backtestRho").compactMap(Double.init) }
        try o.finish()
        return s
    }

    /// A short text of every model setting, part of each game's random seed.
    var modelKey: String { "n=\(simulations);rho=\(rho);ot=\(overtimeProbability),\(overtimeMean),\(overtimeSD);floor=\(scoreFloor)" }
}
