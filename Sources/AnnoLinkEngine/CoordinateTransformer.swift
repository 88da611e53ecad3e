import AnnoLinkGeometry
import CPROJ

/// Transforms coordinates between any two coordinate reference systems, given as `EPSG:n` (or a
/// bare EPSG number), another authority's code (`ESRI:102747`), WKT, PROJJSON or (unless made
/// with `acceptsPROJStrings: false`) a PROJ string. Every definition passes
/// `CRSDefinitionGate` before PROJ sees it: no file references, bounded length and nesting.
///
/// Owns a PROJ context and caches, per (source, target) pair of definition strings, the
/// transformation made for it, and per definition the CRS's description. Nothing is made before
/// it is needed: making a transformation reads PROJ's database and costs tens of milliseconds,
/// so a command that does not reproject must not ask for one. Coordinates are x east
/// (longitude), y north (latitude) in every CRS; angles in degrees.
///
/// PROJ's log goes into the errors thrown, never to stderr. Not `Sendable`: make one per task.
public final class CoordinateTransformer {
    private let context: PROJContext
    /// Whether PROJ strings (`+proj=…`) and bare names reach PROJ; false in the service.
    public let acceptsPROJStrings: Bool
    private var transformations: [TransformationKey: Transformation] = [:]
    private var systems: [String: CoordinateReferenceSystem] = [:]
    private var areas: [String: AreaOfUse?] = [:]

    private struct TransformationKey: Hashable {
        var source: String
        var target: String
    }

    /// A transformer with its own PROJ context and empty caches; cheap (it opens no database).
    /// - Parameters:
    ///   - acceptsPROJStrings: false to refuse PROJ strings and names, taking only authority
    ///     codes, WKT and PROJJSON (what the service takes from clients and files).
    ///   - handleCounter: counts the PROJ objects of this transformer while they live.
    /// - Throws: `PROJError` when PROJ cannot make a context. Wraps `proj_context_create`,
    ///   `proj_log_func` and `proj_context_set_enable_network`.
    public init(acceptsPROJStrings: Bool = true, handleCounter: HandleCounter? = nil) throws {
        context = try PROJContext(handleCounter: handleCounter)
        self.acceptsPROJStrings = acceptsPROJStrings
    }

    /// PROJ's version, e.g. `9.1.1`. Wraps `proj_info`.
    public static var projVersion: String {
        guard annolink_proj_load() == 0 else { return "not loadable" }
        return proj_info().version.map { String(cString: $0) } ?? "unknown"
    }

    /// The number of transformations made and cached so far.
    public var cachedTransformationCount: Int {
        transformations.count
    }

    /// The description of the CRS `definition` names: name, authority code, unit and its size in
    /// metres, WKT 1 for `gpkg_spatial_ref_sys`. Cached per definition string.
    /// - Throws: `EngineError.refusedCRS` when `CRSDefinitionGate` refuses `definition`;
    ///   `EngineError.unknownCRS` naming `definition` when PROJ does not know it or it is
    ///   not a CRS; `PROJError` when PROJ cannot describe it. Wraps `proj_create`,
    ///   `proj_crs_get_coordinate_system`, `proj_cs_get_axis_info` and `proj_as_wkt`.
    public func referenceSystem(_ definition: String) throws -> CoordinateReferenceSystem {
        if let known = systems[definition] { return known }
        let crs = try makeCRS(definition)
        let system = try CoordinateReferenceSystem(describing: crs, definition: definition)
        systems[definition] = system
        return system
    }

