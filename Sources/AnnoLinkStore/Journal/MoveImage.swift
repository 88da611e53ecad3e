import AnnoLinkGeometry
import CSQLite

/// The image of one table's rows that a bulk entry moved by (dx, dy). A translation is undone by
/// moving back, so instead of copying every row, as `BulkImage` does, the image keeps the vector,
/// the keys (as ranges), and a digest of each block of rows as they were before and after. Rows
/// whose change was not exactly the translation both ways (in floating point, or because a kept
/// column changed) are copied into an ordinary before- and after-image, its *exceptions*.
///
/// Undo checks the digests (the rows still hold what the entry left), moves every other row
/// back by one `UPDATE` per key range, writes the exceptions' before-image back, and checks
/// the digests again against the before state: an undo that would not give back exactly the
/// rows as they were is refused. Redo does the same the other way.
final class MoveImage {
    /// Rows per digest. A conflict is reported for the block it is found in.
    static let blockSize = 64

    let entry: Int64
    let sequence: Int
    let columns: [MovedColumn]
    let dx: Double
    let dy: Double
    var keys: KeyRanges
    var beforeDigests: [UInt64]
    var afterDigests: [UInt64] = []
    /// The rows not restored by moving back; its row count grows as they are reported.
    var exceptions: BulkImage

    var table: String { exceptions.target.table }
    var rowCount: Int { keys.count }

    init(entry: Int64, sequence: Int, columns: [MovedColumn], dx: Double, dy: Double, keys: KeyRanges,
         beforeDigests: [UInt64], afterDigests: [UInt64], exceptions: BulkImage) {
        self.entry = entry
        self.sequence = sequence
        self.columns = columns
        self.dx = dx
        self.dy = dy
        self.keys = keys
        self.beforeDigests = beforeDigests
        self.afterDigests = afterDigests
        self.exceptions = exceptions
    }

    // MARK: Recording

    /// An image whose rows are learned as they are reported (`JournalMove`), with its (empty)
    /// exception image.
    static func begin(_ target: BulkImage.Target, columns: [MovedColumn], dx: Double, dy: Double, entry: Int64, sequence: Int,
                      on connection: Connection) throws -> MoveImage {
        MoveImage(entry: entry, sequence: sequence, columns: columns, dx: dx, dy: dy, keys: KeyRanges(),
                  beforeDigests: [], afterDigests: [], exceptions: try BulkImage.begin(target, entry: entry, sequence: sequence, on: connection))
    }

    /// Takes `rows` (in any order; sorted here) as the image's keys and before digests, and
    /// their after digests when every one is known (otherwise `finish` reads them).
    ///
    /// - Throws: `JournalError.unsupportedBulkChange` when a key comes twice.
    func setRows(_ rows: inout [(key: Int64, before: UInt64, after: UInt64?)]) throws {
        rows.sort { $0.key < $1.key }
        var keys = KeyRanges()
        var before = BlockDigests(), after = BlockDigests()
        var afterKnown = true
        for (index, row) in rows.enumerated() {
            if index > 0, rows[index - 1].key == row.key {
                throw JournalError.unsupportedBulkChange(table: table, reason: "its row \(row.key) was reported twice")
            }
            keys.append(row.key)
            before.add(row.before)
            if let digest = row.after { after.add(digest) } else { afterKnown = false }
        }
        self.keys = keys
        beforeDigests = before.finish()
        afterDigests = afterKnown && !rows.isEmpty ? after.finish() : []
    }

    /// Whether the row `statement` is on (its key, then the declared columns) comes back bit for
    /// bit when moved by (dx, dy) and back, as `translate` moves it. Copies nothing.
    func movesBackExactly(row statement: Statement) -> Bool {
        for (index, column) in columns.enumerated() where !statement.isNull(index + 1) {
            switch column {
            case .kept:
                continue
            case .x, .y:
                let d = if case .x = column { dx } else { dy }
                guard sqlite3_column_type(statement.handle, Int32(index + 1)) == SQLITE_FLOAT else { return false }
                let value = statement.double(index + 1)
                guard (value + d - d).bitPattern == value.bitPattern else { return false }
            case .geometry:
                guard statement.withBlob(index + 1, { GeoPackageGeometry.movesBackExactly($0, dx: dx, dy: dy) }) else { return false }
            }
        }
        return true
    }

