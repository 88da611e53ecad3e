import AnnoLinkGeometry
import AnnoLinkStore

/// An annolink data set in a PostGIS database as a `FeatureStore`: the edit service, the
/// annotation engine and the journal run on it as on a GeoPackage (docs/postgis.md).
///
/// Locking: inside an edit (`journal().recordEdit`, one PostgreSQL transaction) every feature
/// and annotation row the edit reads is read `FOR UPDATE`, with its row image taken for the
/// journal in the same statement; so two editors of the same feature serialize — the second
/// waits for the first to commit and then reads what it wrote — and neither edit is lost. Rows
/// are written with `RETURNING` their new image. The bulk move is set-based SQL
/// (`translate`). Not `Sendable`: one store (one connection) per thread.
public final class PostGISStore: FeatureStore {
    /// The connection, this store's only one.
    public let connection: PostgreSQLConnection
    var tableCache: [String: FeatureTable] = [:]
    var systems: [Int64: (system: SpatialReferenceSystem, srid: Int32)] = [:]
    /// The registry's hash when the layout caches were last made current (`followLayout`).
    var layoutFingerprint: String?
    weak var journalCache: PostGISJournal?
    /// The edit being recorded: row images by table and fid (nil outside an edit).
    var recording: EditRecording?
    /// The connection's `statement_timeout` in milliseconds while `withStatementTimeLimit`
    /// runs; nil outside it (no limit).
    var statementTimeout: Int?

    /// Opens the data set in the database `text` names (`postgresql://…`, `PG:…`).
    ///
    /// - Throws: `PostgreSQLError` when the server cannot be reached; `StoreError.invalidData`
    ///   when the database holds no annolink data set.
    public init(_ text: String) throws {
        connection = try PostgreSQLConnection(text)
        // In the same round trip: this session's writes are annolink's own, which the change
        // capture's triggers pass over (`PostGISStore+ChangeCapture`).
        let opened = try connection.query("SELECT to_regclass('annolink.layout') IS NOT NULL, set_config('annolink.writing', 'on', false)")
        guard opened.rows.first?[0].boolValue == true else {
            throw StoreError.invalidData("\(connection.connectionString.redacted) holds no annolink data set (no annolink schema); `annolink copy` puts one there")
        }
    }

    public var location: String { connection.connectionString.redacted }

    // MARK: Layout

    public func featureTableNames() throws -> [String] {
        try connection.query("SELECT table_name FROM annolink.contents WHERE data_type = 'features' ORDER BY position, table_name")
            .rows.compactMap { $0[0].textValue }
    }

    public func featureTable(_ name: String) throws -> FeatureTable {
        if let known = tableCache[name.lowercased()] { return known }
        guard let g = try connection.query("""
            SELECT table_name, column_name, geometry_type_name, srs_id, z, m FROM annolink.geometry_columns
            WHERE lower(table_name) = lower($1) ORDER BY table_name = $1 DESC LIMIT 1
            """, [.text(name)]).rows.first, let tableName = g[0].textValue, let geometryColumn = g[1].textValue
        else { throw StoreError.unknownTable(name) }
        let columns = try connection.query("""
            SELECT column_name, declared_type, not_null, default_sql, primary_key FROM annolink.columns WHERE table_name = $1 ORDER BY position
            """, [.text(tableName)]).rows.map { r in
            Column(name: r[0].textValue ?? "", type: r[1].textValue ?? "", isNotNull: r[2].boolValue ?? false, defaultSQL: r[3].textValue,
                   isPrimaryKey: r[4].boolValue ?? false)
        }
        let table = FeatureTable(
            name: tableName, geometryColumn: geometryColumn, primaryKey: columns.first(where: \.isPrimaryKey)?.name ?? "fid",
            geometryTypeName: g[2].textValue ?? "GEOMETRY", srsID: g[3].integerValue ?? 0, hasZ: (g[4].integerValue ?? 0) == 1,
            hasM: (g[5].integerValue ?? 0) == 1, columns: columns, hasSpatialIndex: true)
        tableCache[name.lowercased()] = table
        return table
    }

