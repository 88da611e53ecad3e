import AnnoLinkStore
import Foundation

/// `annolink style`: (re)writes the QGIS styles of a GeoPackage's tables.
struct StyleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "style",
        abstract: "write QGIS styles into a GeoPackage so that QGIS shows its annotation as text",
        discussion: """
            Writes a QGIS style for every feature table into the file's layer_styles table,
            the table QGIS reads when it opens a layer: each annotation table is labelled from
            its stored columns (TextString at AnchorX/AnchorY, turned by Angle, in FontName at
            FontSize points at the class's reference scale, aligned by the alignment columns,
            every label shown, footprints not drawn); other feature tables get a plain symbol.
            Files annolink writes (import, sample, annotate) carry these styles already; this
            command is for files made by other programs or from before. A style annolink wrote
            is replaced; other styles are kept but no longer the default. One transaction.
            docs/render.md describes the style.
            """,
        exitStatus: "0 done, 64 bad usage, 65 not a GeoPackage, 66 no such file, 75 the file is busy.",
        example: "annolink style loudoun.gpkg")

    static let json = ArgumentDeclaration.flag("--json", help: "what was written: {\"tables\": [{\"name\", \"kind\": \"annotation\"|\"features\"}]}")
    static let arguments = [SetCommand.file, json]

    var path: String
    var json: Bool

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        path = try arguments.positional(SetCommand.file)
    }

    struct Report: Encodable {
        struct Table: Encodable {
            var name: String
            var kind: String
        }
        var tables: [Table]
    }

    func run() throws -> ExitStatus {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.missingFile(path: path) }
        let package = try GeoPackage(path: path)
        try package.writeLayerStyles()
        let annotation = Set(try package.annotationClasses().map { $0.annotationTable.lowercased() })
        let tables = try package.featureTableNames().map {
            Report.Table(name: $0, kind: annotation.contains($0.lowercased()) ? "annotation" : "features")
        }
        if json {
            Output.line(try Output.json(Report(tables: tables)))
        } else {
            Output.line("wrote QGIS styles for \(tables.count) tables of \(path):")
            for table in tables { Output.line("  \(table.name) (\(table.kind == "annotation" ? "annotation as text" : "plain symbol"))") }
        }
        return .success
    }
}
