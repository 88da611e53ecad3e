import AnnoLinkGeometry
import AnnoLinkStore

/// Synthetic, deterministic, Loudoun-like data in EPSG:2924 (US survey feet): a grid of blocks
/// between named streets, each block two rows of parcels facing the streets, an address point
/// per parcel, and the parcel boundaries as two-point segments with shared edges written once.
///
/// The sizes follow what was measured in the Loudoun data (docs/benchmarks.md, "What the sample
/// looks like"): frontages, depths and street widths are drawn from those ranges, and each
/// address point sits where its label, at the reference scale, clears the labels of the
/// parcel's lines — so every label of the sample has room for a position without a conflict,
/// as in the real data.
///
/// Generation streams block by block: memory does not grow with the number of parcels, and
/// fids follow the blocks, so consecutive fids are near each other on the map.
public struct SampleGenerator {
    /// The CRS of the sample: NAD83(HARN) / Virginia North, US survey feet, as the Loudoun data.
    public static let srsID: Int64 = 2924
    /// Parcels per row of a block.
    static let parcelsPerRow = 12
    /// Where the grid starts, near Sterling, Virginia (EPSG:2924, US survey feet).
    static let origin = Point(x: 11_880_000, y: 7_020_000)
    /// A parcel's street frontage, in feet: log-uniform (median 169 ft). Loudoun's run from 61 to
    /// 661 ft (median 255); the floor keeps two parcels' frontage wider than any address label,
    /// so labels two parcels apart never meet.
    static let frontage: ClosedRange<Double> = 95...300
    /// The depth of a block from street to street, in feet, the same along a grid row so that
    /// the streets run straight; the two rows of parcels split it.
    static let blockDepth: ClosedRange<Double> = 340...600
    /// The south row's share of the block depth, drawn per block: parcels 143 to 348 ft deep
    /// (Loudoun's: 109 to 1,535 ft, median 305).
    static let southShare: ClosedRange<Double> = 0.42...0.58
    /// The distance between facing parcel fronts, in feet, drawn per street (Loudoun: 48 to
    /// 96 ft for the middle 80 %, median 72 ft).
    static let streetWidth: ClosedRange<Double> = 50...96

    static let streetNames = [
        "ELMWOOD", "WOODLAND", "ASHGROVE", "CEDAR RIDGE", "MAPLE HILL", "BIRCHWOOD", "OAK TREE", "WILLOW BEND",
        "SYCAMORE", "CHESTNUT", "HICKORY", "LAUREL", "MAGNOLIA", "POPLAR", "SPRUCE", "TULIP", "HAZEL", "JUNIPER",
        "DOGWOOD", "REDBUD", "ALDER", "LINDEN", "BEECHWOOD", "CYPRESS", "HOLLY", "IVY", "LARCH", "MULBERRY",
        "PERSIMMON", "SASSAFRAS", "HEMLOCK", "FAIRFAX", "POTOMAC", "SUGARLAND", "CASCADES", "ALGONKIAN",
        "BROAD RUN", "CLAIBORNE", "DRESDEN", "EDGEWATER",
    ]
    static let streetTypes = ["CT", "DR", "LN", "PL", "RD", "SQ", "TER", "WAY", "CIR", "ST"]

    /// The room the sample's labels take at the reference scale (Tahoma 10 pt at 1:1200), in
    /// feet, across the parcel's depth; the address points are placed from these.
    enum LabelRoom {
        /// The footprint's height: 1.207 em at 10 pt (docs/text-metrics.md).
        static let height = 16.764
        /// From an address point to the middle of its label's footprint: the baseline 3.35 pt
        /// above the point, then half the height less the descent (0.207 em).
        static let pointToLabelMiddle = 3.35 * 1.3889 + height / 2 - 2.869
        /// How far a line's label reaches off its line: 1.5 pt offset plus the ascent.
        static let lineLabelReach = 1.5 * 1.3889 + 13.896
        /// Half a side line's label along the line: "348.25" is 41.5 ft long, and a leaning
        /// line's label reaches a little further in y.
        static let sideLabelHalfLength = 23.0
        /// Clear space kept between an address label and a line's label.
        static let margin = 4.0
    }

    public var parcels: Int
    public var seed: UInt64

    public init(parcels: Int, seed: UInt64) {
        self.parcels = parcels
        self.seed = seed
    }

    /// An address point: the house number and street of one parcel.
    public struct AddressPoint {
        public var location: Point
        public var number: Int64
        public var streetName: String
        public var streetType: String
        public var parcelID: Int64
    }

    /// A parcel boundary segment with the parcels on its left and right (nil: street side).
    public struct ParcelLine {
        public var start: Point
        public var end: Point
        public var leftParcel: Int64?
        public var rightParcel: Int64?
    }

    /// How many blocks there are per row of the grid, chosen to keep the grid roughly square
    /// with blocks of the mean size.
    var blocksPerGridRow: Int {
        let blocks = (parcels + 2 * Self.parcelsPerRow - 1) / (2 * Self.parcelsPerRow)
        let streets = (Self.streetWidth.lowerBound + Self.streetWidth.upperBound) / 2
        let width = Double(Self.parcelsPerRow) * SampleRandom.logUniformMean(Self.frontage) + streets
        let depth = (Self.blockDepth.lowerBound + Self.blockDepth.upperBound) / 2 + streets
        return max(1, Int((Double(blocks) * depth / width).squareRoot().rounded(.up)))
    }

