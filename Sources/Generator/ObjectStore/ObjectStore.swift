import Foundation

/// What `generator publish` needs of a store: read, write and delete one object. `S3Client` is the real one.
public protocol ObjectStore: AnyObject, Sendable {
    /// The object's bytes, or nil when there is none (404).
    func get(_ key: String) throws -> [UInt8]?
    func put(_ key: String, body: [UInt8], sha256: String, contentType: String, cacheControl: String) throws
    /// Removes the object (a missing one is no error: S3 answers 204 either way).
    func delete(_ key: String) throws
}
