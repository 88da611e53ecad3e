import AnnoLinkGeometry
import CSQLite

/// What a column of a moved row does when the rows move by (dx, dy).
public enum MovedColumn: Hashable, Sendable {
    /// A GeoPackage geometry blob: every vertex and its envelope move.
    case geometry(String)
    /// A real holding an x coordinate: dx is added.
    case x(String)
    /// A real holding a y coordinate: dy is added.
    case y(String)
    /// A column the move is expected to leave as it is (it may still change; see `JournalMove`).
    case kept(String)

    public var name: String {
        switch self {
        case .geometry(let n), .x(let n), .y(let n), .kept(let n): n
        }
    }

    /// "g:geom", "x:AnchorX", …: how `annolink_journal_moves.columns` stores it.
    var stored: String {
        switch self {
        case .geometry(let n): "g:" + n
        case .x(let n): "x:" + n
        case .y(let n): "y:" + n
        case .kept(let n): "k:" + n
        }
    }

    init?(stored: Substring) {
        guard stored.count > 2, stored.dropFirst().first == ":" else { return nil }
        let name = String(stored.dropFirst(2))
        switch stored.first {
        case "g": self = .geometry(name)
        case "x": self = .x(name)
        case "y": self = .y(name)
        case "k": self = .kept(name)
        default: return nil
        }
    }
}

/// The rows of one table that a bulk entry moves by a vector, as the body of `Journal.record`
/// reports them (`JournalRecorder.captureMove`). Not `Sendable`; valid only inside the body.
public final class JournalMove {
    let image: MoveImage
    private let connection: Connection
    /// What each column's affinity does to a value stored in it, to know whether a reported
    /// `after` value is what a read will find.
    private let affinities: [StorageAffinity]
    /// Every reported row: its key and the digests of its values before and after (nil when
    /// the stored values may differ from the reported ones, and must be read back).
    private var rows: [(key: Int64, before: UInt64, after: UInt64?)] = []

    /// How many rows were reported.
    public private(set) var rowCount = 0

    /// How many rows the table had when the move was declared.
    public var tableRowCount: Int64 { image.exceptions.tableRowCount }

    init(image: MoveImage, affinities: [StorageAffinity], on connection: Connection) {
        self.image = image
        self.affinities = affinities
        self.connection = connection
    }

    /// Reports that row `key` went from `before` to `after`: the declared columns' values, in
    /// the order they were declared, `before` exactly as SQLite handed them over, `after` as
    /// written. When the change is the translation both ways — `after` is `before` moved by
    /// (dx, dy) and `before` is `after` moved back, bit for bit — only the row's key and digests
    /// are kept: undo moves the row back. Otherwise its `before` values are kept in the entry,
    /// and undo writes them back. Report each row once.
    public func changed(key: Int64, before: [SQLValue], after: [SQLValue]) throws {
        precondition(before.count == image.columns.count && after.count == image.columns.count, "one value per declared column")
        let stored = zip(after, affinities).allSatisfy { $1.keeps($0) }
        rows.append((key, BlockDigests.digest(key: key, values: before), stored ? BlockDigests.digest(key: key, values: after) : nil))
        rowCount += 1
        if image.isTranslation(from: before, to: after) { return }
        try image.keep(key: key, before, on: connection)
    }

    /// At the end of the entry: the reported rows become the image's keys and digests.
    ///
    /// - Throws: `JournalError.unsupportedBulkChange` when a row was reported twice.
    func finishReports() throws {
        try image.setRows(&rows)
        rows = []
    }
}

/// How a column's declared type makes SQLite store a value (its type affinity, SQLite's
/// "Datatypes In SQLite" §3.1), to tell whether a value keeps its storage class. Not the
/// GeoPackage data type class (`ColumnAffinity`).
enum StorageAffinity {
    case integer, text, blob, real, numeric

