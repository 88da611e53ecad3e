import AnnoLinkEngine
import AnnoLinkGeometry
import Foundation

/// A geometry as a person or a script gives it: WKT, a GeoJSON geometry object or an Esri JSON
/// geometry object (`{"x","y"}`, `{"points"}`, `{"paths"}`, `{"rings"}`), with the spatial
/// reference Esri JSON may carry. What `annolink add --geometry` and the sketch's `geometry`
/// command read.
public struct GeometryInput: Hashable, Sendable {
    /// The text formats read.
    public enum Format: String, Hashable, Sendable {
        case wkt = "WKT"
        case geoJSON = "GeoJSON"
        case esriJSON = "Esri JSON"
    }

    public var geometry: Geometry
    public var format: Format
    /// Esri JSON's `spatialReference.wkid`, when given.
    public var wkid: Int32?
    /// Esri JSON's `spatialReference.latestWkid`, when given.
    public var latestWkid: Int32?

    public init(geometry: Geometry, format: Format, wkid: Int32? = nil, latestWkid: Int32? = nil) {
        self.geometry = geometry
        self.format = format
        self.wkid = wkid
        self.latestWkid = latestWkid
    }

    /// Reads `text`: an object (`{`…) is GeoJSON when it has a `type` member and Esri JSON when
    /// it has `x`, `points`, `paths` or `rings` instead; anything else is WKT.
    ///
    /// - Throws: `GeometryCodecError` of the format the text is in.
    public init(text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("{") else {
            geometry = try Geometry(wkt: text)
            format = .wkt
            return
        }
        let members = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any]
        let esriMembers: Set<String> = ["x", "points", "paths", "rings"]
        if let members, members["type"] == nil, !esriMembers.isDisjoint(with: members.keys) {
            let esri = try EsriJSONGeometry(esriJSON: text)
            geometry = esri.geometry
            format = .esriJSON
            wkid = esri.wkid
            latestWkid = esri.latestWkid
        } else {
            geometry = try Geometry(geoJSON: text)
            format = .geoJSON
        }
    }

    /// The CRS the geometry's coordinates are in: `given` (a user's `--crs`), else the CRS the
    /// Esri JSON spatial reference names (`CoordinateTransformer.esriSpatialReference`), else
    /// nil (the table's own).
    ///
    /// - Throws: `EditError.conflictingCRS` when both are given and name different CRSs,
    ///   `EngineError.unknownCRS` for a wkid or a `given` PROJ does not know.
    public func referenceSystem(given: String?) throws -> String? {
        guard wkid != nil || latestWkid != nil else { return given }
        let transformer = try CoordinateTransformer()
        guard let named = try transformer.esriSpatialReference(wkid: wkid, latestWkid: latestWkid) else { return given }
        if let given, try !transformer.sameReferenceSystem(given, named) {
            throw EditError.conflictingCRS(given: given, spatialReference: spatialReferenceText + " = " + named)
        }
        return given ?? named
    }

    /// The geometry in the CRS `target`: transformed with PROJ from the CRS
    /// `referenceSystem(given:)` names, as it is when that names none.
    ///
    /// - Throws: as `referenceSystem(given:)`, and PROJ's errors for a transformation that
    ///   fails.
    public func geometry(in target: String, given: String?) throws -> Geometry {
        guard let source = try referenceSystem(given: given) else { return geometry }
        guard geometry.isFinite else { throw EditError.nonFiniteCoordinate("in the geometry") }
        return try CoordinateTransformer().transform(geometry, from: source, to: target)
    }

    /// The spatial reference as Esri JSON wrote it, for messages.
    var spatialReferenceText: String {
        [wkid.map { "wkid \($0)" }, latestWkid.map { "latestWkid \($0)" }].compactMap { $0 }.joined(separator: ", ")
    }
}