    /// `values` of the declared columns moved by (dx, dy).
    ///
    /// - Throws: `StoreError.corruptGeometry` for a geometry blob that cannot be moved.
    func translated(_ values: [SQLValue], key: Int64) throws -> [SQLValue] {
        try zip(columns, values).map { column, value in
            switch (column, value) {
            case (.geometry, .blob(var blob)):
                do {
                    try GeoPackageGeometry.translate(blob: &blob, dx: dx, dy: dy)
                } catch {
                    throw StoreError.corruptGeometry(table: table, fid: key, reason: "\(error)")
                }
                return .blob(blob)
            case (.x, .real(let x)): return .real(x + dx)
            case (.y, .real(let y)): return .real(y + dy)
            default: return value
            }
        }
    }

    /// Keeps row `key`'s `before` values as an exception.
    func keep(key: Int64, _ before: [SQLValue], on connection: Connection) throws {
        let target = exceptions.target
        try connection.run("""
            INSERT INTO \(quoteIdentifier(exceptions.beforeTable))
                (\(quoteIdentifier(target.key)), \(target.columns.map(quoteIdentifier).joined(separator: ", ")))
            VALUES (?\(String(repeating: ", ?", count: target.columns.count)))
            """, [.integer(key)] + before)
        exceptions.rowCount += 1
    }

    /// Whether `after` is `before` moved by (dx, dy) and `before` is `after` moved back, bit for
    /// bit in every column.
    func isTranslation(from before: [SQLValue], to after: [SQLValue]) -> Bool {
        for (index, column) in columns.enumerated() {
            let (b, a) = (before[index], after[index])
            switch column {
            case .kept:
                guard b == a else { return false }
            case .x, .y:
                let d = if case .x = column { dx } else { dy }
                if b.isNull && a.isNull { continue }
                guard case .real(let old) = b, case .real(let new) = a, (old + d).bitPattern == new.bitPattern,
                      (new - d).bitPattern == old.bitPattern else { return false }
            case .geometry:
                if b.isNull && a.isNull { continue }
                guard case .blob(let old) = b, case .blob(let new) = a,
                      old.withUnsafeBytes({ o in new.withUnsafeBytes { GeoPackageGeometry.isExactTranslation(from: o, to: $0, dx: dx, dy: dy) } })
                else { return false }
            }
        }
        return true
    }

