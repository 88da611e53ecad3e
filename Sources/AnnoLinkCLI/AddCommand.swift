import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink add`: a new feature, with annotation where its classes say AutoCreate.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "add a feature; annotation is created where the class says so",
        discussion: """
            Inserts a feature and creates its annotation for every class labelling TABLE whose
            AutoCreate is on. The geometry is validated with GEOS first (finite coordinates, not
            empty, valid polygons) and must be of the table's kind. One transaction with a journal
            entry.

            Esri JSON (the ArcGIS REST API's geometry objects) is read with its spatialReference:
            the geometry is transformed with PROJ from the CRS its latestWkid (else wkid) names —
            EPSG:n for EPSG's codes, ESRI:n for Esri's own, EPSG:3857 for 102100 — into the
            table's. With --crs as well, both must name the same CRS.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done, 64 bad usage or unparsable geometry, 65 unknown table or field, a
            value or geometry that does not fit, a wkid PROJ does not know or one that
            contradicts --crs, 66 no such file.
            """,
        example: """
            annolink add loudoun.gpkg ParcelLines_1 --geometry 'LINESTRING (11790000 7056000, 11790050 7056020)'
            annolink add loudoun.gpkg Loudoun_Address_Points_1 AD_ADDRESS=45770 \\
              --geometry '{"x":-77.4163,"y":39.0209,"spatialReference":{"wkid":4326}}'
            """)

    static let geometry = ArgumentDeclaration.option("--geometry", value: "WKT|GEOJSON|ESRIJSON", required: true, help: """
        WKT (POINT (x y), LINESTRING (...)), a GeoJSON geometry object, or an
        Esri JSON geometry object ({"x","y"}, {"points"}, {"paths"}, {"rings"}),
        whose spatialReference (latestWkid, else wkid) gives its CRS
        """)
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: """
        the CRS of the geometry (default: an Esri JSON spatialReference, else the
        table's own); one that contradicts the spatialReference is refused
        """)
    static let values = ArgumentDeclaration.remainingPositionals("FIELD=VALUE")
    static let arguments = [SetCommand.file, SetCommand.table, geometry, crs, values, EditOutput.allowEmpty, EditOutput.force, EditOutput.dryRun, MoveCommand.json]

    var json: Bool
    var dryRun: Bool
    var force: Bool
    var allowEmpty: Bool
    var geometryText: String
    var crs: String?
    var path: String
    var table: String
    var words: [String]
    var values: [FieldAssignment] = []
    var input = GeometryInput(geometry: .point(Point(x: 0, y: 0)), format: .wkt)
    /// The geometry read from --geometry, in its own CRS.
    var shape: Geometry { input.geometry }

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(MoveCommand.json)
        dryRun = arguments.flag(EditOutput.dryRun)
        force = arguments.flag(EditOutput.force)
        allowEmpty = arguments.flag(EditOutput.allowEmpty)
        geometryText = try arguments.required(Self.geometry)
        crs = try arguments.option(Self.crs)
        path = try arguments.positional(SetCommand.file)
        table = try arguments.positional(SetCommand.table)
        words = arguments.remainingPositionals()
    }

    mutating func validate() throws {
        values = try EditOutput.assignments(words)
        do {
            input = try GeometryInput(text: geometryText)
        } catch {
            throw CommandError.usage("\(Self.geometry.name): \(error)")
        }
    }

    func run() throws -> ExitStatus {
        let service = EditService(store: try StoreTarget.open(path))
        service.allowsDistantLocations = force
        let request = AddFeature(table: table, geometry: input.geometry, crs: try input.referenceSystem(given: crs), values: values,
                                 allowEmpty: allowEmpty, command: EditOutput.commandLine)
        let result = try EditOutput.run(request, in: service, dryRun: dryRun)
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
