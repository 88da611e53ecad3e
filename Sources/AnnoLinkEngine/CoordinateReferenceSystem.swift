import CPROJ

/// What annolink needs to know about a coordinate reference system: its name, authority code,
/// the unit of its horizontal axes, and its WKT for `gpkg_spatial_ref_sys`.
///
/// Made by `CoordinateTransformer.referenceSystem(_:)` from PROJ's description of the CRS
/// (`proj_create`, `proj_crs_get_coordinate_system`, `proj_cs_get_axis_info`, `proj_as_wkt`).
/// A plain value: it owns no PROJ object.
public struct CoordinateReferenceSystem: Hashable, Sendable {
    /// The definition as the caller gave it: `EPSG:2924`, `ESRI:102747`, WKT or a PROJ string.
    public var definition: String
    /// PROJ's name for the CRS, e.g. `NAD83(HARN) / Virginia North (ftUS)`; the
    /// `srs_name` of `gpkg_spatial_ref_sys`.
    public var name: String
    /// The authority that issued the CRS's code, e.g. `EPSG`; nil for a CRS defined by WKT
    /// without an ID or by a PROJ string. The `organization` of `gpkg_spatial_ref_sys`.
    public var authority: String?
    /// The authority's code, e.g. `2924`.
    public var code: String?
    /// Whether coordinates are longitude and latitude (a geographic CRS) rather than projected
    /// eastings and northings.
    public var isGeographic: Bool
    /// The unit of the horizontal axes (both use the same one in every CRS annolink accepts).
    public var unit: CoordinateUnit
    /// OGC WKT 1 as GDAL writes it (`PJ_WKT1_GDAL`, one line): the `definition` column of
    /// `gpkg_spatial_ref_sys`. Nil when the CRS cannot be written as WKT 1.
    public var wkt1: String?
    /// WKT 2 (ISO 19162:2019, one line): the `definition_12_063` column of GeoPackage's CRS WKT
    /// extension. Nil when PROJ cannot write it.
    public var wkt2: String?

    /// A description assembled by hand; normally PROJ makes these.
    public init(definition: String, name: String, authority: String?, code: String?,
                isGeographic: Bool, unit: CoordinateUnit, wkt1: String?, wkt2: String?) {
        self.definition = definition
        self.name = name
        self.authority = authority
        self.code = code
        self.isGeographic = isGeographic
        self.unit = unit
        self.wkt1 = wkt1
        self.wkt2 = wkt2
    }

    /// The code as an integer, for `organization_coordsys_id` and `srs_id`; nil when there is no
    /// code or it is not a number.
    public var numericCode: Int? {
        code.flatMap { Int($0) }
    }

    /// Metres per unit of the horizontal axes (0.3048 for the international foot, 1200/3937 for
    /// the US survey foot); nil for a geographic CRS, whose unit is an angle.
    public var metresPerUnit: Double? {
        unit.kind == .linear ? unit.factor : nil
    }
}

/// The unit of a CRS's horizontal axes and its size in SI units.
public struct CoordinateUnit: Hashable, Sendable {
    /// Whether the unit measures length or angle.
    public enum Kind: Hashable, Sendable {
        /// A length: metre, foot, US survey foot.
        case linear
        /// An angle: degree, grad.
        case angular
    }

    /// PROJ's name, e.g. `US survey foot`, `foot`, `metre`, `degree`.
    public var name: String
    /// Whether it measures length or angle.
    public var kind: Kind
    /// Metres per unit for a linear unit, radians per unit for an angular one.
    public var factor: Double

    /// A unit called `name` of `kind`, worth `factor` metres or radians.
    public init(name: String, kind: Kind, factor: Double) {
        self.name = name
        self.kind = kind
        self.factor = factor
    }
}

