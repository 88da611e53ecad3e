import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore

/// `annolink move-vertex`: move an end of a single-segment line.
struct MoveVertexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move-vertex",
        abstract: "move an end of a single-segment line; its annotation follows",
        discussion: """
            Moves the last vertex (default) or the end nearer to X,Y (--vertex nearest) of a line
            of one part and two points, and regenerates its annotation (the new length text and
            the placement of the rules). The line keeps its direction: the first vertex
            stays first. Lines with more than one segment are refused with their part and point
            counts. One transaction with a journal entry.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done, 64 bad usage, 65 unknown table or fid, not a single-segment line,
            unknown CRS, nothing at the --at location or two features equally near it,
            66 no such file. On any error the file is unchanged.
            """)

    static let to = ArgumentDeclaration.option("--to", value: "X,Y", required: true, help: "where the vertex goes (--at, instead of FID, picks the line)")
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: "the CRS of --to and of --at (default: the table's own)")
    static let vertex = ArgumentDeclaration.option("--vertex", value: "last|nearest", help: "which end moves (default last)")
    static let arguments = FeatureOperand.arguments + [to, crs, vertex, EditOutput.force, EditOutput.dryRun, MoveCommand.json]

    var json: Bool
    var dryRun: Bool
    var force: Bool
    var toText: String
    var crs: String?
    var vertex: EditService.VertexChoice
    var feature: FeatureOperand
    var point = Point(x: 0, y: 0)

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(MoveCommand.json)
        dryRun = arguments.flag(EditOutput.dryRun)
        force = arguments.flag(EditOutput.force)
        toText = try arguments.required(Self.to)
        crs = try arguments.option(Self.crs)
        vertex = try arguments.option(Self.vertex, as: "last or nearest") { EditService.VertexChoice(rawValue: $0) } ?? .last
        feature = try FeatureOperand(parsing: &arguments, crs: crs)
    }

    mutating func validate() throws {
        try feature.validate()
        point = try EditOutput.coordinate(toText, option: Self.to.name)
    }

    func run() throws -> ExitStatus {
        let service = EditService(store: try StoreTarget.open(feature.path))
        service.allowsDistantLocations = force
        let fid = try feature.resolve(with: service)
        let result = try EditOutput.run(MoveVertex(table: feature.table, fid: fid, to: point, crs: crs, vertex: vertex, command: EditOutput.commandLine),
                                        in: service, dryRun: dryRun)
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
