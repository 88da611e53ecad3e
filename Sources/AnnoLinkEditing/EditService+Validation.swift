import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

extension EditService {
    /// Checks `geometry` before it is written to `table`: the kind fits the geometry column,
    /// every coordinate is finite, it is not empty, and GEOS finds it valid. The store writes
    /// what it is given; every geometry an edit writes is checked here first.
    ///
    /// - Throws: `StoreError.wrongGeometryKind`, `GeometryValidationError` with GEOS's reason.
    func validate(_ geometry: Geometry, for table: FeatureTable) throws {
        if let kind = table.geometryKind, kind != geometry.kind {
            throw StoreError.wrongGeometryKind(table: table.name, expected: kind.rawValue, got: geometry.kind.rawValue)
        }
        try geometryEngine().validateForWriting(geometry, allowEmpty: false)
        try checkFits(geometry, in: table)
    }

    /// Refuses coordinates that no place on Earth has in `table`'s CRS: beyond ±360° of
    /// longitude or ±90° of latitude in a geographic CRS, beyond 100,000 km from the origin in
    /// a projected one (in its own unit; metres when the file does not say). Finite but huge
    /// values (1e300) made an 'Infinity' label, a NaN anchor and an empty index box (issue
    /// 16, D5).
    ///
    /// - Throws: `EditError.coordinateOutOfRange`.
    func checkFits(_ geometry: Geometry, in table: FeatureTable) throws {
        guard let envelope = geometry.envelope else { return }
        let limits = try coordinateLimits(of: table)
        for (value, limit) in [(envelope.minX, limits.x), (envelope.maxX, limits.x), (envelope.minY, limits.y), (envelope.maxY, limits.y)]
        where abs(value) > limit {
            throw EditError.coordinateOutOfRange(table: table.name, value: value, limit: limit, unit: limits.unit)
        }
    }

    /// The largest |x| and |y| a coordinate of `table` may have (`checkFits`), and their unit
    /// as messages name it: what geometries and annotation anchors are held to.
    func coordinateLimits(of table: FeatureTable) throws -> (x: Double, y: Double, unit: String) {
        let srs = try store.spatialReferenceSystem(table.srsID)
        let definition = srs?.definition.uppercased() ?? ""
        let geographic = definition.hasPrefix("GEOGCS") || definition.hasPrefix("GEOGCRS") || table.srsID == 4326
        if geographic { return (360, 90, "degrees") }
        let metresPerUnit = srs?.metresPerUnitFromDefinition ?? 1
        return (1e8 / metresPerUnit, 1e8 / metresPerUnit, "units of the CRS")
    }

    /// The GEOS engine that validates geometries and finds nearest vertices, made on first use.
    ///
    /// - Throws: `GEOSError` when GEOS cannot make a context.
    func geometryEngine() throws -> GeometryEngine {
        if let geometryEngineStorage { return geometryEngineStorage }
        let made = try GeometryEngine()
        geometryEngineStorage = made
        return made
    }
}
