import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore

/// `annolink move`: a point move with its annotation following.
struct MoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "move a point feature; its annotation follows",
        discussion: """
            Moves a point feature to X,Y and carries its linked annotation rigidly: anchor and
            footprint move by exactly the vector the point moved, text and angle stay (a label
            placed off the rules' position, by ArcGIS or by hand, stays as far off). One
            transaction with a journal entry.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done, 64 bad usage, 65 unknown table or fid, not a point table, unknown
            CRS or a location outside it, nothing at the --at location or two features
            equally near it, 66 no such file. On any error the file is unchanged.
            """,
        example: "annolink move loudoun.gpkg Loudoun_Address_Points_1 7 --to -77.4012,39.0101 --crs EPSG:4326")

    static let to = ArgumentDeclaration.option("--to", value: "X,Y", required: true, help: """
        where the point goes (x east or longitude, y north or latitude); --at,
        when given instead of FID, picks the point to move, never its destination
        """)
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: """
        the CRS of --to and of --at: EPSG:n, an authority code, WKT or a PROJ
        string (default: the table's own CRS); projected with PROJ
        """)
    static let json = ArgumentDeclaration.flag("--json", help: "what changed (see 'annolink set --help')")
    static let arguments = FeatureOperand.arguments + [to, crs, EditOutput.force, EditOutput.dryRun, json]

    var json: Bool
    var dryRun: Bool
    var force: Bool
    var toText: String
    var crs: String?
    var feature: FeatureOperand
    var point = Point(x: 0, y: 0)

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        dryRun = arguments.flag(EditOutput.dryRun)
        force = arguments.flag(EditOutput.force)
        toText = try arguments.required(Self.to)
        crs = try arguments.option(Self.crs)
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
        let result = try EditOutput.run(MovePoint(table: feature.table, fid: fid, to: point, crs: crs, command: EditOutput.commandLine),
                                        in: service, dryRun: dryRun)
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
