/// How far a sync is: files fetched, patched or carried over, of those the new release needs.
public struct SyncProgress: Sendable {
    public var done: Int
    public var total: Int
}
