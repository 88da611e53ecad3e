import AnnoLinkImport
import AnnoLinkStore
import Foundation

/// `annolink import`: the one way data comes into annolink.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "convert an ArcGIS mobile geodatabase (or copy a GeoPackage) into a new GeoPackage",
        discussion: """
            SOURCE is an ArcGIS mobile geodatabase (.geodatabase) or a GeoPackage.

            A mobile geodatabase is converted: every feature class becomes a GeoPackage feature
            table with the same name, its attributes (GlobalID included) and the Esri ObjectID as
            fid; current rows only (archive history is not carried over); Esri dates become ISO
            8601 DATETIME text. Annotation feature classes become annotation tables: FeatureGlobalID
            is resolved to the origin feature's fid in FeatureID, the anchor is taken from the text
            baseline in Element (its midpoint for center alignment), the footprint from SHAPE; their
            annotation classes (expression, font, size, reference scale, placement, AutoCreate,
            UpdateOnShapeChange) go into the annotation class registry. Everything that cannot be
            converted is listed by name.

            A GeoPackage is copied as it is, as one consistent snapshot.

            DEST.gpkg must not exist. On any error nothing is left behind. On a terminal the
            progress (rows per table, or the pages copied) is shown on standard error.
            """,
        exitStatus: """
            0 done, 64 bad usage, 65 SOURCE is neither or cannot be read,
            66 SOURCE does not exist, 73 DEST exists or cannot be created.
            """,
        example: "annolink import Fixtures/loudoun_anno.geodatabase loudoun.gpkg")

    static let source = ArgumentDeclaration.positional("SOURCE")
    static let destination = ArgumentDeclaration.positional("DEST.gpkg")
    static let json = ArgumentDeclaration.flag("--json", help: """
        what was imported: {"tables": [{"name", "geometryTypeName", "srsID", "rows",
        "isAnnotation"}], "annotationClasses", "notConverted": [line]} (a copied
        GeoPackage: no tables, 0 classes)
        """)
    static let arguments = [source, destination, json]

    var json: Bool
    var sourcePath: String
    var destination: String

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        sourcePath = try arguments.positional(Self.source)
        destination = try arguments.positional(Self.destination)
    }

    func run() throws -> ExitStatus {
        guard FileManager.default.fileExists(atPath: sourcePath) else { throw StoreError.missingFile(path: sourcePath) }
        let source: Connection
        do {
            source = try Connection(path: sourcePath, mode: .readOnly)
        } catch let error as SQLiteError where error.isNotADatabase {
            throw StoreError.notAGeoPackage(path: sourcePath, reason: "not a SQLite database, so neither a GeoPackage nor a mobile geodatabase")
        }

        if try MobileGeodatabaseImporter.isMobileGeodatabase(source) {
            let progress = StageProgress()
            let report = try GeoPackage.build(at: destination) { package in
                try MobileGeodatabaseImporter.run(source: source, into: package) { progress.update("importing \($0)", $1, of: $2) }
            }
            progress.finish()
            if json {
                Output.line(try Output.json(report))
                return .success
            }
            Output.line("imported \(sourcePath) into \(destination):")
            for table in report.tables {
                Output.line("  \(table.name): \(table.rows) \(table.geometryTypeName)\(table.isAnnotation ? " annotation" : "") (EPSG:\(table.srsID))")
            }
            Output.line("  \(report.annotationClasses) annotation classes registered")
            if !report.notConverted.isEmpty {
                Output.line("not converted:")
                for line in report.notConverted { Output.line("  \(line)") }
            }
            return .success
        }

        // A GeoPackage: check it is one, then copy it page for page.
        _ = try GeoPackage(path: sourcePath, readOnly: true)
        let progress = StageProgress()
        try NewFile.write(destination) { temporary in try source.backup(to: temporary) { progress.update("copying pages", $0, of: $1) } }
        progress.finish()
        if json {
            Output.line(try Output.json(ImportReport()))
            return .success
        }
        Output.line("copied GeoPackage \(sourcePath) to \(destination)")
        return .success
    }
}
