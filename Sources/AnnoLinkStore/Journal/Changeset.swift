import CSQLite

/// A changeset of SQLite's session extension: for each changed row, its table, primary key, the
/// values before and the values after. A plain value (the bytes as SQLite wrote them).
package struct Changeset: Hashable, Sendable {
    /// The changeset as SQLite wrote it.
    package var bytes: [UInt8]

    /// Whether it holds no change.
    package var isEmpty: Bool { bytes.isEmpty }

    /// The same changes the other way round: inserts become deletes, deletes inserts, and
    /// updates swap their before and after values. Wraps `sqlite3changeset_invert`.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_CORRUPT`) when the bytes are not a changeset.
    func inverted() throws -> Changeset {
        guard !bytes.isEmpty else { return self }
        var input = bytes
        var size: Int32 = 0
        var output: UnsafeMutableRawPointer?
        let rc = input.withUnsafeMutableBytes { sqlite3changeset_invert(Int32($0.count), $0.baseAddress, &size, &output) }
        defer { sqlite3_free(output) }
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot invert the changeset: \(String(cString: sqlite3_errstr(rc)))") }
        guard let output, size > 0 else { return Changeset(bytes: []) }
        return Changeset(bytes: Array(UnsafeRawBufferPointer(start: output, count: Int(size))))
    }

    /// One table as the changeset describes it.
    struct Table: Hashable, Sendable {
        var name: String
        /// The number of columns the changeset holds for the table.
        var columnCount: Int
        /// For each column, whether it is part of the primary key.
        var primaryKey: [Bool]
        /// The number of rows changed.
        var changes: Int
    }

    /// The tables the changeset touches, in the order they appear, with their row counts.
    /// Wraps `sqlite3changeset_start`, `sqlite3changeset_next`, `sqlite3changeset_op` and
    /// `sqlite3changeset_pk`.
    ///
    /// - Throws: `SQLiteError` when the bytes are not a changeset.
    func tables() throws -> [Table] {
        guard !bytes.isEmpty else { return [] }
        var input = bytes
        return try input.withUnsafeMutableBytes { buffer in
            var iterator: OpaquePointer?
            var rc = sqlite3changeset_start(&iterator, Int32(buffer.count), buffer.baseAddress)
            guard rc == SQLITE_OK, let iterator else { throw SQLiteError(code: rc, message: "cannot read the changeset") }
            var tables: [Table] = []
            while true {
                rc = sqlite3changeset_next(iterator)
                guard rc == SQLITE_ROW else { break }
                var name: UnsafePointer<CChar>?
                var columns: Int32 = 0
                var op: Int32 = 0
                var indirect: Int32 = 0
                sqlite3changeset_op(iterator, &name, &columns, &op, &indirect)
                let table = name.map { String(cString: $0) } ?? ""
                if let last = tables.indices.last, tables[last].name == table {
                    tables[last].changes += 1
                    continue
                }
                var flags: UnsafeMutablePointer<UInt8>?
                var count: Int32 = 0
                sqlite3changeset_pk(iterator, &flags, &count)
                let primaryKey = (0..<Int(count)).map { flags?[$0] != 0 }
                tables.append(Table(name: table, columnCount: Int(columns), primaryKey: primaryKey, changes: 1))
            }
            let finish = sqlite3changeset_finalize(iterator)
            guard rc == SQLITE_DONE, finish == SQLITE_OK else {
                throw SQLiteError(code: rc == SQLITE_DONE ? finish : rc, message: "cannot read the changeset")
            }
            return tables
        }
    }

    /// Applies the changes to the main database of `connection`, asking `resolve` what to do
    /// about each change that does not apply cleanly. Wraps `sqlite3changeset_apply_v2`, which
    /// runs in a savepoint of its own: when `resolve` answers `.abort`, every change is rolled
    /// back and `ChangesetApplyError.aborted` is thrown.
    ///
    /// Triggers fire as for any other write, so the GeoPackage R-tree triggers keep the spatial
    /// index in step. Tables missing from the database, or whose columns no longer match, are
    /// skipped by SQLite without a word: check them first (`tables()`).
    ///
    /// - Throws: `ChangesetApplyError.aborted`, or `SQLiteError` when SQLite fails.
    func apply(on connection: Connection, resolve: @escaping (ChangesetConflict) -> ChangesetConflict.Resolution) throws {
        guard !bytes.isEmpty else { return }
        let context = ApplyContext(resolve: resolve)
        var input = bytes
        let rc = input.withUnsafeMutableBytes { buffer in
            sqlite3changeset_apply_v2(
                connection.handle, Int32(buffer.count), buffer.baseAddress, nil,
                { context, kind, iterator in
                    guard let context, let iterator else { return SQLITE_CHANGESET_ABORT }
                    let apply = Unmanaged<ApplyContext>.fromOpaque(context).takeUnretainedValue()
                    return apply.handle(kind: kind, iterator: iterator)
                },
                Unmanaged.passUnretained(context).toOpaque(), nil, nil, 0)
        }
        withExtendedLifetime(context) {}
        if rc == SQLITE_ABORT, context.aborted { throw ChangesetApplyError.aborted }
        guard rc == SQLITE_OK else { throw connection.lastError(code: rc) }
    }
}

