import AnnoLinkGeometry
import Foundation

/// An open GeoPackage file: the connection, with the GeoPackage SQL functions registered, and
/// the catalogue of its feature tables.
///
/// Every connection that writes must register `ST_IsEmpty`, `ST_MinX`, `ST_MaxX`, `ST_MinY`,
/// `ST_MaxY`, because the R-tree triggers call them; `GeoPackage` does so on open.
public final class GeoPackage {
    /// The SQLite connection. Use `connection.write { }` to group changes into one transaction.
    public let connection: Connection
    /// The path of the file.
    public var path: String { connection.path }
    private var tableCache: [String: FeatureTable] = [:]
    private var statementsByKey: [StatementKey: Statement] = [:]
    /// The journal `editJournal()` made, while someone holds it (weak: the journal holds the
    /// package).
    weak var journalCache: Journal?

    /// A statement annolink builds for a table, by kind and table name.
    struct StatementKey: Hashable {
        var kind: Int
        var table: String
    }

    /// Opens an existing GeoPackage.
    ///
    /// - Throws: `StoreError.missingFile` when there is no file, `StoreError.notAGeoPackage`
    ///   when it is not a SQLite file or lacks the GeoPackage core tables, `SQLiteError` for
    ///   other SQLite failures.
    public init(path: String, readOnly: Bool = false) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.missingFile(path: path) }
        do {
            // The journal mode stays as the file has it (GDAL writes rollback-journal files);
            // files annolink creates are WAL from the start (`create`).
            connection = try Connection(path: path, mode: readOnly ? .readOnly : .readWrite, journalMode: nil)
        } catch let error as SQLiteError where error.isNotADatabase {
            throw StoreError.notAGeoPackage(path: path, reason: "not a SQLite database")
        }
        try GeoPackageFunctions.register(on: connection)
        let tables = try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('gpkg_spatial_ref_sys', 'gpkg_contents', 'gpkg_geometry_columns')")
        guard tables.count == 3 else {
            throw StoreError.notAGeoPackage(path: path, reason: "it has no gpkg_spatial_ref_sys, gpkg_contents and gpkg_geometry_columns tables")
        }
        if !readOnly {
            try connection.execute("PRAGMA foreign_keys = ON")
            Self.markOwnWrites(connection)
        }
    }

    private init(connection: Connection) throws {
        self.connection = connection
        try GeoPackageFunctions.register(on: connection)
        Self.markOwnWrites(connection)
    }

    /// annolink's own transactions on `connection` pass the change capture by (docs/follow.md).
    private static func markOwnWrites(_ connection: Connection) {
        let marker = OwnWriteMarker()
        connection.ownWrites = { [unowned connection] writing in try marker.mark(connection, writing: writing) }
    }

    /// Creates a new, empty GeoPackage 1.3 at `path`: application id, user version, the core
    /// tables and the three required spatial reference systems (-1, 0, 4326).
    ///
    /// - Throws: `StoreError.fileExists` when a file is there already.
    public static func create(path: String) throws -> GeoPackage {
        guard !FileManager.default.fileExists(atPath: path) else { throw StoreError.fileExists(path: path) }
        let connection = try Connection(path: path, mode: .create)
        let package = try GeoPackage(connection: connection)
        try connection.write {
            try connection.execute("PRAGMA application_id = \(GeoPackageSchema.applicationID)")
            try connection.execute("PRAGMA user_version = \(GeoPackageSchema.userVersion)")
            try connection.execute(GeoPackageSchema.coreTables)
        }
        try connection.execute("PRAGMA foreign_keys = ON")
        return package
    }

    // MARK: Spatial reference systems

    /// Whether `gpkg_spatial_ref_sys` has a row for `srsID`.
    public func hasSpatialReferenceSystem(_ srsID: Int64) throws -> Bool {
        try connection.scalarInt("SELECT count(*) FROM gpkg_spatial_ref_sys WHERE srs_id = ?", [.integer(srsID)]) == 1
    }

    /// Adds `system` to `gpkg_spatial_ref_sys` unless a row with its id is there already.
    public func addSpatialReferenceSystem(_ system: SpatialReferenceSystem) throws {
        try connection.run("""
            INSERT OR IGNORE INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition, description)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.text(system.name), .integer(system.srsID), .text(system.organization), .integer(system.organizationCoordsysID),
                  .text(system.definition), SQLValue(system.description)])
    }

    /// The row of `gpkg_spatial_ref_sys` for `srsID`.
    public func spatialReferenceSystem(_ srsID: Int64) throws -> SpatialReferenceSystem? {
        let rows = try connection.rows(
            "SELECT srs_name, srs_id, organization, organization_coordsys_id, definition, description FROM gpkg_spatial_ref_sys WHERE srs_id = ?",
            [.integer(srsID)])
        guard let row = rows.first else { return nil }
        return SpatialReferenceSystem(
            srsID: row[1].integerValue ?? srsID, name: row[0].textValue ?? "", organization: row[2].textValue ?? "",
            organizationCoordsysID: row[3].integerValue ?? 0, definition: row[4].textValue ?? "", description: row[5].textValue)
    }

    // MARK: Feature tables

    /// The names of all feature tables, in `gpkg_contents` order.
    public func featureTableNames() throws -> [String] {
        try connection.rows("SELECT c.table_name FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name " +
                            "WHERE c.data_type = 'features' ORDER BY c.rowid")
            .compactMap { $0[0].textValue }
    }

    /// The feature table named `name` (matched case-insensitively, as SQLite does).
    ///
    /// - Throws: `StoreError.unknownTable` when there is no such feature table.
    public func featureTable(_ name: String) throws -> FeatureTable {
        if let cached = tableCache[name.lowercased()] { return cached }
        let rows = try connection.rows("""
            SELECT g.table_name, g.column_name, g.geometry_type_name, g.srs_id, g.z, g.m
            FROM gpkg_geometry_columns g JOIN gpkg_contents c ON c.table_name = g.table_name
            WHERE lower(g.table_name) = lower(?) AND c.data_type = 'features'
            """, [.text(name)])
        guard let row = rows.first, let tableName = row[0].textValue, let geometryColumn = row[1].textValue else {
            throw StoreError.unknownTable(name)
        }
        let columns = try connection.rows("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", [.text(tableName)]).map {
            Column(name: $0[0].textValue ?? "", type: $0[1].textValue ?? "", isNotNull: $0[2].integerValue == 1,
                   defaultSQL: $0[3].textValue, isPrimaryKey: ($0[4].integerValue ?? 0) > 0)
        }
        guard let pk = columns.first(where: \.isPrimaryKey) else {
            throw StoreError.notAGeoPackage(path: path, reason: "feature table '\(tableName)' has no INTEGER PRIMARY KEY")
        }
        let table = FeatureTable(
            name: tableName, geometryColumn: geometryColumn, primaryKey: pk.name,
            geometryTypeName: (row[2].textValue ?? "GEOMETRY").uppercased(), srsID: row[3].integerValue ?? 0,
            hasZ: (row[4].integerValue ?? 0) != 0, hasM: (row[5].integerValue ?? 0) != 0, columns: columns,
            hasSpatialIndex: try hasSpatialIndex(table: tableName, column: geometryColumn))
        tableCache[name.lowercased()] = table
        return table
    }

    /// Whether `gpkg_extensions` registers an R-tree for the column and the virtual table exists.
    func hasSpatialIndex(table: String, column: String) throws -> Bool {
        let registered = try connection.scalarInt("""
            SELECT count(*) FROM gpkg_extensions WHERE lower(table_name) = lower(?) AND lower(column_name) = lower(?) AND extension_name = 'gpkg_rtree_index'
            """, [.text(table), .text(column)]) ?? 0
        let exists = try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = ?",
            [.text(GeoPackageSchema.rtreeName(table: table, column: column))]) ?? 0
        return registered > 0 && exists > 0
    }

    /// Creates a feature table with `fid INTEGER PRIMARY KEY`, the geometry column and
    /// `columns`, registers it in `gpkg_contents` and `gpkg_geometry_columns`, and adds the
    /// R-tree spatial index with its triggers. Runs in one transaction.
    ///
    /// A bulk writer passes `spatialIndex: false`, inserts its rows, then calls
    /// `createSpatialIndex(table:column:)`, which builds the index in one pass instead of one
    /// trigger call per row.
    ///
    /// - Throws: `StoreError.tableExists`, `StoreError.unknownSpatialReference`.
    @discardableResult
    public func createFeatureTable(_ definition: FeatureTableDefinition, spatialIndex: Bool = true) throws -> FeatureTable {
        try connection.write {
            let exists = try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE lower(name) = lower(?)", [.text(definition.name)]) ?? 0
            guard exists == 0 else { throw StoreError.tableExists(definition.name) }
            guard try hasSpatialReferenceSystem(definition.srsID) else { throw StoreError.unknownSpatialReference(srsID: definition.srsID) }
            var parts = ["\"fid\" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", "\(quoteIdentifier(definition.geometryColumn)) \(definition.geometryTypeName)"]
            for column in definition.columns {
                var text = "\(quoteIdentifier(column.name)) \(column.type)"
                if column.isNotNull { text += " NOT NULL" }
                if let d = column.defaultSQL { text += " DEFAULT \(d)" }
                parts.append(text)
            }
            try connection.execute("CREATE TABLE \(quoteIdentifier(definition.name)) (\(parts.joined(separator: ", ")))")
            try connection.run("""
                INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, 'features', ?, ?, ?)
                """, [.text(definition.name), .text(definition.name), .text(definition.description), .integer(definition.srsID)])
            try connection.run("""
                INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m) VALUES (?, ?, ?, ?, 0, 0)
                """, [.text(definition.name), .text(definition.geometryColumn), .text(definition.geometryTypeName), .integer(definition.srsID)])
            if spatialIndex { try createSpatialIndex(table: definition.name, column: definition.geometryColumn) }
            tableCache[definition.name.lowercased()] = nil
            return try featureTable(definition.name)
        }
    }

    /// Adds the `gpkg_rtree_index` extension for a geometry column: the virtual table, the
    /// triggers and the `gpkg_extensions` row, filled from the rows already in the table.
    public func createSpatialIndex(table: String, column: String) throws {
        try connection.write {
            for statement in GeoPackageSchema.rtree(table: table, column: column) { try connection.execute(statement) }
            try connection.run("""
                INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope)
                VALUES (?, ?, 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')
                """, [.text(table), .text(column)])
            try fillSpatialIndex(table: table, column: column)
            tableCache[table.lowercased()] = nil
        }
    }

    /// Fills the R-tree from the table's geometries in one pass: the envelopes are read from
    /// the blob headers and the tree is packed by `RTreeBulkLoader`, which is many times faster
    /// than one trigger-driven insert per row.
    ///
    /// With `refitting`, the tree keeps its shape when it holds exactly the table's ids and
    /// stays as tight (`RTreeBulkLoader.refit`): for rows that all moved by one vector.
    ///
    /// - Throws: `StoreError.corruptGeometry` naming the first row whose blob cannot be read.
    public func fillSpatialIndex(table: String, column: String, refitting: Bool = false) throws {
        var entries: [RTreeEntry] = []
        let c = quoteIdentifier(column)
        let statement = try connection.prepare("SELECT fid, \(c) FROM \(quoteIdentifier(table)) WHERE \(c) NOT NULL")
        while try statement.step() {
            let fid = statement.int64(0)
            let envelope: Envelope? = try statement.withBlob(1) { blob in
                do {
                    let header = try GeoPackageBinaryHeader.read(from: blob)
                    return header.isEmpty ? nil : try header.envelopeOrComputed(in: blob)
                } catch {
                    throw StoreError.corruptGeometry(table: table, fid: fid, reason: "\(error)")
                }
            }
            if let e = envelope { entries.append(RTreeEntry(id: fid, minX: e.minX, maxX: e.maxX, minY: e.minY, maxY: e.maxY)) }
        }
        let rtree = GeoPackageSchema.rtreeName(table: table, column: column)
        if refitting, try RTreeBulkLoader.refit(rtree, on: connection, entries: entries) { return }
        try RTreeBulkLoader.load(into: rtree, on: connection, entries: entries)
    }

    /// Recomputes the table's extent in `gpkg_contents` from its R-tree (or from the geometries
    /// when it has none) and stamps `last_change`. The R-tree's extent is read from its root
    /// node (`RTreeBulkLoader.extent`): reading every entry took a quarter of a second per
    /// million rows.
    public func refreshContents(of table: FeatureTable) throws {
        let extent: [SQLValue]
        if table.hasSpatialIndex {
            let rtree = GeoPackageSchema.rtreeName(table: table.name, column: table.geometryColumn)
            if let e = try RTreeBulkLoader.extent(of: rtree, on: connection) {
                extent = [.real(e.minX), .real(e.minY), .real(e.maxX), .real(e.maxY)]
            } else {
                extent = try connection.rows("SELECT min(minx), min(miny), max(maxx), max(maxy) FROM \(quoteIdentifier(rtree))")[0]
            }
        } else {
            let c = quoteIdentifier(table.geometryColumn)
            extent = try connection.rows("SELECT min(ST_MinX(\(c))), min(ST_MinY(\(c))), max(ST_MaxX(\(c))), max(ST_MaxY(\(c))) " +
                "FROM \(quoteIdentifier(table.name)) WHERE NOT ST_IsEmpty(\(c))")[0]
        }
        try connection.run("""
            UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?, last_change = strftime('%Y-%m-%dT%H:%M:%fZ','now')
            WHERE table_name = ?
            """, extent + [.text(table.name)])
    }

    /// A statement cached under a short `key`, its SQL made by `sql` only the first time; reset
    /// and ready for binding.
    func cachedStatement(key: StatementKey, _ sql: () -> String) throws -> Statement {
        if let statement = statementsByKey[key] {
            statement.reset()
            return statement
        }
        let statement = try connection.prepareUncached(sql())
        statementsByKey[key] = statement
        return statement
    }

    /// Forgets cached table descriptions (after schema changes made with raw SQL).
    public func invalidateTableCache() {
        tableCache.removeAll()
        statementsByKey.removeAll()
    }

    /// Forgets everything read of the file's layout — the table descriptions, the statements
    /// built on them, whether the journal's tables exist — so that the next use reads it again:
    /// for a long-lived connection (`annolink serve`) after another program changed the schema
    /// (`Connection.schemaVersion()`). A stale description would name columns that are gone,
    /// and SQLite reads a double-quoted name that is no column as a string.
    public func forgetLayout() {
        invalidateTableCache()
        journalCache?.schemaIsKnown = false
    }
}

@available(*, unavailable)
extension GeoPackage: Sendable {}
