import AnnoLinkEditing
import AnnoLinkStore

/// `annolink delete`: a feature and, by cascade, its annotation.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "delete a feature and its linked annotation",
        discussion: """
            Deletes the feature and every annotation row linked to it (the cascade of a composite
            relationship), in one transaction with a journal entry.
            """,
        exitStatus: "0 done, 64 bad usage, 65 unknown table or fid, 66 no such file.")

    static let arguments = [SetCommand.file, SetCommand.table, SetCommand.fid, MoveCommand.json]

    var json: Bool
    var path: String
    var table: String
    var fidText: String
    var fid: Int64 = 0

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(MoveCommand.json)
        path = try arguments.positional(SetCommand.file)
        table = try arguments.positional(SetCommand.table)
        fidText = try arguments.positional(SetCommand.fid)
    }

    mutating func validate() throws {
        fid = try EditOutput.fid(fidText)
    }

    func run() throws -> ExitStatus {
        let service = EditService(package: try GeoPackage(path: path))
        let result = try service.run(DeleteFeature(table: table, fid: fid, command: EditOutput.commandLine))
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
