import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

final class NBATests: XCTestCase {
    static let realData: NBAData = try! NBAData.load(TestSupport.testData.appendingPathComponent("nba")) { $0.lastPathComponent }

    /// A game's inputs come from earlier games of its season only: changing that game's score, or any later
    /// game's, changes nothing.
    func testNoLookAhead() {
        let games = Self.realData.games.filter { $0.season == "2021-22" }
        let target = games[600]
        let before = TeamForm.asOf(target.date, season: "2021-22", games: games)
        let tampered = games.map { g in
            g.date >= target.date ? NBAGame(id: g.id, season: g.season, date: g.date, home: g.home, away: g.away,
                                            homeScore: g.homeScore + 40, awayScore: 0, otPeriods: g.otPeriods) : g
        }
        let after = TeamForm.asOf(target.date, season: "2021-22", games: tampered)
        for (team, f) in before {
            XCTAssertEqual(f.ppg, after[team]!.ppg); XCTAssertEqual(f.sd, after[team]!.sd); XCTAssertEqual(f.wins, after[team]!.wins)
        }
        // And the game's own date is excluded: every team has played fewer games than the season's count so far + 1.
        let played = games.filter { $0.date < target.date }
        XCTAssertEqual(before[target.home]!.games, played.filter { $0.home == target.home || $0.away == target.home }.count)
    }

    /// Another season's games change nothing.
    func testSeasonIsolation() {
        let only = Self.realData.games.filter { $0.season == "2020-21" }
        let date = only[300].date
        let a = TeamForm.asOf(date, season: "2020-21", games: only)
        let b = TeamForm.asOf(date, season: "2020-21", games: Self.realData.games)
        XCTAssertEqual(a.count, 30)
        for (team, f) in a { XCTAssertEqual(f.ppg, b[team]!.ppg); XCTAssertEqual(f.oppPpg, b[team]!.oppPpg); XCTAssertEqual(f.sd, b[team]!.sd) }
    }

    func testGamesBehindOnAHandMadeTable() {
        // Leader 10-2. A 7-5 team is 3 games behind; 9-4 is 1.5; 11-4 (fewer wins percentage-wise) is 0.5 ahead in wins.
        XCTAssertEqual(Standings.gamesBehind(wins: 7, losses: 5, leaderWins: 10, leaderLosses: 2), 3)
        XCTAssertEqual(Standings.gamesBehind(wins: 9, losses: 4, leaderWins: 10, leaderLosses: 2), 1.5)
        XCTAssertEqual(Standings.gamesBehind(wins: 10, losses: 2, leaderWins: 10, leaderLosses: 2), 0)
        var forms: [Int: TeamForm] = [:]
        forms[1] = TeamForm(games: 12, wins: 10, losses: 2); forms[2] = TeamForm(games: 15, wins: 11, losses: 4)
        XCTAssertTrue(Standings.leader(forms) == (10, 2))
        var f = TeamForm()
        for w in [true, false, true, true, true] { f.record(w) }
        XCTAssertEqual(f.streak, "W3"); XCTAssertEqual(f.lastTen, "4-1")
    }

    func testPushOnAWholeNumberLine() {
        let model = TotalsModel(s: NBASettings())
        let p = TotalsModel.Projection(homeMean: 112, awayMean: 108, homeSD: 11, awaySD: 12)
        let whole = model.simulate(p, line: 220, seed: 1)
        XCTAssertGreaterThan(whole.pPush, 0.005)
        XCTAssertEqual(whole.pOver + whole.pUnder + whole.pPush, 1, accuracy: 1e-12)
        let half = model.simulate(p, line: 220.5, seed: 1)
        XCTAssertEqual(half.pPush, 0)
        // The exact push probability: P(219.5 ≤ X < 220.5).
        let exactPush = model.exactOver(p, line: 219) - model.exactOver(p, line: 220)
        XCTAssertEqual(whole.pPush, exactPush, accuracy: 4 * (exactPush * (1 - exactPush) / 10_000).squareRoot())
    }