    public func spatialReferenceSystem(_ srsID: Int64) throws -> SpatialReferenceSystem? {
        try system(srsID)?.system
    }

    /// The CRS row `srsID` and the PostGIS SRID it maps to.
    func system(_ srsID: Int64) throws -> (system: SpatialReferenceSystem, srid: Int32)? {
        if let known = systems[srsID] { return known }
        guard let r = try connection.query("""
            SELECT srs_id, srs_name, organization, organization_coordsys_id, definition, description, srid
            FROM annolink.spatial_ref_sys WHERE srs_id = $1
            """, [.int8(srsID)]).rows.first else { return nil }
        let found = (SpatialReferenceSystem(
            srsID: srsID, name: r[1].textValue ?? "", organization: r[2].textValue ?? "", organizationCoordsysID: r[3].integerValue ?? 0,
            definition: r[4].textValue ?? "", description: r[5].textValue), Int32(r[6].integerValue ?? 0))
        systems[srsID] = found
        return found
    }

    /// The SRID geometries of `table` are written with.
    func srid(of table: FeatureTable) throws -> Int32 {
        try system(table.srsID)?.srid ?? 0
    }

    public func annotationTableNames() throws -> [String] {
        try connection.query("""
            SELECT a.table_name FROM annolink.annotation_tables a JOIN annolink.contents c ON c.table_name = a.table_name
            WHERE c.data_type = 'features' ORDER BY c.position, a.table_name
            """).rows.compactMap { $0[0].textValue }
    }

    public func annotationClasses() throws -> [AnnotationClass] {
        try connection.query("""
            SELECT annotation_table, class_id, name, origin_table, where_clause, expression, font_name, font_size,
                   horizontal_alignment, vertical_alignment, reference_scale, placement, placement_offset,
                   placement_parameters, auto_create, update_on_shape_change
            FROM annolink.annotation_classes ORDER BY annotation_table, class_id
            """).rows.map { r in
            guard let table = r[0].textValue, let classID = r[1].integerValue, let origin = r[3].textValue,
                  let placement = r[11].textValue.flatMap(PlacementStyle.init(rawValue:)) else {
                throw StoreError.invalidData("a row of annolink.annotation_classes cannot be read")
            }
            return AnnotationClass(
                annotationTable: table, classID: classID, name: r[2].textValue ?? "", originTable: origin, whereClause: r[4].textValue,
                expression: r[5].textValue ?? "", fontName: r[6].textValue ?? "", fontSize: r[7].doubleValue ?? 0,
                horizontalAlignment: Int(r[8].integerValue ?? 1), verticalAlignment: Int(r[9].integerValue ?? 2),
                referenceScale: r[10].doubleValue ?? 0, placement: placement, placementOffset: r[12].doubleValue ?? 0,
                placementParameters: r[13].textValue, autoCreate: r[14].boolValue ?? false, updateOnShapeChange: r[15].boolValue ?? false)
        }
    }

    /// Checked by SQLite's rules on a twin of the table, names quoted for PostgreSQL
    /// (`SQLCondition.checked(_:on:)`).
    public func checkedCondition(_ clause: String, on table: String) throws -> SQLCondition {
        try SQLCondition.checked(clause, on: featureTable(table))
    }

    public func feature(_ table: FeatureTable, fid: Int64, meets condition: SQLCondition) throws -> Bool {
        try flush(table.name)
        return try connection.query(
            "SELECT count(*) FROM \(qualified(table)) WHERE \(quoteIdentifier(table.primaryKey)) = $1 AND \(condition.sql)",
            [.int8(fid)]).scalar?.integerValue == 1
    }

