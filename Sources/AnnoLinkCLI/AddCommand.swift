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
            """,
        exitStatus: """
            0 done, 64 bad usage or unparsable geometry, 65 unknown table or field, a
            value or geometry that does not fit, 66 no such file.
            """,
        example: "annolink add loudoun.gpkg ParcelLines_1 --geometry 'LINESTRING (11790000 7056000, 11790050 7056020)'")

    static let geometry = ArgumentDeclaration.option("--geometry", value: "WKT|GEOJSON", required: true, help: """
        WKT (POINT (x y), LINESTRING (...)) or a GeoJSON geometry object
        """)
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: "the CRS of the geometry (default: the table's own)")
    static let values = ArgumentDeclaration.remainingPositionals("FIELD=VALUE")
    static let arguments = [SetCommand.file, SetCommand.table, geometry, crs, values, EditOutput.allowEmpty, EditOutput.dryRun, MoveCommand.json]

    var json: Bool
    var dryRun: Bool
    var allowEmpty: Bool
    var geometryText: String
    var crs: String?
    var path: String
    var table: String
    var words: [String]
    var values: [FieldAssignment] = []
    var shape = Geometry.point(Point(x: 0, y: 0))

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(MoveCommand.json)
        dryRun = arguments.flag(EditOutput.dryRun)
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
            shape = geometryText.trimmingCharacters(in: .whitespaces).hasPrefix("{") ? try Geometry(geoJSON: geometryText) : try Geometry(wkt: geometryText)
        } catch {
            throw CommandError.usage("\(Self.geometry.name): \(error)")
        }
    }

    func run() throws -> ExitStatus {
        let service = EditService(package: try GeoPackage(path: path))
        let result = try EditOutput.run(AddFeature(table: table, geometry: shape, crs: crs, values: values, allowEmpty: allowEmpty,
                                                   command: EditOutput.commandLine), in: service, dryRun: dryRun)
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
