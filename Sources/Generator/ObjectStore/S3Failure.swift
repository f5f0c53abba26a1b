import Foundation
import TreeClient

/// A request the store refused or that could not be completed, after its retries. Names the method and key, the
/// status and the store's own error code and message; never a credential.
public struct S3Failure: Error, CustomStringConvertible, Sendable {
    public let method: String
    public let location: String
    public let status: Int?
    public let code: String?
    public let message: String
    public let attempts: Int

    public var description: String {
        var text = "\(method) \(location): "
        if let status { text += "HTTP \(status)" + (code.map { " \($0)" } ?? "") + (message.isEmpty ? "" : ": \(message)") } else { text += message }
        if code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId" {
            text += " (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the region)"
        }
        return TreePath.shown(text, limit: 600) + (attempts > 1 ? " (after \(attempts) attempts)" : "")
    }
}