    /// In one statement.
    public func fids(of table: FeatureTable, among fids: [Int64], meeting condition: SQLCondition) throws -> Set<Int64> {
        try flush(table.name)
        guard !fids.isEmpty else { return [] }
        let pk = quoteIdentifier(table.primaryKey)
        return Set(try connection.query(
            "SELECT \(pk) FROM \(qualified(table)) WHERE \(pk) = ANY($1::text::int8[]) AND \(condition.sql)", [.text(Self.array(fids))]
        ).rows.compactMap { $0[0].integerValue })
    }

    // MARK: Values

    /// `schema.table`, quoted.
    func qualified(_ table: FeatureTable) -> String { PostGISLayout.qualified(table.name) }

    /// A value read from PostgreSQL as the GeoPackage layout (SQLite) holds it: integers and
    /// booleans as integers (0 and 1), floats as reals, text as text, bytea and any other
    /// binary value as a blob. The store's reads and `annolink copy` to a GeoPackage use it.
    static func sqlValue(_ value: PostgreSQLValue) -> SQLValue {
        switch value {
        case .null: .null
        case .bool(let b): .integer(b ? 1 : 0)
        case .int2, .int4, .int8: .integer(value.integerValue ?? 0)
        case .float4, .float8: .real(value.doubleValue ?? 0)
        case .text(let s): .text(s)
        case .bytea(let b), .binary(_, let b): .blob(b)
        }
    }

    /// `value` as a parameter for `column` (PostGISLayout's types: bigint, double precision,
    /// boolean, text, bytea).
    public static func parameter(_ value: SQLValue, for column: Column?) -> PostgreSQLValue {
        let affinity = column?.affinity ?? .text
        switch value {
        case .null: return .null
        case .integer(let i):
            switch affinity {
            case .boolean: return .bool(i != 0)
            case .real: return .float8(Double(i))
            case .text, .date, .dateTime: return .text(String(i))
            default: return .int8(i)
            }
        case .real(let d):
            switch affinity {
            case .integer where d.rounded() == d && abs(d) < 9.2e18: return .int8(Int64(d))
            case .boolean: return .bool(d != 0)
            case .text, .date, .dateTime: return .text(String(d))
            default: return .float8(d)
            }
        case .text(let s):
            switch affinity {
            case .integer: return Int64(s).map { .int8($0) } ?? .text(s)
            case .real: return Double(s).map { .float8($0) } ?? .text(s)
            default: return .text(s)
            }
        case .blob(let b): return .bytea(b)
        }
    }

    /// A geometry as a parameter (EWKB with the table's SRID; the server infers the type).
    func parameter(_ geometry: Geometry?, for table: FeatureTable) throws -> PostgreSQLValue {
        guard let geometry else { return .null }
        return .binary(oid: 0, bytes: EWKB.encode(geometry, srid: try srid(of: table)))
    }

    /// The geometry in a result value, or nil for NULL.
    static func geometry(_ value: PostgreSQLValue, table: FeatureTable, fid: Int64) throws -> Geometry? {
        guard let bytes = value.bytesValue else { return nil }
        do {
            return try EWKB.decode(bytes).geometry
        } catch {
            throw StoreError.corruptGeometry(table: table.name, fid: fid, reason: "\(error)")
        }
    }

    public func withoutCommitting<T>(_ body: () throws -> T) throws -> T {
        var result: T?
        do {
            try connection.inTransaction {
                result = try body()
                throw RolledBack()
            }
        } catch is RolledBack {}
        return result!
    }

    public func journal() throws -> any EditJournal {
        try editJournal()
    }

    /// The store's journal, shared while anyone holds it.
    public func editJournal() throws -> PostGISJournal {
        if let journalCache { return journalCache }
        let made = PostGISJournal(store: self)
        journalCache = made
        return made
    }
}

/// Thrown to roll a dry run's transaction back.
private struct RolledBack: Error {}

@available(*, unavailable)
extension PostGISStore: Sendable {}