    func testOddsAndBettingFormulas() {
        XCTAssertEqual(TotalsModel.decimalOdds(-110), 1 + 100.0 / 110, accuracy: 1e-15)
        XCTAssertEqual(TotalsModel.decimalOdds(150), 2.5)
        let m = TotalsModel(s: NBASettings()).metrics(pOver: 0.6, pUnder: 0.4, overOdds: 1.91, underOdds: 1.91)
        XCTAssertEqual(m.evOver, (0.6 * 0.91 - 0.4) * 100, accuracy: 1e-9)
        XCTAssertEqual(m.edgeOver, (0.6 - 1 / 1.91) * 100, accuracy: 1e-9)
        XCTAssertEqual(m.kellyOver, min(0.25 * (0.6 * 1.91 - 1) / 0.91, 0.05) * 100, accuracy: 1e-9)
        XCTAssertEqual(m.kellyUnder, 0)
        XCTAssertEqual(m.recommended, "OVER")
        XCTAssertEqual(m.verdict, "LEAN_OVER")   // edge 7.6
    }

    /// The libm-free math agrees with the C library to the last few bits.
    func testDeterministicMath() {
        for x in [1e-300, 0.001, 0.5, 0.7071, 1, 1.5, 2, 10, 12345.678] { XCTAssertEqual(DetMath.log(x), Foundation.log(x), accuracy: 4e-16 * max(1, abs(Foundation.log(x)))) }
        for x in [-30.0, -1, -0.1, 0, 0.3, 1, 5, 20] { XCTAssertEqual(DetMath.exp(x), Foundation.exp(x), accuracy: 4e-16 * Foundation.exp(x)) }
        for x in [-2.0, -0.5, 0, 0.1, 1, 2.5, 3, 4, 6] { XCTAssertEqual(DetMath.erfc(x), Foundation.erfc(x), accuracy: 1e-12 * max(1e-3, Foundation.erfc(x)) + 1e-16) }
    }

    /// Monte Carlo p_over within 4 standard errors of the closed form, for every game of a season.
    func testMonteCarloAgreesWithTheExactProbabilityForAWholeSeason() throws {
        let s = NBASettings()
        let model = TotalsModel(s: s)
        let games = Self.realData.games.filter { $0.season == "2022-23" }
        // Each date's forms, then each game with a line, on both cores.
        let dates = Array(Set(games.map(\.date))).sorted()
        let formsByDate = TestSupport.concurrently(dates.count) { k in TeamForm.asOf(dates[k], season: "2022-23", games: games) }
        var forms: [String: [Int: TeamForm]] = [:]
        for (k, d) in dates.enumerated() { forms[d] = try? formsByDate[k].get() }
        let lined = games.filter { Self.realData.lines[$0.id] != nil }
        let verdicts = TestSupport.concurrently(lined.count) { k -> String? in
            let g = lined[k], line = Self.realData.lines[g.id]!, f = forms[g.date]!
            let p = TotalsModel.project(home: f[g.home] ?? TeamForm(), away: f[g.away] ?? TeamForm())
            let sim = model.simulate(p, line: line.total, seed: TotalsModel.seed(g.id, s.modelKey))
            let exact = model.exactOver(p, line: line.total)
            let se = (exact * (1 - exact) / Double(s.simulations)).squareRoot()
            return abs(sim.pOver - exact) > 4 * se ? "\(g.id): \(sim.pOver) vs \(exact)" : nil
        }
        XCTAssertEqual(lined.count, 662)
        XCTAssertEqual(try verdicts.map { try $0.get() }.compactMap { $0 }, [])
    }

