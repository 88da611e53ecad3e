import AnnoLinkStore
import Foundation
import Testing

/// `StatementStop` and the time limits, which a server relies on to stop SQL it did not write
/// the length of (issue 25: SIGTERM was ignored for 55 s while a class where clause ran).
@Suite struct StatementStopTests {
    /// A statement that runs for minutes: a count to 10^12.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000) SELECT count(*) FROM c"

    @Test("stop() from another thread interrupts the running statement of every connection holding the switch")
    func stopsRunningStatement() throws {
        let db = try ScratchDatabase()
        let stop = StatementStop()
        db.connection.statementStop = stop
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            started.signal()
            // Stop only once the statement has begun: give it a moment after the signal.
            usleep(100_000)
            stop.stop()
        }
        started.wait()
        let error = #expect(throws: SQLiteError.self) { try db.connection.scalarInt(Self.endless) }
        #expect(error?.resultCode == .interrupt)
        #expect(stop.isStopped)
        // A stopped connection runs no statement of any length after.
        #expect(throws: SQLiteError.self) { try db.connection.scalarInt(Self.endless) }
    }

    @Test("a condition time limit stops a class where clause's statement, and only when set")
    func conditionTimeLimit() throws {
        let db = try ScratchDatabase()
        #expect(try db.connection.withConditionTimeLimit { try db.connection.scalarInt("SELECT 2") } == 2)
        db.connection.conditionTimeLimit = 0.05
        let error = #expect(throws: SQLiteError.self) {
            try db.connection.withConditionTimeLimit { try db.connection.scalarInt(Self.endless) }
        }
        #expect(error?.resultCode == .interrupt)
        // Outside it, and after it, SQL runs unlimited again.
        let counted = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c"
        #expect(try db.connection.scalarInt(counted) == 100000)
    }

    @Test("a time limit inside another keeps the earlier deadline and gives the outer one back")
    func nestedTimeLimits() throws {
        let db = try ScratchDatabase()
        let inner = #expect(throws: SQLiteError.self) {
            try db.connection.withTimeLimit(seconds: 0.05) {
                try db.connection.withTimeLimit(seconds: 3600) { try db.connection.scalarInt(Self.endless) }
            }
        }
        #expect(inner?.resultCode == .interrupt)
        let outer = #expect(throws: SQLiteError.self) {
            try db.connection.withTimeLimit(seconds: 0.05) {
                _ = try db.connection.withTimeLimit(seconds: 3600) { try db.connection.scalarInt("SELECT 1") }
                return try db.connection.scalarInt(Self.endless)
            }
        }
        #expect(outer?.resultCode == .interrupt)
    }
}