    /// The transformation from `source` to `target`, made on first use and cached. `OGC:CRS84`
    /// gets EPSG:4326's operation (`makeCRS(_:forOperation:)`), so both names give one answer.
    /// - Throws: `EngineError.unknownCRS` naming the CRS PROJ does not know,
    ///   `EngineError.noTransformation`, `PROJError`. Wraps `proj_create_crs_to_crs_from_pj` and
    ///   `proj_normalize_for_visualization`.
    public func transformation(from source: String, to target: String) throws -> Transformation {
        let key = TransformationKey(source: source, target: target)
        if let cached = transformations[key] { return cached }
        let sourceCRS = try makeCRS(source, forOperation: true)
        let targetCRS = try makeCRS(target, forOperation: true)
        let operation: PROJObject
        do {
            operation = try context.object("proj_create_crs_to_crs_from_pj") {
                proj_create_crs_to_crs_from_pj($0, sourceCRS.raw, targetCRS.raw, nil, nil)
            }
        } catch let error as PROJError {
            throw EngineError.noTransformation(from: source, to: target, cause: error)
        }
        let normalized = try context.object("proj_normalize_for_visualization") {
            proj_normalize_for_visualization($0, operation.raw)
        }
        let sourceSystem = try referenceSystem(source)
        let targetSystem = try referenceSystem(target)
        let transformation = Transformation(source: sourceSystem, target: targetSystem, operation: normalized)
        transformations[key] = transformation
        return transformation
    }

    /// The area where the CRS `definition` is meant to be used (EPSG's area of use), from
    /// PROJ's database; nil when PROJ records none (WKT without an identifier, a PROJ string).
    /// Cached per definition string.
    /// - Throws: as `referenceSystem(_:)` for a definition PROJ does not take. Wraps
    ///   `proj_get_area_of_use`.
    public func areaOfUse(_ definition: String) throws -> AreaOfUse? {
        if let known = areas[definition] { return known }
        let crs = try makeCRS(definition)
        var west = 0.0, south = 0.0, east = 0.0, north = 0.0
        var name: UnsafePointer<CChar>?
        let found = context.call { proj_get_area_of_use($0, crs.raw, &west, &south, &east, &north, &name) } != 0
        // PROJ answers -1000 for an edge it does not know.
        let area = found && [west, south, east, north].allSatisfy({ $0 > -1000 && $0.isFinite })
            ? AreaOfUse(west: west, south: south, east: east, north: north, name: name.map { String(cString: $0) }) : nil
        areas[definition] = area
        return area
    }

    /// `point` from `source` to `target` (units of each CRS).
    /// - Throws: as `transformation(from:to:)` and `Transformation.transform(_:)`.
    public func transform(_ point: Point, from source: String, to target: String) throws -> Point {
        try transformation(from: source, to: target).transform(point)
    }

    /// `geometry` from `source` to `target`, vertex by vertex.
    /// - Throws: as `transformation(from:to:)` and `Transformation.transform(_:)`.
    public func transform(_ geometry: Geometry, from source: String, to target: String) throws -> Geometry {
        try transformation(from: source, to: target).transform(geometry)
    }

    /// A CRS object for `definition`, which must pass `CRSDefinitionGate` first: the one place
    /// PROJ is given CRS text. Wraps `proj_create`.
    ///
    /// With `forOperation`, `OGC:CRS84` is made as `EPSG:4326` (`CoordinateReferenceSystem
    /// .operationDefinition`): the operation is normalized to longitude, latitude either way,
    /// and PROJ, left to choose, picks another datum shift for CRS84 than for EPSG:4326 (1.2 cm
    /// apart in Virginia, and a round trip through CRS84 that misses by 3 ft), so that one
    /// point would have two longitudes.
    private func makeCRS(_ definition: String, forOperation: Bool = false) throws -> PROJObject {
        try CRSDefinitionGate.check(definition, acceptingPROJStrings: acceptsPROJStrings)
        let given = CoordinateReferenceSystem.projDefinition(definition)
        let text = forOperation ? CoordinateReferenceSystem.operationDefinition(given) : given
        let crs: PROJObject
        do {
            crs = try context.object("proj_create") { proj_create($0, text) }
        } catch let error as PROJError {
            throw EngineError.unknownCRS(definition, cause: error)
        }
        guard proj_is_crs(crs.raw) != 0 else {
            let kind = proj_get_name(crs.raw).map { "'\(String(cString: $0))'" } ?? "it"
            throw EngineError.unknownCRS(definition, cause: PROJError(
                function: "proj_is_crs", code: 0, codeDescription: nil,
                messages: ["\(kind) is not a coordinate reference system"]))
        }
        return crs
    }
}

@available(*, unavailable)
extension CoordinateTransformer: Sendable {}
