import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink identify`: the features and annotation rows near a location.
struct IdentifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "list the features and annotation rows near a location",
        discussion: """
            Lists the features within the tolerance of X,Y, each with its linked annotation, and
            then, separately, the annotation rows whose footprint is within it (with the feature
            each is linked to). Features come as a map draws them, top down: points, then lines,
            then polygons, nearest first within each; annotation rows nearest first. Every
            feature table and annotation table is searched, or only --table. Each table is
            searched in its own CRS: the spatial index (R-tree; GiST on PostGIS) finds the rows near the location
            and GEOS measures the distance (planar, 0 inside a polygon or a footprint). Only
            reads. FILE is a GeoPackage or a PostGIS database (postgresql://…).

            The default tolerance is 10 points of text at the reference scale of the table's
            annotation classes: 10/72 inch × the scale on the ground, in the map units of the
            table's CRS. At 1:1200 in EPSG:2924 (US survey feet) that is 13.889 ft. A table no
            class labels takes the largest reference scale of the file's classes; a file without
            classes needs --tolerance.

            The commands that take TABLE FID (show, set, move, move-vertex, delete) also take
            TABLE --at X,Y and pick the nearest feature the same way.
            """,
        exitStatus: """
            0 done (also when nothing is near), 64 bad usage, 65 unknown table, unknown CRS
            or a location outside it, no annotation class for a default tolerance,
            66 no such file or database, 75 database unreachable (try again).
            """,
        example: """
            annolink identify loudoun.gpkg -77.41643,39.02078 --crs EPSG:4326
            annolink identify loudoun.gpkg 11790768.57,7056614.63 --table Loudoun_Address_Points_1 --tolerance 5
            """)

    static let location = ArgumentDeclaration.positional("X,Y")
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: """
        the CRS of X,Y: EPSG:n, an authority code, WKT or a PROJ string
        (default: each table's own CRS); projected with PROJ
        """)
    static let tolerance = ArgumentDeclaration.option("--tolerance", value: "D", help: """
        how far to look, in the map units of each table's CRS (default: 10 points
        at the reference scale, 10/72 in × scale: 13.889 US ft at 1:1200)
        """)
    static let table = ArgumentDeclaration.option("--table", value: "T", help: "search only this feature or annotation table")
    static let json = ArgumentDeclaration.flag("--json", help: """
        {"location": [x, y], "crs", "searched": [{"table", "kind", "location",
         "tolerance"}], "features": [{"table", "fid", "geometryType", "distance",
         "annotation": [as in show]}], "annotation": [{"annotationTable", "fid",
         "classID", "text", "anchor", "angle", "distance", "originTable", "featureID"}]}
        """)
    static let arguments = [SetCommand.file, location, crs, tolerance, table, json]

    var json: Bool
    var crs: String?
    var toleranceText: String?
    var table: String?
    var path: String
    var locationText: String
    var point = Point(x: 0, y: 0)
    var toleranceValue: Double?

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        crs = try arguments.option(Self.crs)
        toleranceText = try arguments.option(Self.tolerance)
        table = try arguments.option(Self.table)
        path = try arguments.positional(SetCommand.file)
        locationText = try arguments.positional(Self.location)
    }

    mutating func validate() throws {
        point = try EditOutput.coordinate(locationText, option: "the location")
        if let toleranceText {
            guard let value = decimalNumber(toleranceText), value.isFinite, value >= 0 else {
                throw CommandError.usage("--tolerance expects a distance of at least 0 in map units, not '\(toleranceText)'")
            }
            toleranceValue = value
        }
    }

    func run() throws -> ExitStatus {
        let service = EditService(store: try StoreTarget.open(path, readOnly: true))
        let result = try service.run(Identify(location: point, crs: crs, tolerance: toleranceValue, table: table))
        if json {
            Output.line(try Output.json(result))
            return .success
        }
        let tolerances = Set(result.searched.map(\.tolerance))
        let within = tolerances.count == 1 ? "within \(Self.format(tolerances.first!)) (map units) of" : "near"
        Output.line("\(result.searched.count) table\(result.searched.count == 1 ? "" : "s") searched \(within) \(locationText)\(crs.map { " (\($0))" } ?? "")")
        if result.features.isEmpty { Output.line("no features") } else { Output.line("features (points, lines, polygons; nearest first):") }
        for hit in result.features {
            Output.line("  \(hit.table) fid \(hit.fid) (\(hit.geometryType.rawValue)) at \(Self.format(hit.distance))")
            for annotation in hit.annotation {
                Output.line("    annotation \(annotation.annotationTable) fid \(annotation.row.fid ?? 0) class \(annotation.row.classID): '\(annotation.row.text)'")
            }
        }
        if result.annotation.isEmpty { Output.line("no annotation") } else { Output.line("annotation, nearest first:") }
        for hit in result.annotation {
            let link = hit.row.featureID.map { " -> \(hit.originTable ?? "?") fid \($0)" } ?? " (not linked)"
            Output.line("  \(hit.annotationTable) fid \(hit.row.fid ?? 0) at \(Self.format(hit.distance)): '\(hit.row.text)'\(link)")
        }
        return .success
    }

    /// A distance in map units, to a thousandth.
    static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}
