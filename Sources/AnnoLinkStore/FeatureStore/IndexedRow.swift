import AnnoLinkGeometry

/// Which rows `FeatureStore.forEachIndexedRow` takes by the size of their index box.
public enum IndexBoxSize: Hashable, Sendable {
    /// Every size.
    case any
    /// Boxes at least this wide and at least this high (table CRS units).
    case bothSidesAtLeast(Double)
    /// Boxes narrower or lower than this: the rest of `bothSidesAtLeast`.
    case someSideUnder(Double)
    /// Boxes at least this wide or at least this high.
    case someSideAtLeast(Double)
    /// Boxes narrower and lower than this: the rest of `someSideAtLeast`.
    case bothSidesUnder(Double)
    /// Boxes at least `across` on both sides, or at least `along` on one: the rest of the boxes
    /// under `across` on their narrower side and under `along` on their longer (a picture draws
    /// those from the box alone). With `along` equal to `across`, `someSideAtLeast(across)`.
    case notThinAndShort(across: Double, along: Double)

    /// Whether `box` has a size this admits (its sides measured as `maxX - minX`, `maxY - minY`).
    public func admits(_ box: Envelope) -> Bool {
        let width = box.maxX - box.minX, height = box.maxY - box.minY
        switch self {
        case .any: return true
        case .bothSidesAtLeast(let d): return width >= d && height >= d
        case .someSideUnder(let d): return width < d || height < d
        case .someSideAtLeast(let d): return width >= d || height >= d
        case .bothSidesUnder(let d): return width < d && height < d
        case .notThinAndShort(let across, let along): return (width >= across && height >= across) || width >= along || height >= along
        }
    }
}

/// What `FeatureStore.forEachIndexedRow` reads of each row besides its fid and index box.
public enum IndexedRowReading: Hashable, Sendable {
    /// Nothing more: the spatial index alone answers where it can.
    case box
    /// The geometry (no attributes).
    case geometry
    /// The row as an annotation row (an annotation table's).
    case annotation
}

/// One row `FeatureStore.forEachIndexedRow` read.
public struct IndexedRow {
    public var fid: Int64
    /// The row's envelope as a spatial index keeps it: rounded outward to 32-bit floats
    /// (`Envelope.indexBox`).
    public var box: Envelope
    /// With `IndexedRowReading.geometry`.
    public var geometry: Geometry?
    /// With `IndexedRowReading.annotation`.
    public var annotation: AnnotationRow?

    public init(fid: Int64, box: Envelope, geometry: Geometry? = nil, annotation: AnnotationRow? = nil) {
        self.fid = fid
        self.box = box
        self.geometry = geometry
        self.annotation = annotation
    }

    /// Whether this row is one `forEachIndexedRow(meeting: window, size: size)` takes: its box
    /// meets `window` (nil: anywhere), edges included, and has a size `size` admits.
    public func isTaken(meeting window: Envelope?, size: IndexBoxSize) -> Bool {
        if let window, box.maxX < window.minX || box.minX > window.maxX || box.maxY < window.minY || box.minY > window.maxY {
            return false
        }
        return size.admits(box)
    }
}

extension Envelope {
    /// The box a GeoPackage's R-tree keeps for this envelope: each side a 32-bit float, rounded
    /// outward as SQLite's R-tree rounds (a value a float cannot hold is moved by one part in
    /// 2^23 away from the box's inside before it is rounded to the nearest float). A store
    /// whose index keeps other boxes reports these, so that every store draws the same picture.
    public var indexBox: Envelope {
        Envelope(minX: Self.roundedDown(minX), minY: Self.roundedDown(minY), maxX: Self.roundedUp(maxX), maxY: Self.roundedUp(maxY))
    }

    private static let towardZero = 1.0 - 1.0 / 8_388_608.0
    private static let awayFromZero = 1.0 + 1.0 / 8_388_608.0

    private static func roundedDown(_ d: Double) -> Double {
        var f = Float(d)
        if Double(f) > d { f = Float(d * (d < 0 ? awayFromZero : towardZero)) }
        return Double(f)
    }

    private static func roundedUp(_ d: Double) -> Double {
        var f = Float(d)
        if Double(f) < d { f = Float(d * (d < 0 ? towardZero : awayFromZero)) }
        return Double(f)
    }
}
