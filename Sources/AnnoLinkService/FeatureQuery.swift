import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore

/// A read of one feature table as the service interfaces ask for it: a checked SQL condition,
/// object ids, a spatial filter (an envelope through the R-tree, then an exact test), the
/// columns wanted, an order and a page. Neutral between interfaces: it knows tables and
/// geometries in the table's CRS, not Esri's or OGC's parameters.
public struct FeatureQuery {
    /// An exact spatial test after the R-tree's envelope test.
    public enum SpatialTest {
        /// The feature's geometry intersects this one (GEOS `intersects`).
        case intersects(Geometry)
        /// The feature's geometry lies within `distance` (table CRS units) of this one.
        case withinDistance(Geometry, Double)
    }

    /// One column of the order.
    public struct Order: Sendable {
        public var column: String
        public var descending: Bool
        public init(column: String, descending: Bool) {
            self.column = column
            self.descending = descending
        }
    }

    public var table: FeatureTable
    /// A condition checked by `Connection.condition(_:on:)` against `table`.
    public var condition: SQLCondition?
    /// Only these feature ids (nil: any).
    public var featureIDs: [Int64]?
    /// Only features whose envelope intersects this one, in the table's CRS (read from the
    /// R-tree where the table has one).
    public var envelope: Envelope?
    /// An exact test after the envelope test.
    public var spatialTest: SpatialTest?
    /// The attribute columns to read (names as the table spells them); nil: all.
    public var columns: [String]?
    /// Whether to read geometries.
    public var readsGeometry = true
    /// The order; the primary key ends every order so pages never overlap.
    public var order: [Order] = []
    public var offset = 0
    /// At most this many rows (nil: all).
    public var limit: Int?

    public init(table: FeatureTable) { self.table = table }

    /// One row of the answer: the id, the geometry in the table's CRS (nil when not read or
    /// NULL), and the wanted columns in the order asked.
    public struct Row {
        public var fid: Int64
        public var geometry: Geometry?
        public var values: [(column: String, value: SQLValue)]
    }

    /// The page asked for, and whether more rows matched after it.
    public struct Page {
        public var rows: [Row]
        public var hasMore: Bool
    }

    // MARK: SQL

    private func whereClause(_ bindings: inout [SQLValue]) -> String {
        var parts: [String] = []
        let pk = quoteIdentifier(table.primaryKey)
        if let condition { parts.append(condition.sql) }
        if let featureIDs {
            // Bound as one JSON array: a list from a request never becomes SQL text, and its
            // length meets no limit on the number of bound variables.
            parts.append("\(pk) IN (SELECT value FROM json_each(?))")
            bindings.append(.text("[" + featureIDs.map(String.init).joined(separator: ",") + "]"))
        }
        if let envelope {
            if table.hasSpatialIndex {
                parts.append("\(pk) IN (SELECT id FROM \(quoteIdentifier(table.spatialIndexName)) WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?)")
            } else {
                let g = quoteIdentifier(table.geometryColumn)
                parts.append("(NOT ST_IsEmpty(\(g)) AND ST_MinX(\(g)) <= ? AND ST_MaxX(\(g)) >= ? AND ST_MinY(\(g)) <= ? AND ST_MaxY(\(g)) >= ?)")
            }
            bindings += [.real(envelope.maxX), .real(envelope.minX), .real(envelope.maxY), .real(envelope.minY)]
        }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }

