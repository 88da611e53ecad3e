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
        exitStatus: """
            0 done, 64 bad usage, 65 unknown table or fid, nothing at the --at location
            or two features equally near it, 66 no such file.
            """)

    static let arguments = FeatureOperand.argumentsWithCRS + [MoveCommand.json]

    var json: Bool
    var feature: FeatureOperand

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(MoveCommand.json)
        feature = try FeatureOperand(parsing: &arguments)
    }

    mutating func validate() throws {
        try feature.validate()
    }

    func run() throws -> ExitStatus {
        let service = EditService(package: try GeoPackage(path: feature.path))
        let fid = try feature.resolve(with: service)
        let result = try service.run(DeleteFeature(table: feature.table, fid: fid, command: EditOutput.commandLine))
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