    /// At the end of the entry: the after digests and the exceptions' after-image.
    ///
    /// - Throws: `JournalError.unsupportedBulkChange` when a declared row was deleted or rows
    ///   were inserted or deleted.
    /// The after digests are read from the table unless they are known already (from the
    /// reported values).
    func finish(on connection: Connection) throws {
        if afterDigests.isEmpty, rowCount > 0 {
            switch try digests(on: connection) {
            case .missing(let key):
                throw JournalError.unsupportedBulkChange(table: table, reason: "its row \(key) was deleted, which a bulk edit cannot record")
            case .digests(let digests):
                afterDigests = digests
            }
        }
        try exceptions.captureAfter(on: connection)
        try connection.run("""
            INSERT INTO annolink_journal_moves (entry_id, sequence, table_name, columns, dx, dy, row_count, keys,
              before_digests, after_digests, exceptions_before, exceptions_after, exception_count)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(entry), .integer(Int64(sequence)), .text(table), .text(columns.map(\.stored).joined(separator: "\n")),
                  .real(dx), .real(dy), .integer(Int64(rowCount)), .blob(keys.encoded), .blob(Self.encode(beforeDigests)),
                  .blob(Self.encode(afterDigests)), .text(exceptions.beforeTable), .text(exceptions.afterTable),
                  .integer(Int64(exceptions.rowCount))])
    }

    // MARK: Undo and redo

    enum Scan {
        case digests([UInt64])
        /// The first declared key whose row is gone.
        case missing(Int64)
    }

    /// The digests of the declared rows as they are now.
    func digests(on connection: Connection) throws -> Scan {
        let target = exceptions.target
        let read = try connection.prepareUncached("""
            SELECT \(quoteIdentifier(target.key)), \(target.columns.map(quoteIdentifier).joined(separator: ", "))
            FROM \(quoteIdentifier(target.table)) WHERE \(quoteIdentifier(target.key)) BETWEEN ?1 AND ?2 ORDER BY \(quoteIdentifier(target.key))
            """)
        var digests = BlockDigests()
        for range in keys.ranges {
            read.reset()
            try read.bind(range.first, at: 1)
            try read.bind(range.last, at: 2)
            var expected = range.first
            while try read.step() {
                let key = read.int64(0)
                if key != expected { return .missing(expected) }
                digests.add(BlockDigests.digest(row: read, key: key, columns: target.columns.count))
                expected += 1
            }
            if expected <= range.last { return .missing(expected) }
        }
        return .digests(digests.finish())
    }

    /// The keys of the first block whose digest differs from `expected`, or nil.
    func firstDifferentBlock(from expected: [UInt64], on connection: Connection) throws -> (first: Int64, last: Int64, deleted: Bool)? {
        switch try digests(on: connection) {
        case .missing(let key):
            return (key, key, true)
        case .digests(let found):
            // The keys are the same, so the counts are too unless the stored digests are damaged.
            guard let block = found.indices.first(where: { $0 >= expected.count || found[$0] != expected[$0] })
                    ?? (found.count == expected.count ? nil : found.count) else {
                return nil
            }
            return (keys.key(at: block * Self.blockSize), keys.key(at: min((block + 1) * Self.blockSize, rowCount) - 1), false)
        }
    }

    /// Moves every declared row that is not an exception by `sign` × (dx, dy): −1 for undo,
    /// +1 for redo. One `UPDATE` per key range.
    func move(_ sign: Double, on connection: Connection) throws {
        let assignments = columns.compactMap(\.moveAssignment)
        guard !assignments.isEmpty else { return }
        let key = quoteIdentifier(exceptions.target.key)
        let statement = try connection.prepareUncached("""
            UPDATE \(quoteIdentifier(table)) SET \(assignments.joined(separator: ", "))
            WHERE \(key) BETWEEN ?1 AND ?2 AND \(key) NOT IN (SELECT \(key) FROM \(quoteIdentifier(exceptions.beforeTable)))
            """)
        try statement.run(over: keys.ranges, dx: sign * dx, dy: sign * dy)
    }

    /// Loads the move images of `entry`, in the order they were taken; none when the file's
    /// journal has no `annolink_journal_moves` table (it was made before there were any).
    static func load(entry: Int64, on connection: Connection) throws -> [MoveImage] {
        guard try JournalSchema.hasMoves(on: connection) else { return [] }
        return try connection.rows("""
            SELECT sequence, table_name, columns, dx, dy, keys, before_digests, after_digests, exceptions_before,
              exceptions_after, exception_count
            FROM annolink_journal_moves WHERE entry_id = ? ORDER BY sequence
            """, [.integer(entry)]).map { row in
            func corrupt(_ reason: String) -> JournalError { .corrupt(entry: entry, reason: reason) }
            guard let sequence = row[0].integerValue, let table = row[1].textValue, let stored = row[2].textValue,
                  case .real(let dx) = row[3], case .real(let dy) = row[4], let keys = row[5].blobValue.flatMap(KeyRanges.init(encoded:)),
                  let before = row[6].blobValue.flatMap(decode), let after = row[7].blobValue.flatMap(decode),
                  let exceptionsBefore = row[8].textValue, let exceptionsAfter = row[9].textValue,
                  let exceptionCount = row[10].integerValue else {
                throw corrupt("a row of annolink_journal_moves cannot be read")
            }
            let columns = stored.split(separator: "\n").compactMap(MovedColumn.init(stored:))
            let blocks = (keys.count + blockSize - 1) / blockSize
            guard !columns.isEmpty, before.count == blocks, after.count == blocks else {
                throw corrupt("its move image of \(table) is damaged")
            }
            let key = try connection.rows("SELECT name FROM pragma_table_info(?) WHERE pk > 0", [.text(exceptionsBefore)]).first?[0].textValue
            guard let key else { throw corrupt("its image table \(exceptionsBefore) is missing") }
            let exceptions = BulkImage(
                target: .init(table: table, key: key, columns: columns.map(\.name)), entry: entry, sequence: Int(sequence),
                beforeTable: exceptionsBefore, afterTable: exceptionsAfter, rowCount: Int(exceptionCount))
            return MoveImage(entry: entry, sequence: Int(sequence), columns: columns, dx: dx, dy: dy, keys: keys,
                             beforeDigests: before, afterDigests: after, exceptions: exceptions)
        }
    }

    static func encode(_ digests: [UInt64]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digests.count * 8)
        for d in digests { withUnsafeBytes(of: d.littleEndian) { bytes.append(contentsOf: $0) } }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> [UInt64]? {
        guard bytes.count % 8 == 0 else { return nil }
        return stride(from: 0, to: bytes.count, by: 8).map { offset in
            bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }
}