extension CoordinateReferenceSystem {
    /// The definition PROJ is given for `definition`: a bare number means an EPSG code, and a
    /// PROJ string gets `+type=crs` so that PROJ reads it as a CRS rather than an operation.
    static func projDefinition(_ definition: String) -> String {
        let text = definition.trimmingWhitespace()
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit) { return "EPSG:\(text)" }
        if text.hasPrefix("+"), !text.contains("+type=crs") { return text + " +type=crs" }
        return text
    }

    /// The names of WGS 84 longitude, latitude (OGC's CRS84) that PROJ knows, lowercased.
    static let crs84Names: Set<String> = [
        "ogc:crs84", "crs84", "urn:ogc:def:crs:ogc:1.3:crs84", "urn:ogc:def:crs:ogc::crs84",
        "http://www.opengis.net/def/crs/ogc/1.3/crs84", "https://www.opengis.net/def/crs/ogc/1.3/crs84",
    ]

    /// The definition a transformation is made from for `definition` (as `projDefinition` gives
    /// it): `EPSG:4326` for CRS84, which differs from it only in axis order, and that a
    /// transformation normalized for visualization does not keep; the definition itself
    /// otherwise. One operation for both names, so that every interface gives a point one
    /// longitude (docs/engine.md, "CRS84 and EPSG:4326").
    static func operationDefinition(_ definition: String) -> String {
        crs84Names.contains(definition.lowercased()) ? "EPSG:4326" : definition
    }

    /// PROJ's description of `crs`, a CRS object on its context.
    /// - Throws: `PROJError` when PROJ cannot describe its coordinate system.
    init(describing crs: PROJObject, definition: String) throws {
        let context = crs.context
        // The horizontal part: the source of a bound CRS (a PROJ string with +towgs84), the first
        // member of a compound CRS (horizontal + vertical).
        var horizontal = crs
        while true {
            let type = proj_get_type(horizontal.raw)
            if type == PJ_TYPE_BOUND_CRS {
                let current = horizontal
                horizontal = try context.object("proj_get_source_crs") { proj_get_source_crs($0, current.raw) }
            } else if type == PJ_TYPE_COMPOUND_CRS {
                let current = horizontal
                horizontal = try context.object("proj_crs_get_sub_crs") { proj_crs_get_sub_crs($0, current.raw, 0) }
            } else {
                break
            }
        }
        let horizontalCRS = horizontal
        let system = try context.object("proj_crs_get_coordinate_system") {
            proj_crs_get_coordinate_system($0, horizontalCRS.raw)
        }
        var unitName: UnsafePointer<CChar>?
        var factor = 0.0
        guard context.call({ proj_cs_get_axis_info($0, system.raw, 0, nil, nil, nil, &factor, &unitName, nil, nil) }) != 0 else {
            throw context.failure("proj_cs_get_axis_info")
        }
        let systemType = context.call { proj_cs_get_type($0, system.raw) }
        let horizontalType = proj_get_type(horizontal.raw)

        self.init(
            definition: definition,
            name: proj_get_name(crs.raw).map { String(cString: $0) } ?? "unnamed",
            authority: proj_get_id_auth_name(crs.raw, 0).map { String(cString: $0) },
            code: proj_get_id_code(crs.raw, 0).map { String(cString: $0) },
            isGeographic: horizontalType == PJ_TYPE_GEOGRAPHIC_2D_CRS || horizontalType == PJ_TYPE_GEOGRAPHIC_3D_CRS,
            unit: CoordinateUnit(
                name: unitName.map { String(cString: $0) } ?? "unknown",
                kind: systemType == PJ_CS_TYPE_ELLIPSOIDAL ? .angular : .linear,
                factor: factor),
            wkt1: Self.wkt(of: crs, PJ_WKT1_GDAL),
            wkt2: Self.wkt(of: crs, PJ_WKT2_2019))
    }

    /// The CRS as single-line WKT of `type`, or nil when it cannot be written so.
    /// Wraps `proj_as_wkt`, whose string belongs to the object and is copied here.
    private static func wkt(of crs: PROJObject, _ type: PJ_WKT_TYPE) -> String? {
        "MULTILINE=NO".withCString { option in
            let options: [UnsafePointer<CChar>?] = [option, nil]
            return options.withUnsafeBufferPointer { buffer in
                crs.context.call { proj_as_wkt($0, crs.raw, type, buffer.baseAddress) }.map { String(cString: $0) }
            }
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
