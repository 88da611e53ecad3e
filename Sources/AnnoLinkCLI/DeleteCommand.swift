import AnnoLinkEditing
import AnnoLinkStore

/// `annolink delete`: a feature and, by cascade, its annotation.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "delete a feature, or many, and their linked annotation",
        usage: [
            "annolink delete FILE.gpkg TABLE (FID | --at X,Y [--crs CRS]) [options]",
            "annolink delete FILE.gpkg TABLE (--fids 1,2,3 | --bbox MINX,MINY,MAXX,MAXY | --where SQL)",
            "                [options]",
        ],
        discussion: """
            Deletes the feature (FID), or every feature a selection picks, and every annotation
            row linked to them (the cascade of a composite relationship), in one transaction with
            one journal entry ('annolink undo' brings them back). A bulk delete keeps the deleted
            rows on disk in the journal, not in memory, and shows its progress on a terminal.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done (also when a selection picks nothing), 64 bad usage, 65 unknown table
            or fid, an invalid where clause, nothing at the --at location or two features
            equally near it, 66 no such file.
            """)

    static let json = ArgumentDeclaration.flag("--json", help: """
        what changed (see 'annolink set --help': one feature's or, with a
        selection, the bulk form with "edit": "delete")
        """)
    static let arguments = FeatureOperand.argumentsWithCRS + [EditOutput.force, EditOutput.dryRun, json] + SelectionOptions.arguments

    var json: Bool
    var dryRun: Bool
    var force: Bool
    /// One feature (`TABLE FID`), or nil with a selection.
    var feature: FeatureOperand?
    var selectionOptions: SelectionOptions
    var path = ""
    var table = ""
    var selection: Selection?

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        dryRun = arguments.flag(EditOutput.dryRun)
        force = arguments.flag(EditOutput.force)
        selectionOptions = try SelectionOptions(parsing: &arguments)
        if selectionOptions.isGiven {
            path = try arguments.positional(SetCommand.file)
            table = try arguments.positional(SetCommand.table)
        } else {
            feature = try FeatureOperand(parsing: &arguments)
        }
    }

    mutating func validate() throws {
        if feature != nil {
            try feature!.validate()
        } else {
            selection = try selectionOptions.selection()
        }
    }

    func run() throws -> ExitStatus {
        if let feature {
            let service = EditService(store: try StoreTarget.open(feature.path))
            service.allowsDistantLocations = force
            let fid = try feature.resolve(with: service)
            let request = DeleteFeature(table: feature.table, fid: fid, command: EditOutput.commandLine)
            try EditOutput.print(try EditOutput.run(request, in: service, dryRun: dryRun), json: json, warnings: service.annotation.warnings)
            return .success
        }
        let service = EditService(store: try StoreTarget.open(path))
        service.allowsDistantLocations = force
        let request = DeleteFeatures(table: table, selection: selection!, reportChanges: json || dryRun, command: EditOutput.commandLine)
        let result = try EditOutput.runBulk(in: service, dryRun: dryRun) { try request.run(in: service, progress: $0) }
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
