import AnnoLinkEditing
import AnnoLinkStore

/// `annolink set`: an attribute edit with its annotation regenerated.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "set fields of one feature; its annotation text follows",
        discussion: """
            Sets one or more fields of one feature and regenerates its linked annotation (text,
            and class membership where a class's where clause depends on the fields), in one
            transaction with a journal entry ('annolink undo' reverts it).

            Values are checked against the column: whole numbers for INTEGER columns (and the
            ranges of TINYINT, SMALLINT, MEDIUMINT), finite numbers for REAL/DOUBLE, at most n
            characters for TEXT(n), true/false for BOOLEAN, YYYY-MM-DD for DATE,
            YYYY-MM-DDTHH:MM:SS.SSSZ for DATETIME, hexadecimal for BLOB. NULL (in capitals) sets
            SQL NULL unless the column is NOT NULL. Quote values with spaces for the shell.
            """,
        exitStatus: """
            0 done, 64 bad usage, 65 unknown table, fid or field, a value that
            does not fit, nothing at the --at location or two features equally near it,
            66 no such file. On any error the file is unchanged.
            """,
        example: #"annolink set loudoun.gpkg Loudoun_Address_Points_1 1 AD_ADDRESS=21506 ST_STR_NAM="ELM TREE""#)

    static let file = ArgumentDeclaration.positional("FILE.gpkg")
    static let table = ArgumentDeclaration.positional("TABLE")
    static let fid = ArgumentDeclaration.positional("FID")
    static let values = ArgumentDeclaration.remainingPositionals("FIELD=VALUE", required: true)
    static let json = ArgumentDeclaration.flag("--json", help: """
        what changed: {"edit", "table", "fid", "fields": [{"name", "old", "new"}],
        "annotation": [{"change", "annotationTable", "annotationFid", "classID",
        "oldText", "newText", "oldAnchor", "newAnchor", "oldAngle", "newAngle"}],
        "journalEntry"}; edits of the geometry also "oldGeometry", "newGeometry"
        """)
    static let arguments = FeatureOperand.argumentsWithCRS + [values, json]

    var json: Bool
    var feature: FeatureOperand
    var words: [String]
    var values: [FieldAssignment] = []

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        feature = try FeatureOperand(parsing: &arguments)
        words = arguments.remainingPositionals()
    }

    mutating func validate() throws {
        try feature.validate()
        values = try EditOutput.assignments(words)
        guard !values.isEmpty else { throw CommandError.usage("missing FIELD=VALUE") }
    }

    func run() throws -> ExitStatus {
        let service = EditService(package: try GeoPackage(path: feature.path))
        let fid = try feature.resolve(with: service)
        let result = try service.run(SetFields(table: feature.table, fid: fid, values: values, command: EditOutput.commandLine))
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
