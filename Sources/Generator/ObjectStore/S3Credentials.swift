import Foundation

/// The keys `generator publish` signs its requests with (from the usual AWS environment variables). The secret and
/// the session token never appear in a description, a message or a log line.
public struct S3Credentials: Sendable, CustomStringConvertible {
    public var accessKeyId: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId; self.secretAccessKey = secretAccessKey; self.sessionToken = sessionToken
    }

    /// Redacted: a credentials value printed by mistake shows no secret.
    public var description: String { "S3Credentials(accessKeyId: \(accessKeyId), secret: <redacted>)" }
}
