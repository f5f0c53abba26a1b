import Foundation

/// `404.html`: GitHub Pages serves it for any missing path. Apps only ever see its status code; a person who
/// opens a wrong URL in a browser gets a pointer to the entry points instead of GitHub's generic page.
/// It carries no timestamp, so it changes only when the site's name or URL does.
public enum NotFoundPage {
    public static let path = "404.html"
    public static let summary = "Page served by GitHub Pages for any path that is not in the tree."
    public static let asset = AssetKind(name: "not-found-page", pathTemplate: path, mediaType: "text/html", summary: summary)
    /// `.nojekyll`: the empty marker that turns off Jekyll on GitHub Pages (files are served as they are).
    public static let noJekyll = AssetKind(name: "no-jekyll-marker", pathTemplate: ".nojekyll", mediaType: "application/octet-stream",
                                           summary: "Empty marker that turns off Jekyll processing on GitHub Pages.")

    public static func render(site: SiteConfig) -> [UInt8] {
        let name = escape(site.siteName)
        let base = escape(site.baseURL)
        let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>Not found · \(name)</title>
        </head>
        <body>
        <h1>Not found</h1>
        <p>This address is not part of the current release of the <strong>\(name)</strong> JSON API.</p>
        <p>Start from <a href="\(base)update-manifest.json">update-manifest.json</a>, which names the release's file index,
        or read <a href="\(base)openapi.json">openapi.json</a> for every path the API serves.</p>
        </body>
        </html>

        """
        return Array(html.utf8)
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
