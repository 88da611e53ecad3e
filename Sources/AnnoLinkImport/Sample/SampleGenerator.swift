import AnnoLinkGeometry
import AnnoLinkStore

/// Synthetic, deterministic, Loudoun-like data in EPSG:2924 (US survey feet): a grid of blocks
/// between named streets, each block two rows of parcels facing the streets, an address point
/// per parcel, and the parcel boundaries as two-point segments with shared edges written once.
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
    static let streetWidth = 60.0
    /// The east-west length of a block, in feet.
    static let blockWidth = 960.0

    static let streetNames = [
        "ELMWOOD", "WOODLAND", "ASHGROVE", "CEDAR RIDGE", "MAPLE HILL", "BIRCHWOOD", "OAK TREE", "WILLOW BEND",
        "SYCAMORE", "CHESTNUT", "HICKORY", "LAUREL", "MAGNOLIA", "POPLAR", "SPRUCE", "TULIP", "HAZEL", "JUNIPER",
        "DOGWOOD", "REDBUD", "ALDER", "LINDEN", "BEECHWOOD", "CYPRESS", "HOLLY", "IVY", "LARCH", "MULBERRY",
        "PERSIMMON", "SASSAFRAS", "HEMLOCK", "FAIRFAX", "POTOMAC", "SUGARLAND", "CASCADES", "ALGONKIAN",
        "BROAD RUN", "CLAIBORNE", "DRESDEN", "EDGEWATER",
    ]
    static let streetTypes = ["CT", "DR", "LN", "PL", "RD", "SQ", "TER", "WAY", "CIR", "ST"]

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

    /// How many blocks there are per row of the grid, chosen to keep the grid roughly square.
    var blocksPerGridRow: Int {
        let blocks = (parcels + 2 * Self.parcelsPerRow - 1) / (2 * Self.parcelsPerRow)
        // A block is about 960 ft wide and 320 ft deep: three times as many blocks down as across.
        return max(1, Int((Double(blocks) / 3).squareRoot().rounded(.up)))
    }

    /// Calls the two closures with every address point and parcel line, block by block.
    public func generate(address: (AddressPoint) throws -> Void, line: (ParcelLine) throws -> Void) rethrows {
        var random = SampleRandom(seed: seed)
        let perRow = Self.parcelsPerRow
        let columns = blocksPerGridRow
        var parcelID: Int64 = 0
        var block = 0
        while parcelID < Int64(parcels) {
            let column = block % columns, row = block / columns
            let left = Self.origin.x + Double(column) * (Self.blockWidth + Self.streetWidth)
            let bottom = Self.origin.y + Double(row) * (2 * 130 + Self.streetWidth)
            let south = bottom, middle = bottom + 130 + random.uniform(-10...10), north = bottom + 260
            // Break points along the three east-west lines of the block; jitter makes the side
            // lines lean and the front lines tilt, so labels get all sorts of angles.
            var widths = (0..<perRow).map { _ in random.uniform(55...105) }
            let scale = Self.blockWidth / widths.reduce(0, +)
            widths = widths.map { $0 * scale }
            var breaks: [[Point]] = [[], [], []]
            var x = left
            for i in 0...perRow {
                let inner = i != 0 && i != perRow
                let jitter = inner ? random.uniform(-12...12) : 0
                breaks[0].append(Point(x: x + jitter, y: south + random.uniform(-3...3)))
                breaks[1].append(Point(x: x + (inner ? random.uniform(-12...12) : 0), y: middle))
                breaks[2].append(Point(x: x - jitter, y: north + random.uniform(-3...3)))
                if i < perRow { x += widths[i] }
            }
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
                    let frontMid = Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
                    let inward = side == 0 ? 35.0 : -35.0
                    try address(AddressPoint(
                        location: Point(x: frontMid.x, y: frontMid.y + inward),
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
