import AnnoLinkEngine
import AnnoLinkStore

extension GeoPackage {
    /// Adds the EPSG CRS `code` to `gpkg_spatial_ref_sys` (its name and OGC WKT 1 from PROJ)
    /// unless it is there already, and returns its srs id (the EPSG code).
    ///
    /// Asks PROJ only when the row is missing, so opening files that have their CRS costs
    /// nothing. Here rather than in the store, which knows no PROJ: importers and the sample
    /// generator are what bring new CRSs into a file.
    ///
    /// - Throws: `EngineError.unknownCRS` when PROJ does not know the code;
    ///   `StoreError.invalidData` when PROJ has no WKT 1 for it.
    @discardableResult
    public func addSpatialReferenceSystem(epsg code: Int64) throws -> Int64 {
        if try hasSpatialReferenceSystem(code) { return code }
        let crs = try CoordinateTransformer().referenceSystem("EPSG:\(code)")
        guard let wkt = crs.wkt1 else {
            throw StoreError.invalidData("PROJ has no WKT 1 definition for EPSG:\(code)")
        }
        try addSpatialReferenceSystem(SpatialReferenceSystem(
            srsID: code, name: crs.name, organization: "EPSG", organizationCoordsysID: code, definition: wkt))
        return code
    }
}
