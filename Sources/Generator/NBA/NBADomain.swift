import Foundation
import Schemas

/// NBA seasons (teams, games, closing totals, optional box scores) → standings, games, players and nightly totals
/// snapshots with a reproducible Monte Carlo, checked against the exact probability, plus a walk-forward backtest.
public struct NBADomain: Domain {
    public let name = "nba"
    public init() {}

    /// `nba.folder`, resolved inside the input folder.
    func folder(_ context: BuildContext, _ s: NBASettings) throws -> (url: URL, display: String) {
        let shown = context.displayPath(context.inputDirectory.appendingPathComponent(s.folder))
        let f = try context.inputFile(s.folder, file: s.folderNamed ? context.siteFile : shown, field: s.folderNamed ? "nba.folder" : nil)
        if s.folderNamed, ![.missing, .folder].contains(InputFiles.kind(f.url)) {
            throw BuildError(file: context.siteFile, field: "nba.folder", "\(Excerpt.text(s.folder)) is not a folder")
        }
        return f
    }

    public func isPresent(in context: BuildContext) -> Bool {
        // Anything wrong with the folder (a link pointing out) is for build() to report.
        guard let s = try? NBASettings.read(context.site, file: "site.json"), let dir = try? folder(context, s) else { return true }
        var st = stat()
        return lstat(dir.url.appendingPathComponent("games.csv").path, &st) == 0
    }

    struct GameAnalysis {
        let game: NBAGame
        let home: TeamForm, away: TeamForm
        let projection: TotalsModel.Projection
        let line: NBALine?
        var simulation: TotalsModel.Simulation?
        var exactOver: Double?
    }

    /// One date's games, with the calibration fitted on the games before it.
    struct Snapshot { let date: String; var games: [GameAnalysis]; var calibration = Calibration() }

    struct Model {
        let data: NBAData
        let settings: NBASettings
        let seasons: [String]
        var snapshots: [Snapshot]
        /// The configured model, then (with the backtest) the grid's variants, each with its walk-forward forecasts.
        let variants: [Backtest.Variant]
        let forecasts: [[Forecast]]
        /// The configured model's calibration per date (snapshot dates and game dates).
        let fits: [String: Calibration]
        var report: [ReportItem]
    }

    public func build(_ context: BuildContext) throws -> DomainResult {
        let model = try load(context)
        var result = DomainResult(report: model.report)
        for unit in NBAOutputs.all {
            result.files += try unit.render(model, context)
            result.kinds += unit.kinds
        }
        return result
    }

    /// Read → choose seasons and dates → team figures per snapshot → simulate → walk-forward forecasts and calibration.
    func load(_ context: BuildContext) throws -> Model {
        let siteFile = context.siteFile
        let s = try NBASettings.read(context.site, file: siteFile)
        let (dir, shown) = try folder(context, s)
        let data = try NBAData.load(dir, root: try context.inputRoot(), display: { shown + "/" + $0.lastPathComponent })
        let seasons = try Self.seasons(data, s, siteFile: siteFile)
        let games = data.games.filter { seasons.contains($0.season) }
        let dates = s.dates ?? Array(Set(games.filter { data.lines[$0.id] != nil }.map(\.date))).sorted()
        let model = TotalsModel(s: s)
        var snapshots = Self.snapshots(dates, games: games, lines: data.lines)
        Self.simulate(&snapshots, model, s, context)
        // Calibration of each date from the walk-forward forecasts of every earlier game (the configured model's exact
        // probabilities, as the backtest scores them).
        // The backtest's variants come from the same team figures, so they are forecast in the same pass.
        let variants = Self.variants(s)
        let forecasts = Forecast.walkForward(data, seasons: seasons, model: model, variants: variants)
        let fits = Calibration.walkForward(dates: snapshots.map(\.date) + forecasts[0].map(\.game.date), history: forecasts[0], prior: s.calibrationPrior)
        for i in snapshots.indices { snapshots[i].calibration = fits[snapshots[i].date]! }
        let report = [
            ReportItem(domain: name, key: "games read", count: data.games.count),
            ReportItem(domain: name, key: "games with a closing total", count: games.filter { data.lines[$0.id] != nil }.count),
            ReportItem(domain: name, key: "games without a line", count: games.filter { data.lines[$0.id] == nil }.count, policy: "verdict NO_LINE"),
            ReportItem(domain: name, key: "snapshot dates", count: snapshots.count),
        ]
        return Model(data: data, settings: s, seasons: seasons, snapshots: snapshots, variants: variants, forecasts: forecasts, fits: fits,
                     report: report)
    }

    /// The seasons of games.csv in order of first appearance, or those `nba.seasons` names (each must be there).
    static func seasons(_ data: NBAData, _ s: NBASettings, siteFile: String) throws -> [String] {
        var seasons: [String] = []
        for g in data.games where !seasons.contains(g.season) { seasons.append(g.season) }
        guard let wanted = s.seasons else { return seasons }
        for w in wanted where !seasons.contains(w) { throw BuildError(file: siteFile, field: "nba.seasons", "season \(Excerpt.quote(w)) is not in games.csv") }
        return seasons.filter { wanted.contains($0) }
    }

    /// Each date's games with both teams' figures as of that date (computed once per season and date) and the
    /// projection from them; simulations and calibration come later.
    static func snapshots(_ dates: [String], games: [NBAGame], lines: [String: NBALine]) -> [Snapshot] {
        var formCache: [String: [Int: TeamForm]] = [:]
        var snapshots: [Snapshot] = []
        for date in dates {
            let tonight = games.filter { $0.date == date }
            var analyses: [GameAnalysis] = []
            for g in tonight {
                let key = "\(g.season)|\(date)"
                let forms = formCache[key] ?? TeamForm.asOf(date, season: g.season, games: games)
                formCache[key] = forms
                let home = forms[g.home] ?? TeamForm(), away = forms[g.away] ?? TeamForm()
                analyses.append(GameAnalysis(game: g, home: home, away: away, projection: TotalsModel.project(home: home, away: away),
                                             line: lines[g.id], simulation: nil, exactOver: nil))
            }
            snapshots.append(Snapshot(date: date, games: analyses))
        }
        return snapshots
    }

    /// Simulates every game of every snapshot, in parallel, with the exact probability beside it; each game has its
    /// own seed, so the thread count changes nothing.
    static func simulate(_ snapshots: inout [Snapshot], _ model: TotalsModel, _ s: NBASettings, _ context: BuildContext) {
        var flat: [(Int, Int)] = []
        for (i, snap) in snapshots.enumerated() { for j in snap.games.indices { flat.append((i, j)) } }
        let snaps = snapshots
        let results = Parallel.map(flat.count, threads: context.threads) { _, k in
            let a = snaps[flat[k].0].games[flat[k].1]
            let sim = model.simulate(a.projection, line: a.line?.total, seed: TotalsModel.seed(a.game.id, s.modelKey), memory: context.memory)
            return (sim, a.line.map { model.exactOver(a.projection, line: $0.total) })
        }
        for (k, (i, j)) in flat.enumerated() {
            snapshots[i].games[j].simulation = results[k].0
            snapshots[i].games[j].exactOver = results[k].1
        }
    }

    /// The configured model, then (with the backtest) every ρ × overtime points of the grid.
    static func variants(_ s: NBASettings) -> [Backtest.Variant] {
        var variants = [Backtest.Variant(rho: s.rho, overtimePoints: s.overtimeMean)]
        if s.backtest { for rho in s.gridRho { for ot in s.gridOvertimePoints { variants.append(Backtest.Variant(rho: rho, overtimePoints: ot)) } } }
        return variants
    }
}
