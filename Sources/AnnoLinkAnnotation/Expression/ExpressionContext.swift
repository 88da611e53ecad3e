import AnnoLinkGeometry
import AnnoLinkStore

/// One feature as a label expression sees it: its attribute values, its geometry and the size of
/// its CRS's linear unit.
///
/// Field names are looked up as Arcade does, without regard to case: an exact match is tried first
/// (one hash lookup), then a case-insensitive scan of the attribute names.
public struct ExpressionContext: Sendable {
    /// The feature's attribute values by column name.
    public var attributes: [String: SQLValue]
    /// The feature's geometry in its table's CRS, or nil when it has none.
    public var geometry: Geometry?
    /// Metres per unit of the CRS's horizontal axes (1200/3937 for the US survey foot, 0.3048 for
    /// the international foot, 1 for the metre; `CoordinateReferenceSystem.metresPerUnit`); nil
    /// for a geographic CRS or when unknown. `Length` with a unit converts with it, and fails
    /// with `noLinearUnit` when it is nil rather than guess.
    public var metresPerUnit: Double?

    /// A feature with `attributes` and `geometry`, in a CRS whose unit is `metresPerUnit` metres.
    public init(attributes: [String: SQLValue], geometry: Geometry? = nil, metresPerUnit: Double? = nil) {
        self.attributes = attributes
        self.geometry = geometry
        self.metresPerUnit = metresPerUnit
    }

    /// The value of the field called `name` (any case), or nil when the feature has no such field.
    public func value(ofField name: String) -> SQLValue? {
        if let exact = attributes[name] { return exact }
        for (key, value) in attributes where Self.equalIgnoringCase(key, name) { return value }
        return nil
    }

    /// Compares ASCII names byte by byte without allocating; falls back to full Unicode case
    /// folding only when a name has non-ASCII characters.
    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        var ia = a.utf8.makeIterator()
        var ib = b.utf8.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return true
            case (let x?, let y?):
                if x >= 0x80 || y >= 0x80 { return a.lowercased() == b.lowercased() }
                if lowerASCII(x) != lowerASCII(y) { return false }
            default:
                // Different lengths can still match after Unicode folding only if non-ASCII.
                let nonASCII = a.utf8.contains { $0 >= 0x80 } || b.utf8.contains { $0 >= 0x80 }
                return nonASCII && a.lowercased() == b.lowercased()
            }
        }
    }

    private static func lowerASCII(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }
}
