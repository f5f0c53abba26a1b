import Foundation

/// `nba/totals/backtest.svg`: the backtest as a person reads it. Left, a reliability diagram of every season
/// together (mean predicted against observed over rate per 10 % bin, raw and calibrated, dot area by games, with the
/// diagonal of perfect calibration); right, one small panel per season with the cumulative units of LEAN and STRONG
/// bets, raw verdicts solid and calibrated ones dashed. Self-contained (no fonts, scripts or links) and written
/// from the results alone, so its bytes are as deterministic as backtest.json's.
enum BacktestChart {
    static let path = "nba/totals/backtest.svg"
    static let asset = AssetKind(name: "nba-backtest-chart", pathTemplate: path, mediaType: "image/svg+xml",
                                 summary: "The NBA totals backtest as a picture: reliability diagram (raw and calibrated) and cumulative units of LEAN and STRONG bets per season.")

    static let rawColour = "#1f6fb4", calibratedColour = "#d95f02"
    static let leanColour = "#c99700", strongColour = "#c0392b"

    static func render(seasons: [(String, Backtest.Result)], overall: Backtest.Result) -> [UInt8] {
        let columns = 2, panelW = 200.0, panelH = 170.0, gapX = 60.0, gapY = 80.0, top = 130.0
        let rows = max(1, (seasons.count + columns - 1) / columns)
        let width = 1000.0, height = max(580.0, top + 30 + Double(rows) * (panelH + gapY))
        var svg = Text()
        svg += ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(n(width))" height="\##(n(height))" viewBox="0 0 \##(n(width)) \##(n(height))" font-family="sans-serif" font-size="12">"##
        svg += ##"<rect width="100%" height="100%" fill="#ffffff"/>"##
        let span = seasons.count == 1 ? seasons[0].0 : "\(seasons.first?.0 ?? "")…\(seasons.last?.0 ?? "")"
        svg += ##"<text x="24" y="32" font-size="18" font-weight="bold">NBA totals backtest, \##(escape(span)): walk-forward, \##(overall.games) games</text>"##
        svg += ##"<text x="24" y="52" fill="#444">Brier score raw \##(f(overall.raw.brier, 4)), calibrated \##(f(overall.calibrated.brier, 4)), market baseline 0.2500 (probability ½ at the line). One unit per bet at the line's odds.</text>"##
        reliability(&svg, overall, x: 70, y: top, size: 340)
        let x0 = 520.0
        svg += ##"<text x="\##(n(x0))" y="\##(n(top - 44))" font-size="14" font-weight="bold">Cumulative units of LEAN and STRONG bets per season</text>"##
        svg += ##"<line x1="\##(n(x0))" y1="\##(n(top - 28))" x2="\##(n(x0 + 16))" y2="\##(n(top - 28))" stroke="\##(strongColour)" stroke-width="2"/><text x="\##(n(x0 + 20))" y="\##(n(top - 24))">STRONG</text>"##
        svg += ##"<line x1="\##(n(x0 + 80))" y1="\##(n(top - 28))" x2="\##(n(x0 + 96))" y2="\##(n(top - 28))" stroke="\##(leanColour)" stroke-width="2"/><text x="\##(n(x0 + 100))" y="\##(n(top - 24))">LEAN</text>"##
        svg += ##"<text x="\##(n(x0 + 150))" y="\##(n(top - 24))">solid: raw verdicts; dashed: calibrated verdicts</text>"##
        for (i, (season, r)) in seasons.enumerated() {
            let px = x0 + Double(i % columns) * (panelW + gapX), py = top + 30 + Double(i / columns) * (panelH + gapY)
            units(&svg, season, r, x: px, y: py, w: panelW, h: panelH)
        }
        svg += "</svg>\n"
        return Array(svg.text.utf8)
    }

    /// Predicted (x) against observed (y), both 0…1.
    static func reliability(_ svg: inout Text, _ r: Backtest.Result, x: Double, y: Double, size: Double) {
        func px(_ v: Double) -> Double { x + v * size }
        func py(_ v: Double) -> Double { y + size - v * size }
        svg += ##"<text x="\##(n(x))" y="\##(n(y - 10))" font-size="14" font-weight="bold">Reliability: predicted against observed over rate</text>"##
        svg += ##"<rect x="\##(n(x))" y="\##(n(y))" width="\##(n(size))" height="\##(n(size))" fill="#fafafa" stroke="#999"/>"##
        for t in stride(from: 0.0, through: 1.0, by: 0.2) {
            svg += ##"<line x1="\##(n(px(t)))" y1="\##(n(y))" x2="\##(n(px(t)))" y2="\##(n(y + size))" stroke="#e4e4e4"/>"##
            svg += ##"<line x1="\##(n(x))" y1="\##(n(py(t)))" x2="\##(n(x + size))" y2="\##(n(py(t)))" stroke="#e4e4e4"/>"##
            svg += ##"<text x="\##(n(px(t)))" y="\##(n(y + size + 16))" text-anchor="middle">\##(f(t, 1))</text>"##
            svg += ##"<text x="\##(n(x - 6))" y="\##(n(py(t) + 4))" text-anchor="end">\##(f(t, 1))</text>"##
        }
        svg += ##"<line x1="\##(n(px(0)))" y1="\##(n(py(0)))" x2="\##(n(px(1)))" y2="\##(n(py(1)))" stroke="#666" stroke-dasharray="5 4"/>"##
        svg += ##"<text x="\##(n(x + size / 2))" y="\##(n(y + size + 34))" text-anchor="middle">predicted probability of over</text>"##
        svg += ##"<text transform="translate(\##(n(x - 36)) \##(n(y + size / 2))) rotate(-90)" text-anchor="middle">observed share of overs</text>"##
        let most = Double(max(1, (r.raw.bins + r.calibrated.bins).map { $0.n }.max() ?? 1))
        for (e, colour) in [(r.raw, rawColour), (r.calibrated, calibratedColour)] {
            let points = e.bins.filter { $0.n > 0 }.map { (px($0.predicted / Double($0.n)), py($0.observed / Double($0.n)), Double($0.n)) }
            if points.count > 1 {
                svg += ##"<polyline fill="none" stroke="\##(colour)" stroke-width="1.5" points="\##(points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " "))"/>"##
            }
            for p in points {
                svg += ##"<circle cx="\##(n(p.0))" cy="\##(n(p.1))" r="\##(n(3 + 9 * (p.2 / most).squareRoot()))" fill="\##(colour)" fill-opacity="0.55" stroke="\##(colour)"/>"##
            }
        }
        let ly = y + size + 60
        svg += ##"<circle cx="\##(n(x + 6))" cy="\##(n(ly - 4))" r="6" fill="\##(rawColour)" fill-opacity="0.55"/><text x="\##(n(x + 18))" y="\##(n(ly))">raw model</text>"##
        svg += ##"<circle cx="\##(n(x + 116))" cy="\##(n(ly - 4))" r="6" fill="\##(calibratedColour)" fill-opacity="0.55"/><text x="\##(n(x + 128))" y="\##(n(ly))">calibrated (earlier games only)</text>"##
        svg += ##"<line x1="\##(n(x))" y1="\##(n(ly + 16))" x2="\##(n(x + 14))" y2="\##(n(ly + 16))" stroke="#666" stroke-dasharray="5 4"/><text x="\##(n(x + 18))" y="\##(n(ly + 20))">perfect calibration; dot area: games in the bin</text>"##
    }

