import AnnoLinkEditing
import AnnoLinkStore

/// `annolink set`: an attribute edit with its annotation regenerated.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "set fields of one feature, or of many; their annotation text follows",
        usage: [
            "annolink set FILE.gpkg TABLE (FID | --at X,Y [--crs CRS]) FIELD=VALUE... [options]",
            "annolink set FILE.gpkg TABLE (--fids 1,2,3 | --bbox MINX,MINY,MAXX,MAXY | --where SQL)",
            "             FIELD=VALUE... [options]",
        ],
        discussion: """
            Sets one or more fields of one feature (FID), or of every feature a selection picks,
            and regenerates the linked annotation (text, and class membership where a class's
            where clause depends on the fields: a feature whose class changes moves to the other
            class), in one transaction with one journal entry ('annolink undo' reverts it). A bulk
            edit keeps the rows it changes on disk in the journal, not in memory, and shows its
            progress on a terminal.

            Values are checked against the column: whole numbers for INTEGER columns (and the
            ranges of TINYINT, SMALLINT, MEDIUMINT), finite numbers for REAL/DOUBLE, at most n
            characters for TEXT(n), true/false for BOOLEAN, YYYY-MM-DD for DATE,
            YYYY-MM-DDTHH:MM:SS.SSSZ for DATETIME, hexadecimal for BLOB. NULL (in capitals) sets
            SQL NULL unless the column is NOT NULL. An empty or blank text for a field a label
            expression reads is refused (the label would lose it) unless --allow-empty. Quote
            values with spaces for the shell.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done (also when a selection picks nothing), 64 bad usage, 65 unknown table,
            fid or field, a value that does not fit, an empty label value, an invalid
            where clause, nothing at the --at location or two features equally near it,
            66 no such file. On any error the file is unchanged.
            """,
        example: #"""
            annolink set loudoun.gpkg Loudoun_Address_Points_1 1 AD_ADDRESS=21506 ST_STR_NAM="ELM TREE"
            annolink set loudoun.gpkg Loudoun_Address_Points_1 --where "ST_STR_NAM = 'WOODLAND'" ST_STR_NAM="WOODLAND CT"
            """#)

    static let file = ArgumentDeclaration.positional("FILE.gpkg")
    static let table = ArgumentDeclaration.positional("TABLE")
    static let fid = ArgumentDeclaration.positional("FID")
    static let values = ArgumentDeclaration.remainingPositionals("FIELD=VALUE", required: true)
    static let json = ArgumentDeclaration.flag("--json", help: """
        what changed: {"edit", "table", "fid", "fields": [{"name", "old", "new"}],
        "annotation": [{"change", "annotationTable", "annotationFid", "classID",
        "oldText", "newText", "oldAnchor", "newAnchor", "oldAngle", "newAngle"}],
        "journalEntry", "dryRun"}; edits of the geometry also "oldGeometry",
        "newGeometry". With a selection: {"edit", "table", "features",
        "fields": [{"name", "new"}], "annotation": {"created", "updated",
        "deleted", "reclassified"}, "changes": [one object as above per
        feature], "dryRun", "journalEntry"}
        """)
    static let arguments = FeatureOperand.argumentsWithCRS + [values, EditOutput.allowEmpty, EditOutput.force, EditOutput.dryRun, json] + SelectionOptions.arguments

    var json: Bool
    var dryRun: Bool
    var force: Bool
    var allowEmpty: Bool
    /// One feature (`TABLE FID`), or nil with a selection.
    var feature: FeatureOperand?
    var selectionOptions: SelectionOptions
    var path = ""
    var table = ""
    var words: [String]
    var values: [FieldAssignment] = []
    var selection: Selection?

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        dryRun = arguments.flag(EditOutput.dryRun)
        force = arguments.flag(EditOutput.force)
        allowEmpty = arguments.flag(EditOutput.allowEmpty)
        selectionOptions = try SelectionOptions(parsing: &arguments)
        if selectionOptions.isGiven {
            path = try arguments.positional(Self.file)
            table = try arguments.positional(Self.table)
        } else {
            feature = try FeatureOperand(parsing: &arguments)
        }
        words = arguments.remainingPositionals()
    }

    mutating func validate() throws {
        if feature != nil {
            try feature!.validate()
        } else {
            selection = try selectionOptions.selection()
        }
        values = try EditOutput.assignments(words)
        guard !values.isEmpty else { throw CommandError.usage("missing FIELD=VALUE") }
    }

    func run() throws -> ExitStatus {
        if let feature {
            let service = EditService(store: try StoreTarget.open(feature.path))
            service.allowsDistantLocations = force
            let fid = try feature.resolve(with: service)
            let request = SetFields(table: feature.table, fid: fid, values: values, allowEmpty: allowEmpty, command: EditOutput.commandLine)
            try EditOutput.print(try EditOutput.run(request, in: service, dryRun: dryRun), json: json, warnings: service.annotation.warnings)
            return .success
        }
        let service = EditService(store: try StoreTarget.open(path))
        service.allowsDistantLocations = force
        let request = SetFieldsBulk(table: table, selection: selection!, values: values, allowEmpty: allowEmpty, reportChanges: json || dryRun,
                                    command: EditOutput.commandLine)
        let result = try EditOutput.runBulk(in: service, dryRun: dryRun) { try request.run(in: service, progress: $0) }
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
