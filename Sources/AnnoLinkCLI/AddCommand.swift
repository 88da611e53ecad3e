import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore

/// `annolink add`: a new feature, with annotation where its classes say AutoCreate.
enum AddCommand: Command {
    static let name = "add"
    static let summary = "add a feature; annotation is created where the class says so"
    static let help = """
        usage: annolink add FILE.gpkg TABLE --geometry WKT|GEOJSON [--crs CRS] [FIELD=VALUE...] [--json]

        Inserts a feature and creates its annotation for every class labelling TABLE whose
        AutoCreate is on. The geometry is validated with GEOS first (finite coordinates, not
        empty, valid polygons) and must be of the table's kind. One transaction with a journal
        entry.

        options:
          --geometry G   WKT (POINT (x y), LINESTRING (...)) or a GeoJSON geometry object
          --crs CRS      the CRS of the geometry (default: the table's own)
          --json         what changed (see 'annolink set --help')

        exit status: 0 done, 64 bad usage or unparsable geometry, 65 unknown table or field, a
        value or geometry that does not fit, 66 no such file.

        example:
          annolink add loudoun.gpkg ParcelLines_1 --geometry 'LINESTRING (11790000 7056000, 11790050 7056020)'
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        guard let text = try arguments.option("--geometry") else { throw CommandError.usage("missing --geometry WKT|GEOJSON") }
        let crs = try arguments.option("--crs")
        let path = try arguments.positional("FILE.gpkg")
        let table = try arguments.positional("TABLE")
        let values = try EditOutput.assignments(arguments.remainingPositionals())
        try arguments.finish()
        let geometry: Geometry
        do {
            geometry = text.trimmingCharacters(in: .whitespaces).hasPrefix("{") ? try Geometry(geoJSON: text) : try Geometry(wkt: text)
        } catch {
            throw CommandError.usage("--geometry: \(error)")
        }

        let service = EditService(package: try GeoPackage(path: path))
        let result = try service.run(AddFeature(table: table, geometry: geometry, crs: crs, values: values, command: EditOutput.commandLine))
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