    init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// Whether `value` is stored as it is: blobs and NULL always are; text only in a TEXT or
    /// untyped column; a real in a REAL or untyped column, and never a NaN (stored as NULL); an
    /// integer anywhere but in a TEXT or REAL column.
    func keeps(_ value: SQLValue) -> Bool {
        switch value {
        case .null, .blob: true
        case .text: self == .text || self == .blob
        case .real(let v): !v.isNaN && (self == .real || self == .blob)
        case .integer: self != .text && self != .real
        }
    }
}

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

    /// For a move the journal makes itself (`JournalRecorder.translate`): takes the keys and the
    /// before digests of the rows of `target` selected by `condition`, and keeps the rows that
    /// moving by (dx, dy) and back would not give back bit for bit as exceptions.
    ///
    /// - Throws: `StoreError.corruptGeometry` for a blob that is not a GeoPackage geometry.
    static func capture(_ target: BulkImage.Target, columns: [MovedColumn], dx: Double, dy: Double, entry: Int64, sequence: Int,
                        rowsWhere condition: String, bindings: [SQLValue], on connection: Connection) throws -> MoveImage {
        let image = MoveImage(entry: entry, sequence: sequence, columns: columns, dx: dx, dy: dy, keys: KeyRanges(),
                              beforeDigests: [], afterDigests: [], exceptions: try BulkImage.begin(target, entry: entry, sequence: sequence, on: connection))
        // Read in whatever order SQLite finds best and sorted here: an ORDER BY on the key
        // made SQLite sort every selected row with its values (a second for a million rows
        // selected through an index).
        let read = try connection.prepareUncached("""
            SELECT \(quoteIdentifier(target.key)), \(target.columns.map(quoteIdentifier).joined(separator: ", "))
            FROM \(quoteIdentifier(target.table)) WHERE (\(condition))
            """)
        try read.bind(bindings)
        var rows: [(key: Int64, before: UInt64, after: UInt64?)] = []
        while try read.step() {
            let key = read.int64(0)
            rows.append((key, BlockDigests.digest(row: read, key: key, columns: target.columns.count), nil))
            if !image.movesBackExactly(row: read) {
                let before = (1...target.columns.count).map(read.value)
                _ = try image.translated(before, key: key)      // throws for a corrupt geometry
                try image.keep(key: key, before, on: connection)
            }
        }
        try image.setRows(&rows)
        return image
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
            INSERT INTO \(quoteIdentifier(exceptions.beforeTable)) (\(quoteIdentifier(target.key)), \(target.columns.map(quoteIdentifier).joined(separator: ", ")))
            VALUES (?\(String(repeating: ", ?", count: target.columns.count)))
            """, [.integer(key)] + before)
        exceptions.rowCount += 1
    }

    /// Moves every declared row by (dx, dy) with one `UPDATE` per run of keys: the move the
    /// journal makes itself (`JournalRecorder.translate`).
    func moveAll(on connection: Connection) throws {
        try move(1, skippingExceptions: false, on: connection)
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
    func move(_ sign: Double, skippingExceptions: Bool = true, on connection: Connection) throws {
        let (ddx, ddy) = (sign * dx, sign * dy)
        let assignments = columns.compactMap { column -> String? in
            let c = quoteIdentifier(column.name)
            switch column {
            case .geometry: return "\(c) = annolink_translate(\(c), ?3, ?4)"
            case .x: return "\(c) = \(c) + ?3"
            case .y: return "\(c) = \(c) + ?4"
            case .kept: return nil
            }
        }
        guard !assignments.isEmpty else { return }
        let key = quoteIdentifier(exceptions.target.key)
        let statement = try connection.prepareUncached("""
            UPDATE \(quoteIdentifier(table)) SET \(assignments.joined(separator: ", "))
            WHERE \(key) BETWEEN ?1 AND ?2\(skippingExceptions ? " AND \(key) NOT IN (SELECT \(key) FROM \(quoteIdentifier(exceptions.beforeTable)))" : "")
            """)
        for range in keys.ranges {
            statement.reset()
            try statement.bind([.integer(range.first), .integer(range.last), .real(ddx), .real(ddy)])
            while try statement.step() {}
        }
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

/// Ascending keys stored as runs of consecutive integers: a move of a fid range is one run.
struct KeyRanges {
    struct Range { var first: Int64; var last: Int64 }
    private(set) var ranges: [Range] = []
    /// The index of each range's first key among all keys.
    private var offsets: [Int] = []
    private(set) var count = 0

    /// Appends `key`, which must be above every key appended before.
    mutating func append(_ key: Int64) {
        if let last = ranges.last?.last, last != Int64.max, key == last + 1 {
            ranges[ranges.count - 1].last = key
        } else {
            precondition(ranges.last.map { key > $0.last } ?? true, "keys must ascend")
            ranges.append(Range(first: key, last: key))
            offsets.append(count)
        }
        count += 1
    }

    /// The `index`-th key in ascending order.
    func key(at index: Int) -> Int64 {
        precondition(index >= 0 && index < count, "index \(index) beyond \(count) keys")
        var low = 0, high = ranges.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if offsets[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return ranges[low].first + Int64(index - offsets[low])
    }

    /// Pairs of 64-bit little-endian integers (first, last).
    var encoded: [UInt8] {
        MoveImage.encode(ranges.flatMap { [UInt64(bitPattern: $0.first), UInt64(bitPattern: $0.last)] })
    }

    init() {}

    init?(encoded bytes: [UInt8]) {
        guard let values = MoveImage.decode(bytes), values.count % 2 == 0 else { return nil }
        for pair in stride(from: 0, to: values.count, by: 2) {
            let range = Range(first: Int64(bitPattern: values[pair]), last: Int64(bitPattern: values[pair + 1]))
            guard range.first <= range.last, ranges.last.map({ range.first > $0.last }) ?? true else { return nil }
            ranges.append(range)
            offsets.append(count)
            count += Int(range.last - range.first) + 1
        }
    }
}

/// 64-bit digests of rows, one per `MoveImage.blockSize` rows: each row's digest (its key and
/// every value with its storage class, mixed 8 bytes at a time) mixed in key order. Meant to
/// notice changes, not to resist forgery.
struct BlockDigests {
    private var digests: [UInt64] = []
    private var state = Mixer()
    private var rowsInBlock = 0

    /// Adds the next row's digest.
    mutating func add(_ rowDigest: UInt64) {
        state.mix(rowDigest)
        rowsInBlock += 1
        if rowsInBlock == MoveImage.blockSize { endBlock() }
    }

    /// The digests, the last block possibly short.
    mutating func finish() -> [UInt64] {
        if rowsInBlock > 0 { endBlock() }
        return digests
    }

    private mutating func endBlock() {
        digests.append(state.value)
        state = Mixer()
        rowsInBlock = 0
    }

    /// The digest of `key` and `values`: the same as `digest(row:key:columns:)` gives for a row
    /// holding them.
    static func digest(key: Int64, values: [SQLValue]) -> UInt64 {
        var state = Mixer()
        state.mix(UInt64(bitPattern: key))
        for value in values {
            switch value {
            case .integer(let v):
                state.mix(1)
                state.mix(UInt64(bitPattern: v))
            case .real(let v):
                state.mix(2)
                state.mix(v.bitPattern)
            case .text(let text):
                var text = text
                text.withUTF8 { state.mix(3, bytes: UnsafeRawBufferPointer($0)) }
            case .blob(let bytes):
                bytes.withUnsafeBytes { state.mix(4, bytes: $0) }
            case .null:
                state.mix(0)
            }
        }
        return state.value
    }

    /// The digest of the row `statement` is on: `key`, then columns 1…`columns`.
    static func digest(row statement: Statement, key: Int64, columns: Int) -> UInt64 {
        var state = Mixer()
        state.mix(UInt64(bitPattern: key))
        for index in 1...columns {
            let i = Int32(index)
            switch sqlite3_column_type(statement.handle, i) {
            case SQLITE_INTEGER:
                state.mix(1)
                state.mix(UInt64(bitPattern: sqlite3_column_int64(statement.handle, i)))
            case SQLITE_FLOAT:
                state.mix(2)
                state.mix(sqlite3_column_double(statement.handle, i).bitPattern)
            case SQLITE_TEXT:
                let pointer = UnsafeRawPointer(sqlite3_column_text(statement.handle, i))
                state.mix(3, bytes: UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement.handle, i))))
            case SQLITE_BLOB:
                let pointer = sqlite3_column_blob(statement.handle, i)
                state.mix(4, bytes: UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(statement.handle, i))))
            default:
                state.mix(0)
            }
        }
        return state.value
    }
}

private struct Mixer {
    private(set) var value: UInt64 = 0

    mutating func mix(_ tag: UInt64, bytes: UnsafeRawBufferPointer) {
        mix(tag)
        mix(UInt64(bytes.count))
        var offset = 0
        while offset + 8 <= bytes.count {
            mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for i in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[i]) }
            mix(tail)
        }
    }

    mutating func mix(_ word: UInt64) {
        value = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
        value ^= value >> 31
    }
}
