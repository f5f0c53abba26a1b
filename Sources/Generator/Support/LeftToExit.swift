/// What a process that ends right after its work leaves to the exit instead of freeing it object by object (a
/// quarter of a second at 100,000 products; compilers do the same): `BuildOptions.leavesMemoryToExit`.
enum LeftToExit {
    /// Keeps `object` alive until the process ends.
    static func keep(_ object: AnyObject) {
        _ = Unmanaged.passRetained(object)   // (never released: the point; the exit takes the memory back)
    }
}