    private var orderClause: String {
        let pk = table.primaryKey.lowercased()
        var terms = order.map { "\(quoteIdentifier($0.column)) \($0.descending ? "DESC" : "ASC")" }
        if !order.contains(where: { $0.column.lowercased() == pk }) { terms.append(quoteIdentifier(table.primaryKey)) }
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    /// The columns read, in order: the key, the geometry when needed, the attributes.
    private var attributeColumns: [String] {
        columns ?? table.attributeColumns.map(\.name)
    }

    // MARK: Running

    /// Calls `body` with every matching row in order, ignoring `offset` and `limit`; `body`
    /// returns false to stop.
    private func forEachMatch(in package: any FeatureStore, geometry needed: Bool, attributes: [String],
                              sqlPaging: (offset: Int, limit: Int)?, _ body: (Row) throws -> Bool) throws {
        if let store = package as? PostGISStore {
            return try forEachMatch(in: store, geometry: needed, attributes: attributes, sqlPaging: sqlPaging, body)
        }
        guard let package = package as? GeoPackage else { throw StoreError.notSupported("serving features from \(package.location)") }
        var bindings: [SQLValue] = []
        let readGeometry = needed || spatialTest != nil
        var list = [quoteIdentifier(table.primaryKey)]
        if readGeometry { list.append(quoteIdentifier(table.geometryColumn)) }
        list += attributes.map(quoteIdentifier)
        var sql = "SELECT \(list.joined(separator: ", ")) FROM \(quoteIdentifier(table.name))" + whereClause(&bindings) + orderClause
        if let sqlPaging {
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(Int64(sqlPaging.limit)), .integer(Int64(sqlPaging.offset))]
        }
        let statement = try package.connection.prepare(sql)
        try statement.bind(bindings)
        let engine = spatialTest == nil ? nil : try GeometryEngine()
        let first = readGeometry ? 2 : 1
        while try statement.step() {
            let fid = statement.int64(0)
            var geometry: Geometry?
            if readGeometry, !statement.isNull(1) {
                geometry = try statement.withBlob(1) { blob in
                    do {
                        return try GeoPackageGeometry(blob: blob).geometry
                    } catch {
                        throw StoreError.corruptGeometry(table: table.name, fid: fid, reason: "\(error)")
                    }
                }
            }
            if let engine, let test = spatialTest {
                guard let geometry else { continue }
                switch test {
                case .intersects(let other): guard try engine.intersects(geometry, other) else { continue }
                case .withinDistance(let other, let distance): guard try engine.isWithinDistance(distance, geometry, other) else { continue }
                }
            }
            var values: [(column: String, value: SQLValue)] = []
            values.reserveCapacity(attributes.count)
            for (i, column) in attributes.enumerated() { values.append((column, statement.value(first + i))) }
            guard try body(Row(fid: fid, geometry: needed ? geometry : nil, values: values)) else { break }
        }
    }

    /// `forEachMatch` on PostGIS: the store reads the rows (the envelope through the GiST
    /// index, `&&` with `ST_MakeEnvelope`), the exact test runs here as on a GeoPackage.
    private func forEachMatch(in store: PostGISStore, geometry needed: Bool, attributes: [String],
                              sqlPaging: (offset: Int, limit: Int)?, _ body: (Row) throws -> Bool) throws {
        let readGeometry = needed || spatialTest != nil
        let filter = PostGISStore.ServedFilter(condition: condition, fids: featureIDs, envelope: envelope)
        let rows = try store.servedRows(table, filter: filter, columns: attributes, geometry: readGeometry,
                                        order: order.map { ($0.column, $0.descending) }, offset: sqlPaging?.offset ?? 0,
                                        limit: sqlPaging.flatMap { $0.limit < 0 ? nil : $0.limit })
        let engine = spatialTest == nil ? nil : try GeometryEngine()
        for row in rows {
            if let engine, let test = spatialTest {
                guard let geometry = row.geometry else { continue }
                switch test {
                case .intersects(let other): guard try engine.intersects(geometry, other) else { continue }
                case .withinDistance(let other, let distance): guard try engine.isWithinDistance(distance, geometry, other) else { continue }
                }
            }
            let values = zip(attributes, row.values).map { (column: $0.0, value: $0.1) }
            guard try body(Row(fid: row.fid, geometry: needed ? row.geometry : nil, values: values)) else { break }
        }
    }

    /// Calls `body` with every matching row (`offset`, `limit` and the geometry left out),
    /// with the values of `attributes`: what an aggregate (distinct values, statistics) reads.
    ///
    /// - Throws: as `page(in:)`.
    public func forEachRow(in package: any FeatureStore, attributes: [String], _ body: (Row) throws -> Void) throws {
        try forEachMatch(in: package, geometry: false, attributes: attributes, sqlPaging: nil) { row in
            try body(row)
            return true
        }
    }

