import AnnoLinkEditing
import AnnoLinkStore

/// `annolink move`: a point move with its annotation following.
enum MoveCommand: Command {
    static let name = "move"
    static let summary = "move a point feature; its annotation follows"
    static let help = """
        usage: annolink move FILE.gpkg TABLE FID --to X,Y [--crs CRS] [--json]

        Moves a point feature to X,Y and regenerates its linked annotation: placed again by
        the class's rules, or, where the annotation was placed by hand (Override), moved by
        the same vector as the point. One transaction with a journal entry.

        options:
          --to X,Y    the new location (x east or longitude, y north or latitude)
          --crs CRS   the CRS of --to: EPSG:n, an authority code, WKT or a PROJ string
                      (default: the table's own CRS); projected with PROJ
          --json      what changed (see 'annolink set --help')

        exit status: 0 done, 64 bad usage, 65 unknown table or fid, not a point table, unknown
        CRS or a location outside it, 66 no such file. On any error the file is unchanged.

        example:
          annolink move loudoun.gpkg Loudoun_Address_Points_1 7 --to -77.4012,39.0101 --crs EPSG:4326
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        guard let to = try arguments.option("--to") else { throw CommandError.usage("missing --to X,Y") }
        let crs = try arguments.option("--crs")
        let path = try arguments.positional("FILE.gpkg")
        let table = try arguments.positional("TABLE")
        let fid = try EditOutput.fid(try arguments.positional("FID"))
        try arguments.finish()
        let point = try EditOutput.coordinate(to, option: "--to")

        let service = EditService(package: try GeoPackage(path: path))
        let result = try service.run(MovePoint(table: table, fid: fid, to: point, crs: crs, command: EditOutput.commandLine))
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
