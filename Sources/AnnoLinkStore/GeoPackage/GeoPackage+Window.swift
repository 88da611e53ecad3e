import AnnoLinkGeometry

extension GeoPackage {
    /// The fids of the rows of `table` whose geometry may meet `box` (table CRS units), in fid
    /// order: what a search near a location reads before measuring exact distances.
    ///
    /// With a spatial index this is an R-tree window query, so it reads only the rows near the
    /// box; the R-tree's boxes are 32-bit floats rounded outward, so the answer is a superset
    /// of the rows whose envelope meets `box`, never a subset. Without a spatial index every
    /// row with a geometry is returned: the caller's exact test decides.
    public func fids(of table: FeatureTable, meeting box: Envelope) throws -> [Int64] {
        let pk = quoteIdentifier(table.primaryKey)
        let sql: String
        var bindings: [SQLValue] = []
        if table.hasSpatialIndex {
            sql = "SELECT id FROM \(quoteIdentifier(table.spatialIndexName)) WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ? ORDER BY id"
            bindings = [.real(box.minX), .real(box.maxX), .real(box.minY), .real(box.maxY)]
        } else {
            sql = "SELECT \(pk) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.geometryColumn)) IS NOT NULL ORDER BY \(pk)"
        }
        let statement = try connection.prepare(sql)
        try statement.bind(bindings)
        var fids: [Int64] = []
        while try statement.step() { fids.append(statement.int64(0)) }
        return fids
    }
}

extension GeoPackage {
    /// With a spatial index, one R-tree window query joined to the table by fid; the boxes are the
    /// R-tree's own. Without one, every row is read and its envelope rounded as the R-tree would
    /// round it (`Envelope.indexBox`).
    ///
    /// - Throws: `StoreError.corruptGeometry` for a geometry that cannot be decoded (an
    ///   annotation footprint that cannot be is read as none).
    public func forEachIndexedRow(_ table: FeatureTable, meeting box: Envelope?, size: IndexBoxSize, reading: IndexedRowReading,
                                  _ body: (IndexedRow) throws -> Void) throws {
        var columns: [String] = []
        switch reading {
        case .box: break
        case .geometry: columns = ["t." + quoteIdentifier(table.geometryColumn)]
        case .annotation: columns = GeoPackage.annotationColumnNames.map { "t." + quoteIdentifier($0) }
        }
        let t = quoteIdentifier(table.name), pk = "t." + quoteIdentifier(table.primaryKey)
        guard table.hasSpatialIndex else {
            let list = ([pk, "t." + quoteIdentifier(table.geometryColumn)] + columns).joined(separator: ", ")
            let statement = try connection.prepare(
                "SELECT \(list) FROM \(t) AS t WHERE t.\(quoteIdentifier(table.geometryColumn)) IS NOT NULL ORDER BY \(pk)")
            while try statement.step() {
                let fid = statement.int64(0)
                let geometry = try statement.withBlob(1) { try decodeGeometry($0, table: table, fid: fid) }
                guard let envelope = geometry.envelope else { continue }
                var row = IndexedRow(fid: fid, box: envelope.indexBox)
                guard row.isTaken(meeting: box, size: size) else { continue }
                if reading == .geometry { row.geometry = geometry }
                if reading == .annotation { row.annotation = try annotationRow(from: statement, startingAt: 2, table: table, footprintProblem: { _ in }) }
                try body(row)
            }
            return
        }
        let r = quoteIdentifier(table.spatialIndexName)
        var sql = "SELECT r.id, r.minx, r.miny, r.maxx, r.maxy" + columns.map { ", " + $0 }.joined() + " FROM \(r) AS r"
        if !columns.isEmpty { sql += " JOIN \(t) AS t ON \(pk) = r.id" }
        var conditions: [String] = []
        var bindings: [SQLValue] = []
        if let box {
            conditions.append("r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ?")
            bindings += [.real(box.minX), .real(box.maxX), .real(box.minY), .real(box.maxY)]
        }
        switch size {
        case .any: break
        case .bothSidesAtLeast(let d): conditions.append("r.maxx - r.minx >= ? AND r.maxy - r.miny >= ?"); bindings += [.real(d), .real(d)]
        case .someSideUnder(let d): conditions.append("(r.maxx - r.minx < ? OR r.maxy - r.miny < ?)"); bindings += [.real(d), .real(d)]
        case .someSideAtLeast(let d): conditions.append("(r.maxx - r.minx >= ? OR r.maxy - r.miny >= ?)"); bindings += [.real(d), .real(d)]
        case .bothSidesUnder(let d): conditions.append("r.maxx - r.minx < ? AND r.maxy - r.miny < ?"); bindings += [.real(d), .real(d)]
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        let statement = try connection.prepare(sql + " ORDER BY r.id")
        try statement.bind(bindings)
        while try statement.step() {
            let fid = statement.int64(0)
            var row = IndexedRow(fid: fid, box: Envelope(minX: statement.double(1), minY: statement.double(2),
                                                         maxX: statement.double(3), maxY: statement.double(4)))
            switch reading {
            case .box: break
            case .geometry:
                row.geometry = statement.isNull(5) ? nil : try statement.withBlob(5) { try decodeGeometry($0, table: table, fid: fid) }
            case .annotation:
                row.annotation = try annotationRow(from: statement, startingAt: 5, table: table, footprintProblem: { _ in })
            }
            try body(row)
        }
    }
}
