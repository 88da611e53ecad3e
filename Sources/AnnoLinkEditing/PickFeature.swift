import AnnoLinkGeometry
import AnnoLinkStore

/// The one feature of a table at a location: how a command that edits one feature finds it
/// when given `TABLE --at X,Y` instead of `TABLE FID`. Only reads.
///
/// The search is `Identify`'s, in one table with the default tolerance (10 points at the
/// reference scale). The nearest feature is picked; the location is refused when nothing is
/// within the tolerance (listing the `listedNearest` nearest within 1000 times it), and when the
/// nearest two are equally near: their distances differ by
/// at most `tieFraction` of the tolerance (a millionth: 0.000014 ft at 1:1200 in EPSG:2924), as
/// at a vertex two lines share or inside two overlapping polygons. On an annotation table the
/// rows' footprints are searched.
public struct PickFeature: EditRequest {
    public static var writes: Bool { false }
    public var table: String
    /// The location, in `crs`.
    public var location: Point
    /// The CRS of `location`; nil: the table's own.
    public var crs: String?

    /// How close two distances must be, as a fraction of the tolerance, to count as equal.
    public static let tieFraction = 1e-6
    /// How many candidates a refusal lists at most.
    public static let listedCandidates = 10
    /// How many of the nearest features beyond the tolerance an empty location lists.
    public static let listedNearest = 3

    public init(table: String, location: Point, crs: String? = nil) {
        self.table = table
        self.location = location
        self.crs = crs
    }

    /// - Throws: `EditError.nothingAtLocation`, `EditError.ambiguousLocation` with the
    ///   candidates nearest first, and what `Identify` throws.
    public func run(in service: EditService) throws -> PickedFeature {
        let found = try service.run(Identify(location: location, crs: crs, table: table))
        guard let searched = found.searched.first else { throw StoreError.unknownTable(table) }
        let candidates = Self.candidates(found, annotation: searched.isAnnotation)
        let place = "\(Self.format(location.x)),\(Self.format(location.y))\(crs.map { " (\($0))" } ?? "")"
        guard let nearest = candidates.first else {
            // Nothing near, because the location is nowhere near the data: say that instead.
            try service.checkNearData(.point(location), crs: crs, in: service.store.featureTable(searched.table))
            // What is farther, so that the user sees how far off the location was: the window
            // grows tenfold up to 1000 times the tolerance.
            var farther: [EditError.LocationCandidate] = []
            for factor in [10.0, 100.0, 1000.0] where farther.isEmpty {
                let wider = try service.run(Identify(location: location, crs: crs, tolerance: searched.tolerance * factor, table: table))
                farther = Array(Self.candidates(wider, annotation: searched.isAnnotation).prefix(Self.listedNearest))
            }
            throw EditError.nothingAtLocation(table: searched.table, location: place, tolerance: searched.tolerance, nearest: farther)
        }
        if candidates.count > 1, candidates[1].distance - nearest.distance <= searched.tolerance * Self.tieFraction {
            throw EditError.ambiguousLocation(table: searched.table, location: place, tolerance: searched.tolerance,
                                              candidates: Array(candidates.prefix(Self.listedCandidates)), more: max(0, candidates.count - Self.listedCandidates))
        }
        return PickedFeature(table: searched.table, fid: nearest.fid, distance: nearest.distance)
    }

    /// The fids and distances of what `found` lists of the table's kind, in its order.
    static func candidates(_ found: IdentifyResult, annotation: Bool) -> [EditError.LocationCandidate] {
        annotation
            ? found.annotation.map { EditError.LocationCandidate(fid: $0.row.fid ?? 0, distance: $0.distance) }
            : found.features.map { EditError.LocationCandidate(fid: $0.fid, distance: $0.distance) }
    }

    /// A coordinate as typed: no exponent, no trailing zeros.
    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// The feature `PickFeature` found.
public struct PickedFeature: Sendable, Encodable, Hashable {
    /// The table's name as the file spells it.
    public var table: String
    public var fid: Int64
    /// Its distance from the location, in the table's CRS units.
    public var distance: Double
}
