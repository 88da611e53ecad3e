import CLibPQ

/// The rows a statement returned, read out of libpq's `PGresult` (which is cleared at once):
/// column names and type OIDs, and every value decoded from the binary format.
///
/// For small and medium results (catalogue reads, one feature, a page of features); a whole
/// table streams through `PostgreSQLConnection.copyOut(query:_:)` instead.
public struct PostgreSQLResult: Sendable {
    /// The column names, in order.
    public var columnNames: [String]
    /// The type OID of each column (`PostgreSQLValue.TypeOID`, or a PostGIS type's OID).
    public var columnTypes: [UInt32]
    /// The rows, each with one value per column.
    public var rows: [[PostgreSQLValue]]
    /// The number of rows the command changed or returned (`PQcmdTuples`): for INSERT, UPDATE,
    /// DELETE, COPY; 0 when the command reports none.
    public var affectedRows: Int

    /// The first value of the first row, or nil when there is no row.
    public var scalar: PostgreSQLValue? { rows.first?.first }

    /// Reads `result` (binary format when `binary`, text otherwise). Does not clear it.
    init(reading result: OpaquePointer, binary: Bool) throws {
        let fieldCount = Int(PQnfields(result)), rowCount = Int(PQntuples(result))
        columnNames = (0..<fieldCount).map { String(cString: PQfname(result, Int32($0))) }
        columnTypes = (0..<fieldCount).map { UInt32(PQftype(result, Int32($0))) }
        var rows: [[PostgreSQLValue]] = []
        rows.reserveCapacity(rowCount)
        for r in 0..<Int32(rowCount) {
            var row: [PostgreSQLValue] = []
            row.reserveCapacity(fieldCount)
            for f in 0..<Int32(fieldCount) {
                if PQgetisnull(result, r, f) == 1 {
                    row.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, r, f))
                let pointer = PQgetvalue(result, r, f)!
                let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
                if binary {
                    row.append(try PostgreSQLValue.decode(oid: columnTypes[Int(f)], bytes: bytes))
                } else {
                    row.append(.text(String(decoding: bytes, as: UTF8.self)))
                }
            }
            rows.append(row)
        }
        self.rows = rows
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}