    /// How far into its parcel (from the front, in feet) the middle of an address label goes,
    /// for a parcel `depth` deep. The parcel's line labels take three bands across the depth:
    /// the front's (or, in the north row, the back line's) along one end, the side lines' around
    /// the middle, and the back's along the other end; the label goes between the first two
    /// (`nearFront`) or the last two, at `fraction` of the way across that gap.
    static func labelDepth(parcelDepth depth: Double, nearFront: Bool, fraction: Double) -> Double {
        let half = LabelRoom.height / 2
        let end = LabelRoom.lineLabelReach + LabelRoom.margin + half
        let side = LabelRoom.sideLabelHalfLength + LabelRoom.margin + half
        let (low, high) = nearFront ? (end, depth / 2 - side) : (depth / 2 + side, depth - end)
        precondition(high > low, "a parcel \(depth) ft deep has no room for its address label")
        return low + fraction * (high - low)
    }

    /// Calls the two closures with every address point and parcel line, block by block.
    public func generate(address: (AddressPoint) throws -> Void, line: (ParcelLine) throws -> Void) rethrows {
        var random = SampleRandom(seed: seed)
        let perRow = Self.parcelsPerRow
        let columns = blocksPerGridRow
        var parcelID: Int64 = 0
        var block = 0
        var left = Self.origin.x, bottom = Self.origin.y
        var depth = random.uniform(Self.blockDepth)
        while parcelID < Int64(parcels) {
            let column = block % columns, row = block / columns
            if column == 0 && row > 0 {
                bottom += depth + random.uniform(Self.streetWidth)
                depth = random.uniform(Self.blockDepth)
                left = Self.origin.x
            }
            let south = bottom, north = bottom + depth
            let middle = bottom + depth * random.uniform(Self.southShare)
            let widths = (0..<perRow).map { _ in random.logUniform(Self.frontage) }
            // Break points along the three east-west lines of the block; jitter makes the side
            // lines lean and the front lines tilt a little, so labels get all sorts of angles.
            var breaks: [[Point]] = [[], [], []]
            var x = left
            for i in 0...perRow {
                let inner = i != 0 && i != perRow
                let jitter = inner ? random.uniform(-8...8) : 0
                breaks[0].append(Point(x: x + jitter, y: south + random.uniform(-2...2)))
                breaks[1].append(Point(x: x + (inner ? random.uniform(-8...8) : 0), y: middle))
                breaks[2].append(Point(x: x - jitter, y: north + random.uniform(-2...2)))
                if i < perRow { x += widths[i] }
            }
            left = x + random.uniform(Self.streetWidth)
            let southStreet = row, northStreet = row + 1
            let count = min(2 * perRow, parcels - Int(parcelID))
            let southCount = min(perRow, count), northCount = count - southCount
            for side in 0..<2 {
                let rowCount = side == 0 ? southCount : northCount
                let front = side == 0 ? breaks[0] : breaks[2]
                let street = side == 0 ? southStreet : northStreet
                for i in 0..<rowCount {
                    parcelID += 1
                    let a = front[i], b = front[i + 1]
                    let backA = breaks[1][i], backB = breaks[1][i + 1]
                    let frontMid = Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
                    let backMid = Point(x: (backA.x + backB.x) / 2, y: (backA.y + backB.y) / 2)
                    let parcelDepth = abs(frontMid.y - backMid.y)
                    // Neighbours take turns near the front and near the back, so that two
                    // address labels side by side never share a band.
                    let labelDepth = Self.labelDepth(parcelDepth: parcelDepth, nearFront: (i + side) % 2 == 0,
                                                     fraction: random.uniform(0...1))
                    // The label sits above its point: below the label in the south row, whose
                    // front faces south; above the point's label in the north row.
                    let pointDepth = side == 0 ? labelDepth - LabelRoom.pointToLabelMiddle : labelDepth + LabelRoom.pointToLabelMiddle
                    let t = pointDepth / parcelDepth
                    try address(AddressPoint(
                        location: Point(x: frontMid.x + t * (backMid.x - frontMid.x), y: frontMid.y + t * (backMid.y - frontMid.y)),
                        number: Int64(20_000 + column * 100 + 2 * i + side),
                        streetName: Self.streetNames[street % Self.streetNames.count],
                        streetType: Self.streetTypes[(street / Self.streetNames.count) % Self.streetTypes.count],
                        parcelID: parcelID))
                    // Front edge: the street is on the outside.
                    try line(side == 0
                        ? ParcelLine(start: a, end: b, leftParcel: parcelID, rightParcel: nil)
                        : ParcelLine(start: b, end: a, leftParcel: parcelID, rightParcel: nil))
                    // The middle edge is shared by the two rows: the south parcel writes it.
                    if side == 0 {
                        let northNeighbour = i < northCount ? parcelID + Int64(southCount) : nil
                        try line(ParcelLine(start: breaks[1][i + 1], end: breaks[1][i], leftParcel: parcelID, rightParcel: northNeighbour))
                    }
                    // The west side; the east side only for the last parcel of the row.
                    let sideStart = side == 0 ? breaks[0][i] : breaks[1][i]
                    let sideEnd = side == 0 ? breaks[1][i] : breaks[2][i]
                    try line(ParcelLine(start: sideStart, end: sideEnd, leftParcel: i == 0 ? nil : parcelID - 1, rightParcel: parcelID))
                    if i == rowCount - 1 {
                        let eastStart = side == 0 ? breaks[0][i + 1] : breaks[1][i + 1]
                        let eastEnd = side == 0 ? breaks[1][i + 1] : breaks[2][i + 1]
                        try line(ParcelLine(start: eastStart, end: eastEnd, leftParcel: parcelID, rightParcel: nil))
                    }
                }
            }
            block += 1
        }
    }
}
