import AnnoLinkPostGIS
import AnnoLinkStore
import Foundation

/// `annolink copy`: a whole data set between a GeoPackage and a PostGIS database.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "copy a data set between a GeoPackage and a PostGIS database, either way",
        discussion: """
            One of SOURCE and DEST is a GeoPackage file, the other a PostGIS database given as
            postgresql://[user@]host[:port]/database or as GDAL writes it,
            'PG:dbname=… host=… port=… user=…' (docs/postgis.md).

            Copies every feature and annotation table with all its rows and fids, the CRS
            definitions, the annotation class registry and the QGIS layer styles. Into PostGIS
            the tables go to the public schema, with geometry(<type>, <srid>) columns and GiST
            indexes, and annolink's registry to the annolink schema; back into a GeoPackage they
            get their declared column types, R-trees and extents again. The edit journal is not
            copied. Rows stream (binary COPY); on a terminal the progress is shown on standard
            error.

            The destination is written in one transaction: a PostgreSQL transaction, or a new
            file given its name when complete. On any error nothing is left half-written.
            Tables that exist in the destination database, or a DEST file that exists, are
            refused unless --overwrite is given. A DEST file that another process has open
            (annolink serve or sketch, QGIS) is never replaced: that process would go on
            writing to the replaced file.
            """,
        exitStatus: """
            0 done, 64 bad usage, 65 a value or the data set cannot be copied,
            66 SOURCE (file or database) does not exist, 73 DEST or a table in it exists
            (without --overwrite), 74 the database refused the login, 75 the server cannot
            be reached or a transaction conflicted (try again), or DEST is open in another
            process.
            """,
        example: "annolink copy loudoun.gpkg postgresql://editor@localhost/county")

    static let source = ArgumentDeclaration.positional("SOURCE")
    static let destination = ArgumentDeclaration.positional("DEST")
    static let overwrite = ArgumentDeclaration.flag("--overwrite", help: """
        replace the destination's tables of the same names (with
        their classes and styles), or the DEST file
        """)
    static let json = ArgumentDeclaration.flag("--json", help: """
        what was copied: {"tables": [{"name", "geometryTypeName", "srsID", "rows",
        "isAnnotation"}], "annotationClasses", "layerStyles", "spatialReferenceSystems",
        "notCopied": [line]}
        """)
    static let arguments = [source, destination, overwrite, json]

    var source: String
    var destination: String
    var overwrite: Bool
    var json: Bool

    init(parsing arguments: inout Arguments) throws {
        overwrite = arguments.flag(Self.overwrite)
        json = arguments.flag(Self.json)
        source = try arguments.positional(Self.source)
        destination = try arguments.positional(Self.destination)
    }

    func run() throws -> ExitStatus {
        let fromDatabase = ConnectionString.isPostgreSQL(source), toDatabase = ConnectionString.isPostgreSQL(destination)
        guard fromDatabase != toDatabase else {
            throw CommandError.usage(fromDatabase
                ? "both SOURCE and DEST are PostgreSQL databases; copy needs one GeoPackage and one database"
                : "neither SOURCE nor DEST is a PostgreSQL database (postgresql://… or PG:…); to copy a GeoPackage to a new file use 'annolink import'")
        }
        let progress = StageProgress()
        let summary: CopySummary
        if toDatabase {
            let package = try GeoPackage(path: source, readOnly: true)
            let connection = try PostgreSQLConnection(destination)
            summary = try DataSetCopy.copy(from: package, to: connection, overwrite: overwrite, progress: progress.copied)
        } else {
            let connection = try PostgreSQLConnection(source)
            summary = try DataSetCopy.copy(from: connection, toGeoPackageAt: destination, overwrite: overwrite, progress: progress.copied)
        }
        progress.finish()
        if json {
            Output.line(try Output.json(CopyReport(summary)))
            return .success
        }
        let shownSource = fromDatabase ? (try? ConnectionString(source).redacted) ?? "the database" : source
        let shownDestination = toDatabase ? (try? ConnectionString(destination).redacted) ?? "the database" : destination
        Output.line("copied \(shownSource) to \(shownDestination):")
        for table in summary.tables {
            Output.line("  \(table.name): \(table.rows) \(table.geometryTypeName)\(table.isAnnotation ? " annotation" : "") (srs_id \(table.srsID))")
        }
        Output.line("  \(summary.annotationClasses) annotation classes, \(summary.layerStyles) layer styles, " +
                    "\(summary.spatialReferenceSystems) CRS definitions")
        if !summary.notCopied.isEmpty {
            Output.line("not copied:")
            for line in summary.notCopied { Output.line("  \(line)") }
        }
        return .success
    }
}

/// `copy --json`.
private struct CopyReport: Encodable {
    struct Table: Encodable {
        var name: String
        var geometryTypeName: String
        var srsID: Int64
        var rows: Int
        var isAnnotation: Bool
    }

    var tables: [Table]
    var annotationClasses: Int
    var layerStyles: Int
    var spatialReferenceSystems: Int
    var notCopied: [String]

    init(_ summary: CopySummary) {
        tables = summary.tables.map {
            Table(name: $0.name, geometryTypeName: $0.geometryTypeName, srsID: $0.srsID, rows: $0.rows, isAnnotation: $0.isAnnotation)
        }
        annotationClasses = summary.annotationClasses
        layerStyles = summary.layerStyles
        spatialReferenceSystems = summary.spatialReferenceSystems
        notCopied = summary.notCopied
    }
}

extension StageProgress {
    /// The rows of a table copied so far: one line per table.
    func copied(_ report: CopyProgress) {
        update("copying \(report.table)", report.rows, of: report.totalRows)
    }
}