/// Why applying a changeset stopped.
enum ChangesetApplyError: Error, Equatable {
    /// The conflict handler answered `.abort`; nothing was changed.
    case aborted
}

/// A change that did not apply cleanly, as the conflict handler sees it.
struct ChangesetConflict: Sendable {
    /// What SQLite found (`SQLITE_CHANGESET_DATA`, `_NOTFOUND`, `_CONFLICT`, `_CONSTRAINT`,
    /// `_FOREIGN_KEY`).
    enum Kind: Sendable {
        /// The row is there but a column the change expects to find differs.
        case data
        /// The row to update or delete is gone.
        case notFound
        /// A row with the primary key of the row to insert is there already.
        case conflict
        /// The change would break a NOT NULL, UNIQUE or CHECK constraint.
        case constraint
        /// The whole changeset would leave foreign key references broken.
        case foreignKey(violations: Int)
    }

    /// What the handler wants done (`SQLITE_CHANGESET_OMIT` or `SQLITE_CHANGESET_ABORT`).
    enum Resolution: Sendable {
        /// Skip this change and go on.
        case omit
        /// Roll back every change and stop.
        case abort
    }

    /// The first column that differs between what the change expected and what is there.
    struct Difference: Sendable {
        var column: Int
        var expected: SQLValue
        var found: SQLValue
    }

    var kind: Kind
    /// The table; empty for `.foreignKey`.
    var table: String
    /// The primary key values of the row, in column order; empty for `.foreignKey`.
    var primaryKey: [SQLValue]
    /// For `.data`: the first differing column.
    var difference: Difference?
}

/// The state the C conflict handler reaches through its user-data pointer.
private final class ApplyContext {
    let resolve: (ChangesetConflict) -> ChangesetConflict.Resolution
    var aborted = false

    init(resolve: @escaping (ChangesetConflict) -> ChangesetConflict.Resolution) { self.resolve = resolve }

    func handle(kind code: Int32, iterator: OpaquePointer) -> Int32 {
        let conflict: ChangesetConflict
        if code == SQLITE_CHANGESET_FOREIGN_KEY {
            var violations: Int32 = 0
            sqlite3changeset_fk_conflicts(iterator, &violations)
            conflict = ChangesetConflict(kind: .foreignKey(violations: Int(violations)), table: "", primaryKey: [])
        } else {
            var name: UnsafePointer<CChar>?
            var columns: Int32 = 0
            var op: Int32 = 0
            var indirect: Int32 = 0
            sqlite3changeset_op(iterator, &name, &columns, &op, &indirect)
            var flags: UnsafeMutablePointer<UInt8>?
            var count: Int32 = 0
            sqlite3changeset_pk(iterator, &flags, &count)
            // The key is in the old values of updates and deletes, in the new values of inserts.
            let values: (Int32) -> SQLValue? = op == SQLITE_INSERT
                ? { column in Self.value { sqlite3changeset_new(iterator, column, &$0) } }
                : { column in Self.value { sqlite3changeset_old(iterator, column, &$0) } }
            let key = (0..<count).filter { flags?[Int($0)] != 0 }.map { values($0) ?? .null }
            var difference: ChangesetConflict.Difference?
            if code == SQLITE_CHANGESET_DATA {
                for column in 0..<columns where flags?[Int(column)] == 0 {
                    guard let expected = values(column),
                          let found = Self.value({ sqlite3changeset_conflict(iterator, column, &$0) }),
                          expected != found else { continue }
                    difference = .init(column: Int(column), expected: expected, found: found)
                    break
                }
            }
            let kind: ChangesetConflict.Kind = switch code {
            case SQLITE_CHANGESET_DATA: .data
            case SQLITE_CHANGESET_NOTFOUND: .notFound
            case SQLITE_CHANGESET_CONFLICT: .conflict
            default: .constraint
            }
            conflict = ChangesetConflict(kind: kind, table: name.map { String(cString: $0) } ?? "", primaryKey: key, difference: difference)
        }
        switch resolve(conflict) {
        case .omit:
            return SQLITE_CHANGESET_OMIT
        case .abort:
            aborted = true
            return SQLITE_CHANGESET_ABORT
        }
    }

    /// Reads one value through `get`; nil when SQLite has none for the column (an update's
    /// unchanged columns).
    private static func value(_ get: (inout OpaquePointer?) -> Int32) -> SQLValue? {
        var pointer: OpaquePointer?
        guard get(&pointer) == SQLITE_OK, let pointer else { return nil }
        return SQLValue(sqliteValue: pointer)
    }
}

extension SQLValue {
    /// Copies an `sqlite3_value *`.
    init(sqliteValue value: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT: self = .text(sqlite3_value_text(value).map { String(cString: $0) } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            let bytes = sqlite3_value_blob(value)
            self = .blob(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
        default: self = .null
        }
    }
}
