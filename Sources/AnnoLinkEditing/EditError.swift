import Foundation

/// Why an edit was refused, in the user's words.
public enum EditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `set` was given a field that cannot be set that way.
    case fieldNotEditable(table: String, field: String, reason: String)
    /// A value that does not fit its column.
    case invalidValue(table: String, field: String, value: String, reason: String)
    /// `move` on a table that does not hold points.
    case notAPointTable(table: String, geometryType: String)
    /// `move-vertex` on a feature that is not a single-segment line.
    case notSingleSegment(table: String, fid: Int64, parts: Int, points: Int)
    /// `move-vertex` on a table that does not hold lines.
    case notALineTable(table: String, geometryType: String)
    /// A whole-geometry update of a single-segment line that moves its first vertex (the
    /// FeatureServer moves the last vertex only, as `move-vertex` does).
    case firstVertexChanged(table: String, fid: Int64)
    /// A whole-geometry update of a single-segment line that is not one segment.
    case notOneSegment(table: String, fid: Int64, points: Int)
    /// A changed geometry for an annotation row: its footprint follows its text and placement.
    case annotationGeometry(table: String)
    /// A coordinate that is not a finite number.
    case nonFiniteCoordinate(String)
    /// A coordinate no place on Earth has in the table's CRS.
    case coordinateOutOfRange(table: String, value: Double, limit: Double, unit: String)
    /// A where clause for `translate` that is not one read-only condition.
    case invalidSelection(String)
    /// Nothing to do.
    case emptySelection(String)
    /// A search tolerance that is not a finite number ≥ 0.
    case invalidTolerance(Double)
    /// No tolerance was given and no annotation class gives a reference scale to take one from.
    case noReferenceScale(table: String)
    /// `TABLE --at X,Y` found no feature within the tolerance (CRS units of the table);
    /// `nearest` lists the nearest beyond it (within 1000 times the tolerance), nearest first.
    case nothingAtLocation(table: String, location: String, tolerance: Double, nearest: [LocationCandidate])
    /// `TABLE --at X,Y` found two or more features equally near (`PickFeature.tieFraction`);
    /// `candidates` lists those within the tolerance, nearest first, `more` how many were left off.
    case ambiguousLocation(table: String, location: String, tolerance: Double, candidates: [LocationCandidate], more: Int)

    /// A location outside the area of use of the table's CRS or far outside the table's extent
    /// (`EditService.checkNearData`); `looksLikeDegrees` when its numbers could be longitude
    /// and latitude given without their CRS.
    case distantLocation(table: String, location: String, reasons: [String], looksLikeDegrees: Bool)

    /// A geometry's Esri JSON `spatialReference` names another CRS than the one given with it.
    case conflictingCRS(given: String, spatialReference: String)

    /// `place` (or another label edit) on a table that is not an annotation table.
    case notAnAnnotationTable(table: String)
    /// A label edit (`PlaceAnnotation`) that asks for nothing, or for two things that exclude
    /// each other; `reason` says which, in the request's words.
    case invalidPlacement(String)
    /// A label edit the row cannot take: moved `by` a vector without an anchor, reset to the
    /// rules without a feature or a class to place it by.
    case annotationNotPlaceable(table: String, fid: Int64, reason: String)

    /// A feature near a location: its fid and distance (CRS units of its table).
    public struct LocationCandidate: Hashable, Sendable {
        public var fid: Int64
        public var distance: Double

        public init(fid: Int64, distance: Double) {
            self.fid = fid
            self.distance = distance
        }
    }
    /// An empty or blank text for a field a label expression reads (refused unless the edit
    /// allows empty values).
    case emptyLabelValue(table: String, field: String, annotationTable: String, classID: Int64, className: String, expression: String)

    public var description: String {
        switch self {
        case .fieldNotEditable(let table, let field, let reason): "\(table).\(field) cannot be set: \(reason)"
        case .invalidValue(let table, let field, let value, let reason): "invalid value '\(value)' for \(table).\(field): \(reason)"
        case .notAPointTable(let table, let type): "move changes point features, but \(table) holds \(type) geometries (use move-vertex or translate)"
        case .notSingleSegment(let table, let fid, let parts, let points):
            "\(table) fid \(fid) is not a single-segment line: it has \(parts) part\(parts == 1 ? "" : "s") and \(points) point\(points == 1 ? "" : "s") " +
                "(move-vertex moves an end of a line of one part and two points)"
        case .notALineTable(let table, let type): "move-vertex changes line features, but \(table) holds \(type) geometries"
        case .firstVertexChanged(let table, let fid):
            "\(table) fid \(fid): the first vertex changed (the last vertex of a single-segment line is moved, as move-vertex does)"
        case .notOneSegment(let table, let fid, let points):
            "\(table) fid \(fid): the new geometry is not one segment (\(points) points; the last vertex of a single-segment line is moved, as move-vertex does)"
        case .annotationGeometry(let table):
            "\(table) is an annotation layer: a footprint follows its text and placement; set AnchorX, AnchorY, Angle or TextString instead"
        case .nonFiniteCoordinate(let text): "coordinates must be finite numbers, not \(text)"
        case .coordinateOutOfRange(let table, let value, let limit, let unit):
            "coordinate \(String(format: "%g", value)) is outside what the CRS of \(table) can hold (at most ±\(String(format: "%.0f", limit)) \(unit))"
        case .distantLocation(let table, let location, let reasons, let looksLikeDegrees):
            "\(location) is far from where \(table) can be: \(reasons.joined(separator: "; "))" +
                (looksLikeDegrees ? "; the numbers look like longitude and latitude (EPSG:4326), not coordinates of the table's CRS" : "")
        case .invalidSelection(let reason): "invalid selection: \(reason)"
        case .emptySelection(let text): text
        case .conflictingCRS(let given, let reference):
            "the geometry's spatialReference (\(reference)) and the CRS given (\(given)) differ: give one of them, or the same"
        case .notAnAnnotationTable(let table):
            "\(table) is not an annotation table: place moves, turns and retexts annotation rows (to move a feature, use move)"
        case .invalidPlacement(let reason): reason
        case .annotationNotPlaceable(let table, let fid, let reason): "\(table) fid \(fid) \(reason)"
        case .invalidTolerance(let value): "the tolerance must be a finite number of at least 0, not \(value)"
        case .noReferenceScale(let table):
            "the file has no annotation class to take a reference scale from, so there is no default tolerance for \(table): give one"
        case .nothingAtLocation(let table, let location, let tolerance, let nearest):
            "nothing in \(table) within \(Self.distance(tolerance)) (map units) of \(location)" +
                (nearest.isEmpty ? ", nor within \(Self.distance(tolerance * 1000))" : "; the nearest beyond it:")
        case .ambiguousLocation(let table, let location, let tolerance, let candidates, let more):
            "\(location) is ambiguous: the nearest of the \(candidates.count + more) features of \(table) within " +
                "\(Self.distance(tolerance)) (map units) are equally near (\(Self.distance(candidates.first?.distance ?? 0))); give the FID"
        case .emptyLabelValue(let table, let field, let annotationTable, let classID, let className, let expression):
            "\(table).\(field) may not be empty or NULL: annotation class '\(className)' (\(annotationTable) class \(classID)) labels with " +
                "\(expression), which reads it"
        }
    }

    /// The candidates of `ambiguousLocation` and the nearest features of `nothingAtLocation`,
    /// one line each (`fid 12 at 0.000`), for a front end to show after the message; empty for
    /// every other case.
    public var candidateLines: [String] {
        switch self {
        case .ambiguousLocation(_, _, _, let candidates, let more):
            candidates.map { "fid \($0.fid) at \(Self.distance($0.distance))" } + (more > 0 ? ["and \(more) more"] : [])
        case .nothingAtLocation(_, _, _, let nearest):
            nearest.map { "fid \($0.fid) at \(Self.distance($0.distance))" }
        default:
            []
        }
    }

    /// A distance in CRS units as messages show it: three decimals.
    static func distance(_ value: Double) -> String {
        String(format: "%.3f", value)
    }
}
