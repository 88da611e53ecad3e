import AnnoLinkEngine
import Foundation

/// PROJ transformers shared by the requests of a server: making a `CoordinateTransformer` and
/// its first transformation costs a PROJ context and a database look-up (a tenth of a second
/// or more), so each is made once and lent to one request at a time, keeping the
/// transformations it cached.
public final class TransformerPool: @unchecked Sendable {
    /// The pool the service interfaces use.
    public static let shared = TransformerPool()

    private let lock = NSLock()
    private var idle: [CoordinateTransformer] = []

    public init() {}

    /// Runs `body` with a transformer no other thread uses meanwhile.
    ///
    /// - Throws: `PROJError` when a new transformer cannot be made; whatever `body` throws.
    public func with<T>(_ body: (CoordinateTransformer) throws -> T) throws -> T {
        lock.lock()
        let lent = idle.popLast()
        lock.unlock()
        // A client's or a served file's CRS text: authority codes, WKT and PROJJSON only.
        let transformer = try lent ?? CoordinateTransformer(acceptsPROJStrings: false)
        defer {
            lock.lock()
            idle.append(transformer)
            lock.unlock()
        }
        return try body(transformer)
    }
}
