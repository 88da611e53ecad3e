import Foundation

/// The open sketch sessions of a server: at most `limit` at once, each ended after
/// `idleSeconds` without a request, each named by 128 random bits (unguessable: the id is
/// what lets a client drive its session).
///
/// One request at a time holds a session (`with`); requests to other sessions run at once.
final class SketchSessions: @unchecked Sendable {
    /// The most sessions open at once.
    let limit: Int
    /// Seconds a session may go without a request before it is ended.
    let idleSeconds: Double

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    /// One session and what the store knows of it.
    private final class Entry: @unchecked Sendable {
        let session: ServedSketch
        /// The dataset it edits (sessions answer only requests on that dataset).
        let dataset: ObjectIdentifier
        let lock = NSLock()
        var lastUsed: Double

        init(session: ServedSketch, dataset: ObjectIdentifier, now: Double) {
            self.session = session
            self.dataset = dataset
            lastUsed = now
        }
    }

    init(limit: Int, idleSeconds: Double) {
        self.limit = max(1, limit)
        self.idleSeconds = idleSeconds
    }

    /// Seconds on a clock that only goes forward.
    private static var now: Double { ProcessInfo.processInfo.systemUptime }

    /// A new id: 32 hexadecimal digits from the system's secure generator.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }

    /// Ends the sessions idle for longer than `idleSeconds`. The caller holds `lock`.
    private func expire(at now: Double) {
        for (id, entry) in entries where now - entry.lastUsed > idleSeconds {
            // A session in use is never idle: its request updates `lastUsed` when it ends.
            guard entry.lock.try() else { continue }
            entries[id] = nil
            entry.lock.unlock()
        }
    }

    /// Adds `session` and returns its id; nil when `limit` sessions are open (after the idle
    /// ones are ended).
    func add(_ session: ServedSketch, dataset: Dataset) -> String? {
        lock.lock()
        defer { lock.unlock() }
        let now = Self.now
        expire(at: now)
        guard entries.count < limit else { return nil }
        var id = Self.newID()
        while entries[id] != nil { id = Self.newID() }
        entries[id] = Entry(session: session, dataset: ObjectIdentifier(dataset), now: now)
        return id
    }

    /// Runs `body` with session `id` of `dataset`, one request at a time per session; nil
    /// when there is no such open session. `body` returns whether the session ends.
    func with<T>(_ id: String, dataset: Dataset, _ body: (ServedSketch) throws -> (T, ends: Bool)) rethrows -> T? {
        lock.lock()
        expire(at: Self.now)
        let entry = entries[id]
        lock.unlock()
        guard let entry, entry.dataset == ObjectIdentifier(dataset) else { return nil }
        entry.lock.lock()
        defer {
            entry.lastUsed = Self.now
            entry.lock.unlock()
        }
        // Ended while this request waited for it.
        lock.lock()
        let stillOpen = entries[id] === entry
        lock.unlock()
        guard stillOpen else { return nil }
        let (value, ends) = try body(entry.session)
        if ends {
            lock.lock()
            entries[id] = nil
            lock.unlock()
        }
        return value
    }

    /// How many sessions are open now.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
