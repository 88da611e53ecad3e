import AnnoLinkImport
import AnnoLinkStore
import Foundation

/// `annolink import`: the one way data comes into annolink.
enum ImportCommand: Command {
    static let name = "import"
    static let summary = "convert an ArcGIS mobile geodatabase (or copy a GeoPackage) into a new GeoPackage"
    static let help = """
        usage: annolink import SOURCE DEST.gpkg

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

        DEST.gpkg must not exist. On any error nothing is left behind.

        exit status: 0 done, 64 bad usage, 65 SOURCE is neither or cannot be read,
        66 SOURCE does not exist, 73 DEST exists or cannot be created.

        example:
          annolink import Fixtures/loudoun_anno.geodatabase loudoun.gpkg
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let sourcePath = try arguments.positional("SOURCE")
        let destination = try arguments.positional("DEST.gpkg")
        try arguments.finish()

        guard FileManager.default.fileExists(atPath: sourcePath) else { throw StoreError.missingFile(path: sourcePath) }
        let source: Connection
        do {
            source = try Connection(path: sourcePath, mode: .readOnly)
        } catch let error as SQLiteError where error.isNotADatabase {
            throw StoreError.notAGeoPackage(path: sourcePath, reason: "not a SQLite database, so neither a GeoPackage nor a mobile geodatabase")
        }

        if try MobileGeodatabaseImporter.isMobileGeodatabase(source) {
            let package = try createGeoPackage(at: destination)
            let report = try removingOnFailure(destination) {
                try MobileGeodatabaseImporter.run(source: source, into: package)
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
        guard !FileManager.default.fileExists(atPath: destination) else { throw StoreError.fileExists(path: destination) }
        let folder = (destination as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            throw CommandError("cannot create \(destination): the folder \(folder) does not exist", status: .cannotCreate)
        }
        try removingOnFailure(destination) { try source.backup(to: destination) }
        Output.line("copied GeoPackage \(sourcePath) to \(destination)")
        return .success
    }
}
