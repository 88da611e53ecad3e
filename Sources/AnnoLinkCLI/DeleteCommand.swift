import AnnoLinkEditing
import AnnoLinkStore

/// `annolink delete`: a feature and, by cascade, its annotation.
enum DeleteCommand: Command {
    static let name = "delete"
    static let summary = "delete a feature and its linked annotation"
    static let help = """
        usage: annolink delete FILE.gpkg TABLE FID [--json]

        Deletes the feature and every annotation row linked to it (the cascade of a composite
        relationship), in one transaction with a journal entry.

        options:
          --json   what changed (see 'annolink set --help')

        exit status: 0 done, 64 bad usage, 65 unknown table or fid, 66 no such file.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let path = try arguments.positional("FILE.gpkg")
        let table = try arguments.positional("TABLE")
        let fid = try EditOutput.fid(try arguments.positional("FID"))
        try arguments.finish()

        let service = EditService(package: try GeoPackage(path: path))
        let result = try service.run(DeleteFeature(table: table, fid: fid, command: EditOutput.commandLine))
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
