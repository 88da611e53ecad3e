import AnnoLinkEditing
import AnnoLinkStore

/// `annolink move-vertex`: move an end of a single-segment line.
enum MoveVertexCommand: Command {
    static let name = "move-vertex"
    static let summary = "move an end of a single-segment line; its annotation follows"
    static let help = """
        usage: annolink move-vertex FILE.gpkg TABLE FID --to X,Y [--crs CRS] [--vertex last|nearest] [--json]

        Moves the last vertex (default) or the end nearer to X,Y (--vertex nearest) of a line
        of one part and two points, and regenerates its annotation (the new length text and
        the placement of the rules). The line keeps its direction: the first vertex stays
        first. Lines with more than one segment are refused with their part and point
        counts. One transaction with a journal entry.

        options:
          --to X,Y                 the new location of the vertex
          --crs CRS                the CRS of --to (default: the table's own)
          --vertex last|nearest    which end moves (default last)
          --json                   what changed (see 'annolink set --help')

        exit status: 0 done, 64 bad usage, 65 unknown table or fid, not a single-segment line,
        unknown CRS, 66 no such file. On any error the file is unchanged.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        guard let to = try arguments.option("--to") else { throw CommandError.usage("missing --to X,Y") }
        let crs = try arguments.option("--crs")
        let vertex = try arguments.option("--vertex", as: "last or nearest") { EditService.VertexChoice(rawValue: $0) } ?? .last
        let path = try arguments.positional("FILE.gpkg")
        let table = try arguments.positional("TABLE")
        let fid = try EditOutput.fid(try arguments.positional("FID"))
        try arguments.finish()
        let point = try EditOutput.coordinate(to, option: "--to")

        let service = EditService(package: try GeoPackage(path: path))
        let result = try service.moveVertex(table: table, fid: fid, to: point, crs: crs, vertex: vertex, command: EditOutput.commandLine)
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
