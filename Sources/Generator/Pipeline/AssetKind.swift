import Foundation

/// A kind of file that is not JSON (a page, a picture, a script): declared like an `OutputKind`, with its media
/// type instead of a schema, so `openapi.json` and the summary can describe every file of the tree.
public struct AssetKind: Sendable, Equatable {
    /// Stable name (also the operation's name in openapi.json).
    public let name: String
    public let pathTemplate: String
    /// The media type a static host sends it with (as `ContentTypes`, used by `generator serve` and `generator publish`).
    public let mediaType: String
    public let summary: String

    public init(name: String, pathTemplate: String, mediaType: String, summary: String) {
        self.name = name; self.pathTemplate = pathTemplate; self.mediaType = mediaType; self.summary = summary
    }
}
