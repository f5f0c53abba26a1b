import Foundation

/// Everything a domain may read: the configuration and the input folder, plus the build clock.
/// Domains never write files (the writer does) and hold no global state.
public struct BuildContext: Sendable {
    public var site: SiteConfig
    public var inputDirectory: URL
    /// ISO-8601 UTC timestamp of this build (from SOURCE_DATE_EPOCH when set).
    public var generatedAt: String
    public var epochSeconds: Int
    /// Worker threads for parallel stages (1 = sequential); results never depend on it.
    public var threads: Int
    /// Turn bad data rows into counted warnings instead of failing (domains that support it).
    public var skipBadRows: Bool
    /// Results kept from earlier builds of the same process (`BuildOptions.memory`), or nil.
    public var memory: BuildMemory?
    /// What the build before left in the output folder and a rebuild may keep (see `PreviousBuild`); nil when a
    /// domain runs outside a build.
    var previous: PreviousBuild?

    public init(site: SiteConfig, inputDirectory: URL, epochSeconds: Int, threads: Int, skipBadRows: Bool = false) {
        self.site = site; self.inputDirectory = inputDirectory; self.epochSeconds = epochSeconds
        self.generatedAt = ISODate.format(epochSeconds: epochSeconds)
        self.threads = max(1, threads); self.skipBadRows = skipBadRows
    }

    /// Path of an input file as shown in messages (relative to the input folder's parent when possible).
    public func displayPath(_ url: URL) -> String {
        let base = inputDirectory.deletingLastPathComponent().standardizedFileURL.path
        let p = url.standardizedFileURL.path
        return p.hasPrefix(base + "/") ? String(p.dropFirst(base.count + 1)) : p
    }
}