    /// Simulated totals are sorted by counting: the same order as `sort()` for whole numbers (negative ones too), and
    /// `sort()` itself for what a count cannot keep (a fraction, a signed zero, a range too wide, nothing at all).
    func testSortPointsIsTheSortOfEveryArray() {
        var random = TestSupport.Random(state: 23)
        var arrays: [[Double]] = [[], [181], [0, -0.0, 3], [-0.0, 0, 2], [5, 2.5, 1], [1, 1e9, 3], [-.infinity, 2], [3, .nan, 1]]
        for _ in 0..<200 {
            let n = random.below(3000), base = random.below(400) - 150, width = 1 + random.below(600)
            arrays.append((0..<n).map { _ in Double(base + random.below(width)) })
        }
        arrays.append(TotalsModel(s: NBASettings()).draws(TotalsModel.Projection(homeMean: 112, awayMean: 109, homeSD: 12, awaySD: 11), seed: 7).totals)
        var counted = 0
        for a in arrays {
            var mine = a, theirs = a
            TotalsModel.sortPoints(&mine)
            theirs.sort()
            XCTAssertEqual(mine.map(\.bitPattern), theirs.map(\.bitPattern), "\(a.prefix(8))")
            if a.count > 1, a.allSatisfy({ $0 != 0 && $0.rounded() == $0 }) { counted += 1 }
        }
        XCTAssertGreaterThan(counted, 120)
    }

    /// Four real seasons compile (with the catalog, so the tree is complete); games without a line are NO_LINE;
    /// two builds with 1 and 2 threads are byte-identical.
    func testFourSeasonsNoLineAndDeterminism() throws {
        try Tool.require(.python3, .jsonschema)
        let (summary, a, b) = try FourSeasons.trees.get()
        XCTAssertEqual(summary.report.first { $0.key == "snapshot dates" }?.count, 685)
        let ta = TestSupport.snapshot(a).filter { $0.key.hasPrefix("nba/") }, tb = TestSupport.snapshot(b).filter { $0.key.hasPrefix("nba/") }
        // 685 dates and latest.json, backtest.json and backtest.svg, teams.json and games.json, and per season teams and games.
        XCTAssertEqual(ta.count, 686 + 2 + 2 + 4 * 2)
        XCTAssertEqual(ta, tb)
        let day = try JSONReader.parse(XCTUnwrap(ta["nba/totals/2023-01-01.json"]))
        let noLine = day["games"]!.arrayValue!.filter { $0["game_id"] == "0022200548" || $0["game_id"] == "0022200549" }
        XCTAssertEqual(noLine.count, 2)
        for g in noLine {
            XCTAssertEqual(g["verdict"], "NO_LINE")
            XCTAssertEqual(g["monte_carlo"], .null); XCTAssertEqual(g["ev_metrics"], .null); XCTAssertEqual(g["edge"], .null)
            XCTAssertNotNil(g["over_odds"]?.doubleValue)
        }
        let judged = try TestSupport.checkTree(a)
        XCTAssertEqual(judged.status, 0, String(judged.output.suffix(1500)))
    }
}

/// The four real seasons built twice at once, with 2 threads and with 1 (the one-thread build uses the core the other
/// leaves idle), shared by the tests that read them: a build of four seasons is the slowest part of the NBA tests.
enum FourSeasons {
    static let trees: Result<(BuildSummary, URL, URL), Error> = Result {
        func input() throws -> URL {
            let dir = TestSupport.makeInput(site: { s in
                s.removeValue(forKey: "catalog"); s.removeValue(forKey: "auctions")
                s["nba"] = ["folder": "nba", "simulations": 400]
            }, files: [:])
            // Copied, not linked: a link pointing out of the input folder is refused.
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("nba"), withIntermediateDirectories: true)
            for f in ["teams.csv", "games.csv", "lines.csv"] {
                try FileManager.default.copyItem(at: TestSupport.testData.appendingPathComponent("nba/\(f)"), to: dir.appendingPathComponent("nba/\(f)"))
            }
            return dir
        }
        let a = TestSupport.tempDir("nba-a").appendingPathComponent("dist"), b = TestSupport.tempDir("nba-b").appendingPathComponent("dist")
        let inputs = [try input(), try input()]
        let outs = [a, b], threads = [2, 1]
        let summaries = TestSupport.concurrently(2) { i in
            try Build.run(BuildOptions(input: inputs[i], output: outs[i], threads: threads[i], epochSeconds: 1_700_000_000))
        }
        _ = try summaries[1].get()
        return (try summaries[0].get(), a, b)
    }
}
