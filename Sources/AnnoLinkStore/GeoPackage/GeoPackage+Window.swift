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
    /// With a spatial index, one R-tree window query. Boxes alone are the R-tree's own, sorted by
    /// id. With geometries or annotation rows the table is read in fid order for the ids the
    /// R-tree chose (`fid IN (…)`: SQLite sorts the ids, not the rows) and each box is the row's
    /// envelope rounded as the R-tree rounds it (`Envelope.indexBox`), which is the R-tree's box
    /// while the index is sound (`check`'s index pass); joining the R-tree to every row instead
    /// costs a lookup in it each, three times the read. A row whose geometry gives no envelope
    /// (an undecodable footprint) takes its box from the R-tree. Without a spatial index, every
    /// row is read and its envelope rounded so.
    ///
    /// - Throws: `StoreError.corruptGeometry` for a geometry that cannot be decoded (an
    ///   annotation footprint that cannot be is read as none).
    public func forEachIndexedRow(_ table: FeatureTable, meeting box: Envelope?, size: IndexBoxSize, reading: IndexedRowReading,
                                  _ body: (IndexedRow) throws -> Void) throws {
        var columns: [String] = []
        switch reading {
        case .box: break
        case .geometry: columns = ["t." + quoteIdentifier(table.geometryColumn)]
        case .annotation: columns = [GeoPackage.annotationSelectList(table, alias: "t")]
        }
        let t = quoteIdentifier(table.name), pk = "t." + quoteIdentifier(table.primaryKey)
        guard table.hasSpatialIndex else {
            let list = ([pk, "t." + quoteIdentifier(table.geometryColumn)] + columns).joined(separator: ", ")
            let statement = try connection.prepare(
                "SELECT \(list) FROM \(t) AS t WHERE t.\(quoteIdentifier(table.geometryColumn)) IS NOT NULL ORDER BY \(pk)")
            while try statement.step() {
                let fid = statement.int64(0)
                // An annotation footprint that cannot be decoded: the row has no box to be chosen by.
                let geometry = reading == .annotation
                    ? try? statement.withBlob(1) { try decodeGeometry($0, table: table, fid: fid) }
                    : try statement.withBlob(1) { try decodeGeometry($0, table: table, fid: fid) }
                guard let envelope = geometry?.envelope else { continue }
                var row = IndexedRow(fid: fid, box: envelope.indexBox)
                guard row.isTaken(meeting: box, size: size) else { continue }
                if reading == .geometry { row.geometry = geometry }
                if reading == .annotation { row.annotation = try annotationRow(from: statement, startingAt: 2, table: table, footprintProblem: { _ in }) }
                try body(row)
            }
            return
        }
        let r = quoteIdentifier(table.spatialIndexName)
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
        case .notThinAndShort(let across, let along):
            conditions.append("((r.maxx - r.minx >= ? AND r.maxy - r.miny >= ?) OR r.maxx - r.minx >= ? OR r.maxy - r.miny >= ?)")
            bindings += [.real(across), .real(across), .real(along), .real(along)]
        }
        let window = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        if reading == .box {
            let statement = try connection.prepare("SELECT r.id, r.minx, r.miny, r.maxx, r.maxy FROM \(r) AS r\(window) ORDER BY r.id")
            try statement.bind(bindings)
            while try statement.step() {
                try body(IndexedRow(fid: statement.int64(0), box: Envelope(minX: statement.double(1), minY: statement.double(2),
                                                                          maxX: statement.double(3), maxY: statement.double(4))))
            }
            return
        }
        let statement = try connection.prepare(
            "SELECT \(([pk] + columns).joined(separator: ", ")) FROM \(t) AS t WHERE \(pk) IN (SELECT r.id FROM \(r) AS r\(window)) ORDER BY \(pk)")
        try statement.bind(bindings)
        func indexBox(_ envelope: Envelope?, fid: Int64) throws -> Envelope? {
            if let envelope { return envelope.indexBox }
            let row = try connection.rows("SELECT minx, miny, maxx, maxy FROM \(r) WHERE id = ?", [.integer(fid)]).first ?? []
            let v = row.compactMap(\.doubleValue)
            return v.count == 4 ? Envelope(minX: v[0], minY: v[1], maxX: v[2], maxY: v[3]) : nil
        }
        while try statement.step() {
            let fid = statement.int64(0)
            if reading == .geometry {
                let geometry = statement.isNull(1) ? nil : try statement.withBlob(1) { try decodeGeometry($0, table: table, fid: fid) }
                guard let box = try indexBox(geometry?.envelope, fid: fid) else { continue }
                try body(IndexedRow(fid: fid, box: box, geometry: geometry))
            } else {
                let annotation = try annotationRow(from: statement, startingAt: 1, table: table, footprintProblem: { _ in })
                guard let box = try indexBox(annotation.footprint.flatMap { Geometry.polygon($0).envelope }, fid: fid) else { continue }
                try body(IndexedRow(fid: fid, box: box, annotation: annotation))
            }
        }
    }
}