    /// The page of rows from `offset`, at most `limit`, and whether more matched.
    ///
    /// - Throws: `SQLiteError`, `StoreError.corruptGeometry`, GEOS errors of the exact test.
    public func page(in package: any FeatureStore) throws -> Page {
        var rows: [Row] = []
        var hasMore = false
        let attributes = attributeColumns
        if spatialTest == nil {
            // Paging in SQL: one row beyond the page says whether more remain.
            let paging = limit.map { (offset: offset, limit: $0 + 1) } ?? (offset > 0 ? (offset: offset, limit: -1) : nil)
            try forEachMatch(in: package, geometry: readsGeometry, attributes: attributes, sqlPaging: paging) { row in
                if let limit, rows.count == limit { hasMore = true; return false }
                rows.append(row)
                return true
            }
        } else {
            var skipped = 0
            try forEachMatch(in: package, geometry: readsGeometry, attributes: attributes, sqlPaging: nil) { row in
                if skipped < offset { skipped += 1; return true }
                if let limit, rows.count == limit { hasMore = true; return false }
                rows.append(row)
                return true
            }
        }
        return Page(rows: rows, hasMore: hasMore)
    }

    /// The page asked for and how many features match in all (OGC's `numberMatched`). With an
    /// exact spatial test, the test runs once per candidate: the matching ids are found first,
    /// then only the page's rows are read.
    ///
    /// - Throws: as `page(in:)`.
    public func pageAndCount(in package: any FeatureStore) throws -> (rows: [Row], count: Int) {
        guard spatialTest != nil else { return (try page(in: package).rows, try count(in: package)) }
        let ids = try matchingIDs(in: package)
        var pageQuery = self
        pageQuery.condition = nil
        pageQuery.envelope = nil
        pageQuery.spatialTest = nil
        pageQuery.featureIDs = Array(ids.dropFirst(offset).prefix(limit ?? ids.count))
        pageQuery.offset = 0
        pageQuery.limit = nil
        return (try pageQuery.page(in: package).rows, ids.count)
    }

    /// How many features match (offset and limit ignored).
    public func count(in package: any FeatureStore) throws -> Int {
        if spatialTest == nil, let store = package as? PostGISStore {
            return try store.servedCount(table, filter: PostGISStore.ServedFilter(condition: condition, fids: featureIDs, envelope: envelope))
        }
        if spatialTest == nil, condition == nil, featureIDs == nil, let envelope, table.hasSpatialIndex, let package = package as? GeoPackage {
            // Only a box: the R-tree alone answers (each of its entries is a row whose geometry
            // is not empty, as the IN (…) form below counts), no row of the table is visited.
            let sql = "SELECT count(*) FROM \(quoteIdentifier(table.spatialIndexName)) WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?"
            return Int(try package.connection.scalarInt(sql, [.real(envelope.maxX), .real(envelope.minX), .real(envelope.maxY), .real(envelope.minY)]) ?? 0)
        }
        if spatialTest == nil, let package = package as? GeoPackage {
            var bindings: [SQLValue] = []
            let sql = "SELECT count(*) FROM \(quoteIdentifier(table.name))" + whereClause(&bindings)
            return Int(try package.connection.scalarInt(sql, bindings) ?? 0)
        }
        var n = 0
        try forEachMatch(in: package, geometry: false, attributes: [], sqlPaging: nil) { _ in n += 1; return true }
        return n
    }

    /// The ids of every matching feature, in order (offset and limit ignored).
    public func matchingIDs(in package: any FeatureStore) throws -> [Int64] {
        var ids: [Int64] = []
        try forEachMatch(in: package, geometry: false, attributes: [], sqlPaging: nil) { ids.append($0.fid); return true }
        return ids
    }

    /// The envelope of every matching feature in the table's CRS, and how many matched; nil
    /// envelope when none has a geometry.
    public func extent(in package: any FeatureStore) throws -> (envelope: Envelope?, count: Int) {
        var envelope: Envelope?
        var n = 0
        try forEachMatch(in: package, geometry: true, attributes: [], sqlPaging: nil) { row in
            n += 1
            if let e = row.geometry?.envelope { envelope = envelope.map { $0.union(e) } ?? e }
            return true
        }
        return (envelope, n)
    }
}

@available(*, unavailable)
extension FeatureQuery: Sendable {}
