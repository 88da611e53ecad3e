import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// A coordinate reference system as OGC API – Features Part 2 names it (a URI) and as PROJ
/// does (`OGC:CRS84`, `EPSG:2924`).
struct OGCCRS: Hashable, Sendable {
    /// `http://www.opengis.net/def/crs/OGC/1.3/CRS84`, `http://www.opengis.net/def/crs/EPSG/0/2924`.
    var uri: String
    /// The name PROJ knows it by.
    var proj: String
    /// Whether the CRS's axis order is latitude first (EPSG's geographic CRSs), so positions
    /// are written y, x; GeoPackage stores and PROJ (normalized) answer x, y.
    var latitudeFirst: Bool

    /// The same CRS with x, y axes: how GeoPackage stores coordinates whatever the CRS's order.
    var stored: OGCCRS {
        var copy = self
        copy.latitudeFirst = false
        return copy
    }

    static let crs84 = OGCCRS(uri: "http://www.opengis.net/def/crs/OGC/1.3/CRS84", proj: "OGC:CRS84", latitudeFirst: false)

    /// The CRS of a table's `gpkg_spatial_ref_sys` row, when it is an EPSG one; nil for the
    /// undefined systems and other authorities.
    static func storage(of table: FeatureTable, in package: any FeatureStore, tools: OGCTools) throws -> OGCCRS? {
        guard let srs = try package.spatialReferenceSystem(table.srsID), srs.organization.uppercased() == "EPSG",
              srs.organizationCoordsysID > 0 else { return nil }
        let proj = "EPSG:\(srs.organizationCoordsysID)"
        let geographic = (try? tools.transformer.referenceSystem(proj).isGeographic) ?? false
        return OGCCRS(uri: "http://www.opengis.net/def/crs/EPSG/0/\(srs.organizationCoordsysID)", proj: proj, latitudeFirst: geographic)
    }

    /// The CRS named by `text` (a URI, optionally in angle brackets as in `Content-Crs`) among
    /// `offered`.
    static func named(_ text: String, among offered: [OGCCRS], parameter: String) throws(OGCException) -> OGCCRS {
        var name = text.trimmingCharacters(in: .whitespaces)
        if name.hasPrefix("<"), name.hasSuffix(">") { name = String(name.dropFirst().dropLast()) }
        if name == "[OGC:CRS84]" { name = OGCCRS.crs84.uri }
        if let found = offered.first(where: { $0.uri == name || $0.uri.replacingOccurrences(of: "http://", with: "https://") == name }) {
            return found
        }
        throw .badRequest("\(parameter) '\(text)' is not one of this collection's: \(offered.map(\.uri).joined(separator: ", "))")
    }
}

/// The PROJ transformer one request uses, borrowed from `TransformerPool.shared` (making one
/// and its transformations costs milliseconds), with OGC's axis orders.
final class OGCTools {
    let transformer: CoordinateTransformer

    init(transformer: CoordinateTransformer) {
        self.transformer = transformer
    }

    /// `geometry` from `source` into `target`, axes swapped where a CRS is latitude first.
    func transform(_ geometry: Geometry, from source: OGCCRS, to target: OGCCRS) throws -> Geometry {
        var shape = source.latitudeFirst ? geometry.mapPoints { Point(x: $0.y, y: $0.x) } : geometry
        if source.proj != target.proj { shape = try transformer.transform(shape, from: source.proj, to: target.proj) }
        return target.latitudeFirst ? shape.mapPoints { Point(x: $0.y, y: $0.x) } : shape
    }

    /// The envelope, in `target`, of the box `envelope` in `source` (see `transformBox`).
    func transform(_ envelope: Envelope, from source: OGCCRS, to target: OGCCRS) throws -> Envelope {
        if source.proj == target.proj && source.latitudeFirst == target.latitudeFirst { return envelope }
        let box = try transformBox(envelope, from: source, to: target)
        guard let result = Geometry.polygon(box).envelope else { throw OGCException.badRequest("the bbox cannot be expressed in \(target.uri)") }
        return result
    }

    /// The box `envelope` in `source` as a polygon in `target`: its edges are transformed at
    /// 21 points each, so that the polygon follows a box that turns or curves in `target`
    /// (a longitude/latitude box is turned by the meridian convergence in a state plane CRS,
    /// and its envelope there would take in features outside it).
    func transformBox(_ envelope: Envelope, from source: OGCCRS, to target: OGCCRS) throws -> Polygon {
        let moved = try transform(.polygon(envelope.densifiedPolygon(stepsPerEdge: 20)), from: source, to: target)
        guard case .polygon(let polygon) = moved, let box = moved.envelope,
              box.minX.isFinite, box.maxX.isFinite, box.minY.isFinite, box.maxY.isFinite else {
            throw OGCException.badRequest("the bbox cannot be expressed in \(target.uri)")
        }
        return polygon
    }
}

@available(*, unavailable)
extension OGCTools: Sendable {}