    /// Cumulative units of one season's LEAN and STRONG bets.
    static func units(_ svg: inout Text, _ season: String, _ r: Backtest.Result, x: Double, y: Double, w: Double, h: Double) {
        let lines: [(Backtest.Bets, String, Bool)] = [(r.raw.lean, leanColour, false), (r.raw.strong, strongColour, false),
                                                     (r.calibrated.lean, leanColour, true), (r.calibrated.strong, strongColour, true)]
        let all = lines.flatMap { $0.0.path }
        let lo = min(0, all.min() ?? 0), hi = max(1, all.max() ?? 1)
        let count = Double(max(1, lines.map { $0.0.bets }.max() ?? 1))
        func px(_ i: Double) -> Double { x + i / count * w }
        func py(_ v: Double) -> Double { y + h - (v - lo) / (hi - lo) * h }
        svg += ##"<text x="\##(n(x))" y="\##(n(y - 36))" font-size="13" font-weight="bold">\##(escape(season))</text>"##
        svg += ##"<text x="\##(n(x))" y="\##(n(y - 21))" font-size="11">raw: STRONG \##(signed(r.raw.strong.units)), LEAN \##(signed(r.raw.lean.units))</text>"##
        svg += ##"<text x="\##(n(x))" y="\##(n(y - 7))" font-size="11">calibrated: \##(signed(r.calibrated.all.units)) in \##(r.calibrated.all.bets) bets</text>"##
        svg += ##"<rect x="\##(n(x))" y="\##(n(y))" width="\##(n(w))" height="\##(n(h))" fill="#fafafa" stroke="#999"/>"##
        svg += ##"<line x1="\##(n(x))" y1="\##(n(py(0)))" x2="\##(n(x + w))" y2="\##(n(py(0)))" stroke="#888"/>"##
        svg += ##"<text x="\##(n(x - 4))" y="\##(n(py(hi) + 10))" text-anchor="end" font-size="10">\##(signed(hi))</text>"##
        svg += ##"<text x="\##(n(x - 4))" y="\##(n(py(0) + 4))" text-anchor="end" font-size="10">0</text>"##
        if lo < 0 { svg += ##"<text x="\##(n(x - 4))" y="\##(n(py(lo)))" text-anchor="end" font-size="10">\##(signed(lo))</text>"## }
        svg += ##"<text x="\##(n(x + w))" y="\##(n(y + h + 14))" text-anchor="end" font-size="10">bets (\##(Int(count)))</text>"##
        for (bets, colour, dashed) in lines where !bets.path.isEmpty {
            // At most ~240 points a line: every k-th bet and the last, which is what a 230-pixel panel can show.
            let step = max(1, bets.path.count / 240)
            var pts = [(0.0, 0.0)]
            for i in stride(from: step - 1, to: bets.path.count, by: step) { pts.append((Double(i + 1), bets.path[i])) }
            if pts.last!.0 != Double(bets.path.count) { pts.append((Double(bets.path.count), bets.path.last!)) }
            svg += ##"<polyline fill="none" stroke="\##(colour)" stroke-width="1.5"\##(dashed ? ##" stroke-dasharray="4 3""## : "") points="\##(pts.map { "\(n(px($0.0))),\(n(py($0.1)))" }.joined(separator: " "))"/>"##
        }
    }

    /// Coordinates with at most one decimal and no "-0".
    static func n(_ v: Double) -> String {
        let r = (v * 10).rounded(.toNearestOrAwayFromZero) / 10
        if r == r.rounded() { return String(Int(r)) }
        return String(format: "%.1f", r)
    }
    static func f(_ v: Double, _ places: Int) -> String { String(format: "%.\(places)f", v) }
    static func signed(_ v: Double) -> String { (v >= 0 ? "+" : "−") + String(format: "%.1f", abs(v)) }
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The SVG's text, one element a line.
    struct Text {
        var text = ""
        static func += (t: inout Text, line: String) { t.text += line; t.text += "\n" }
    }
}
