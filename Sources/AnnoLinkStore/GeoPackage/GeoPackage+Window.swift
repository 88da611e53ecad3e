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
