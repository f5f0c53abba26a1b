/// A reference that holds no count on its object, for the many small views of one large shared store (a million
/// `Product`s of one `ProductStore`) that its owner keeps alive for as long as they are used. Each use borrows the
/// object: nothing is retained or released, so two cores reading through views of one store never write to its
/// reference count (a count two cores share slows both). Kept for speed: these unretained views are part of the
/// compact store that took the fresh 100k build (`Benchmarks/catalog/run.sh`) from 5.12 to 4.15 s; a retained
/// reference per `Product` put an atomic increment and decrement on every field read of the product pages.
struct Uncounted<Object: AnyObject> {
    private unowned(unsafe) let object: Object

    init(_ object: Object) { self.object = object }

    /// `body` with the object, borrowed (valid while its owner keeps it: the caller's promise).
    @inline(__always) func with<R>(_ body: (Object) throws -> R) rethrows -> R {
        try Unmanaged.passUnretained(object)._withUnsafeGuaranteedRef(body)
    }
}
