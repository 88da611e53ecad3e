import AnnoLinkEditing
import AnnoLinkStore

/// `annolink set`: an attribute edit with its annotation regenerated.
enum SetCommand: Command {
    static let name = "set"
    static let summary = "set fields of one feature; its annotation text follows"
    static let help = """
        usage: annolink set FILE.gpkg TABLE FID FIELD=VALUE... [--json]

        Sets one or more fields of one feature and regenerates its linked annotation (text,
        and class membership where a class's where clause depends on the fields), in one
        transaction with a journal entry ('annolink undo' reverts it).

        Values are checked against the column: whole numbers for INTEGER columns (and the
        ranges of TINYINT, SMALLINT, MEDIUMINT), finite numbers for REAL/DOUBLE, at most n
        characters for TEXT(n), true/false for BOOLEAN, YYYY-MM-DD for DATE,
        YYYY-MM-DDTHH:MM:SS.SSSZ for DATETIME, hexadecimal for BLOB. NULL (in capitals) sets
        SQL NULL unless the column is NOT NULL. Quote values with spaces for the shell.

        options:
          --json   what changed: {"edit", "table", "fid", "fields": [{"name", "old", "new"}],
                   "annotation": [{"change", "annotationTable", "annotationFid", "classID",
                   "oldText", "newText", "oldAnchor", "newAnchor", "oldAngle", "newAngle"}],
                   "journalEntry"}; edits of the geometry also "oldGeometry", "newGeometry"

        exit status: 0 done, 64 bad usage, 65 unknown table, fid or field, or a value that
        does not fit, 66 no such file. On any error the file is unchanged.

        example:
          annolink set loudoun.gpkg Loudoun_Address_Points_1 1 AD_ADDRESS=21506 ST_STR_NAM="ELM TREE"
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let path = try arguments.positional("FILE.gpkg")
        let table = try arguments.positional("TABLE")
        let fid = try EditOutput.fid(try arguments.positional("FID"))
        let values = try EditOutput.assignments(arguments.remainingPositionals())
        try arguments.finish()
        guard !values.isEmpty else { throw CommandError.usage("missing FIELD=VALUE") }

        let service = EditService(package: try GeoPackage(path: path))
        let result = try service.run(SetFields(table: table, fid: fid, values: values, command: EditOutput.commandLine))
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
