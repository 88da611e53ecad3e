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
