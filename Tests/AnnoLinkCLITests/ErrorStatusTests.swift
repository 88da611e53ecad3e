import AnnoLinkAnnotation
import AnnoLinkChecks
import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkPostGIS
import AnnoLinkRender
import AnnoLinkService
import AnnoLinkSketch
import AnnoLinkStore
import Foundation
import Testing

@testable import AnnoLinkCLI

/// Every error case a command can throw, with the exit status the command line gives it and
/// the message it prints (docs/cli.md, "Exit statuses").
@Suite("error messages and exit statuses")
struct ErrorStatusTests {
    /// annolink's, not Swift Testing's exit-test `ExitStatus`.
    typealias ExitStatus = AnnoLinkCLI.ExitStatus

    /// An error and the status it must exit with.
    struct Case {
        var error: any Error
        var status: ExitStatus

        init(_ error: any Error, _ status: ExitStatus) {
            self.error = error
            self.status = status
        }
    }

    static let point = Point(x: 1.5, y: -2)
    static let projError = PROJError(function: "proj_create", code: 1027, codeDescription: "Invalid value for an argument",
                                     messages: ["proj_create: crs not found"])

    /// One entry per case of every domain error type, in the order the types declare them.
    static var cases: [Case] {
        [
            Case(CommandError.usage("missing DEST.gpkg"), .usage),
            Case(CommandError("--to: 1 is not X,Y", status: .dataError), .dataError),

            Case(StoreError.missingFile(path: "x.gpkg"), .noInput),
            Case(StoreError.notAGeoPackage(path: "x.gpkg", reason: "not a SQLite database"), .dataError),
            Case(StoreError.fileExists(path: "x.gpkg"), .cannotCreate),
            Case(StoreError.fileInUse(path: "x.gpkg"), .temporaryFailure),
            Case(StoreError.cannotCreate(path: "x.gpkg", reason: "the folder /nope does not exist"), .cannotCreate),
            Case(StoreError.unknownTable("roads"), .dataError),
            Case(StoreError.tableExists("roads"), .dataError),
            Case(StoreError.unknownColumn(table: "roads", column: "name"), .dataError),
            Case(StoreError.unknownFeature(table: "roads", fid: 7), .dataError),
            Case(StoreError.invalidValue(table: "roads", column: "lanes", reason: "not an integer"), .dataError),
            Case(StoreError.corruptGeometry(table: "roads", fid: 7, reason: "truncated"), .dataError),
            Case(StoreError.wrongGeometryKind(table: "roads", expected: "LINESTRING", got: "POINT"), .dataError),
            Case(StoreError.unknownSpatialReference(srsID: 99), .dataError),
            Case(StoreError.invalidWhereClause("x;", reason: "more than one statement"), .dataError),
            Case(StoreError.invalidData("odd"), .dataError),

            Case(RTreeBulkLoadError.unknownTable("rt"), .dataError),
            Case(RTreeBulkLoadError.unsupportedTable("rt", reason: "not an rtree"), .dataError),
            Case(RTreeBulkLoadError.nonFiniteCoordinate(id: 1), .dataError),
            Case(RTreeBulkLoadError.invertedBox(id: 1), .dataError),
            Case(RTreeBulkLoadError.duplicateID(1), .dataError),

            Case(JournalError.nothingToUndo, .dataError),
            Case(JournalError.nothingToRedo, .dataError),
            Case(JournalError.conflict(action: .undo, entry: 5, table: "roads", fid: 7, reason: "was changed after edit #5"), .dataError),
            Case(JournalError.corrupt(entry: 5, reason: "no undo data"), .dataError),
            Case(JournalError.unsupportedBulkChange(table: "roads", reason: "no integer primary key"), .dataError),

            Case(EditError.fieldNotEditable(table: "roads", field: "fid", reason: "it is the primary key"), .dataError),
            Case(EditError.invalidValue(table: "roads", field: "lanes", value: "x", reason: "not an integer"), .dataError),
            Case(EditError.notAPointTable(table: "roads", geometryType: "LINESTRING"), .dataError),
            Case(EditError.notSingleSegment(table: "roads", fid: 7, parts: 1, points: 3), .dataError),
            Case(EditError.notALineTable(table: "trees", geometryType: "POINT"), .dataError),
            Case(EditError.nonFiniteCoordinate("nan"), .dataError),
            Case(EditError.coordinateOutOfRange(table: "roads", value: 1e300, limit: 1e8, unit: "units of the CRS"), .dataError),
            Case(EditError.invalidSelection("not read-only"), .dataError),
            Case(EditError.emptySelection("no feature of roads is inside the box"), .dataError),
            Case(EditError.invalidTolerance(-1), .dataError),
            Case(EditError.conflictingCRS(given: "EPSG:2924", spatialReference: "wkid 4326 = EPSG:4326"), .dataError),
            Case(EditError.noReferenceScale(table: "roads"), .dataError),
            Case(EditError.nothingAtLocation(table: "roads", location: "1,2", tolerance: 13.889, nearest: [.init(fid: 4, distance: 20)]), .dataError),
            Case(EditError.ambiguousLocation(table: "roads", location: "1,2", tolerance: 13.889,
                                             candidates: [.init(fid: 1, distance: 0), .init(fid: 2, distance: 0)], more: 0), .dataError),
            Case(EditError.emptyLabelValue(table: "roads", field: "Name", annotationTable: "roads_anno", classID: 0, className: "Default",
                                           expression: "$feature.Name"), .dataError),
            Case(EditError.distantLocation(table: "roads", location: "-77.41,39.02 (EPSG:2924)", reasons: ["outside the area of use of EPSG:2924"],
                                           looksLikeDegrees: true), .dataError),
            Case(EditError.distantLocation(table: "roads", location: "1e7,1e7 (EPSG:2924)", reasons: ["outside the area of use of EPSG:2924"],
                                           looksLikeDegrees: false), .dataError),
            Case(EditError.notAnAnnotationTable(table: "roads"), .dataError),
            Case(EditError.invalidPlacement("give to or by, not both"), .dataError),
            Case(EditError.annotationNotPlaceable(table: "roads_anno", fid: 3, reason: "has no anchor to move by a vector"), .dataError),

            Case(CheckError.noAnnotationClasses(annotationTables: ["roads_anno"]), .dataError),
            Case(CheckError.notAnnotated(table: "roads"), .dataError),
            Case(CheckError.tooManyRepairs(count: 10, limit: 5), .dataError),

            Case(GeometryCodecError(.wkb, offset: 0, "unknown type 99"), .dataError),
            Case(GeometryCodecError(.geoPackageBinary, offset: 0, "bad magic"), .dataError),
            Case(GeometryCodecError(.geoJSON, offset: 3, "expected ','"), .dataError),
            Case(GeometryCodecError(.esriJSON, offset: 3, "expected ','"), .dataError),
            Case(GeometryCodecError(.esriShapeBuffer, offset: 0, "truncated"), .dataError),
            Case(GeometryCodecError.unsupportedDimension(.wkt, offset: 0, "POINT Z"), .dataError),

            Case(GeometryValidationError.nonFiniteCoordinate(point, part: 0, vertex: 1), .dataError),
            Case(GeometryValidationError.empty(.lineString), .dataError),
            Case(GeometryValidationError.invalid(reason: "Self-intersection[5 5]", location: Point(x: 5, y: 5)), .dataError),

            Case(EngineError.unknownCRS("EPSG:0", cause: projError), .dataError),
            Case(EngineError.refusedCRS("+init=/etc/passwd", reason: "it refers to a file or grid (init=)"), .dataError),
            Case(EngineError.noTransformation(from: "EPSG:4326", to: "EPSG:0", cause: projError), .dataError),
            Case(EngineError.nonFiniteCoordinate(point, crs: "EPSG:4326"), .dataError),
            Case(EngineError.outsideDomain(point, from: "EPSG:4326", to: "EPSG:2924", reason: "outside the area of use"), .dataError),
            Case(EngineError.nonFiniteResult(point, from: "EPSG:4326", to: "EPSG:2924"), .dataError),
            Case(EngineError.emptyGeometry(operation: "nearestPoints"), .dataError),
            Case(EngineError.notLineal(.point, operation: "distanceAlong"), .dataError),
            Case(EngineError.unsupportedGeometry("a GEOMETRYCOLLECTION"), .dataError),
            Case(EngineError.invalidArgument("the tolerance must not be negative"), .dataError),
            Case(GEOSError(function: "GEOSGeom_createLinearRing_r", messages: ["IllegalArgumentException: not closed"]), .dataError),
            Case(projError, .dataError),
            Case(GEOSError(function: "dlopen", messages: ["cannot load GEOS (libgeos_c.so.1; install libgeos-c1v5): not found"]), .unavailable),
            Case(PROJError(function: "dlopen", code: 0, codeDescription: nil, messages: ["cannot load PROJ (libproj.so.25; install libproj25): not found"]), .unavailable),

            Case(AnnotationError.expression(annotationTable: "roads_anno", classID: 1, message: "unknown field 'x'"), .dataError),
            Case(AnnotationError.whereClause(annotationTable: "roads_anno", classID: 1, message: "no such column: x"), .dataError),
            Case(AnnotationError.noLinearUnit(table: "roads", srsID: 4326), .dataError),
            Case(AnnotationError.placement(table: "roads", fid: 7, message: "zero length"), .dataError),

            Case(ExpressionError.syntax("expected ')'", position: 17), .dataError),
            Case(ExpressionError.unterminatedString(position: 3), .dataError),
            Case(ExpressionError.unknownFunction("Frob", position: 1), .dataError),
            Case(ExpressionError.argumentCount(function: "Left", expected: "2", got: 1, position: 1), .dataError),
            Case(ExpressionError.unsupported("variables are not supported", position: 1), .dataError),
            Case(ExpressionError.unknownField("NAME", position: 7), .dataError),
            Case(ExpressionError.typeMismatch("IIf needs a boolean condition", position: 1), .dataError),
            Case(ExpressionError.unsupportedFormat("yyyy", position: 1), .dataError),
            Case(ExpressionError.unknownUnit("furlongs", position: 1), .dataError),
            Case(ExpressionError.noLinearUnit(position: 1), .dataError),

            Case(PlacementError.emptyGeometry, .dataError),
            Case(PlacementError.zeroLengthLine, .dataError),
            Case(PlacementError.wrongGeometryKind(expected: "line", got: "point"), .dataError),

            Case(FontError.freeType(function: "FT_New_Face", code: 2, message: "unknown file format", path: "x.ttf"), .dataError),
            Case(FontError.fontconfig(function: "FcInitLoadConfig"), .dataError),
            Case(FontError.notScalable(path: "x.fon"), .dataError),
            Case(FontError.libraryMissing("cannot load FreeType (libfreetype.so.6; install libfreetype6): not found"), .unavailable),

            Case(GeodatabaseDefinitionError.malformedXML(line: 1, column: 2, message: "unclosed tag"), .dataError),
            Case(GeodatabaseDefinitionError.invalidValue(element: "ReferenceScale", value: "big"), .dataError),
            Case(GeodatabaseDefinitionError.malformedAnnotationClasses("label class 1 has no name"), .dataError),
            Case(GeodatabaseDefinitionError.unknownFieldType("esriFieldTypeRaster"), .dataError),
            Case(ProtobufError(offset: 4, message: "truncated varint"), .dataError),
            Case(AnnotationElementError(offset: nil, message: "no text"), .dataError),

            Case(SQLCondition.Refusal.notOneExpression("a ')' closes a parenthesis it did not open"), .dataError),
            Case(SQLCondition.Refusal.notAllowed("it reads table 'other'"), .dataError),
            Case(SQLCondition.Refusal.doesNotCompile("no such column: x"), .dataError),

            Case(SketchError.notStarted, .dataError),
            Case(SketchError.alreadyStarted, .dataError),
            Case(SketchError.noMapView, .dataError),
            Case(SketchError.toolNotAttached(tool: "vertex tool"), .dataError),
            Case(SketchError.invalidViewpoint("zero size"), .dataError),
            Case(SketchError.unsupportedGeometryType("an envelope has no vertices"), .dataError),
            Case(SketchError.indexOutOfRange("no vertex 9"), .dataError),
            Case(SketchError.noSelection, .dataError),
            Case(SketchError.cannotPickUp(element: "part"), .dataError),
            Case(SketchError.alreadyPickedUp, .dataError),
            Case(SketchError.midVertexNotEditable(action: "deleted"), .dataError),
            Case(SketchError.invalidTransform("the factor must not be 0"), .dataError),
            Case(SketchError.invalidTolerance(200), .dataError),
            Case(SketchError.strokeTooShort(points: 1, needed: 2), .dataError),
            Case(SketchError.degenerateShape("the drag encloses nothing"), .dataError),

            Case(CopyError.tablesExist(["roads"]), .cannotCreate),
            Case(CopyError.destinationExists("x.gpkg"), .cannotCreate),
            Case(CopyError.unconvertibleValue(table: "roads", fid: 7, column: "lanes", reason: "'two' cannot be stored"), .dataError),
            Case(CopyError.notADataSet("no annolink schema"), .dataError),
            Case(CopyError.unsupported("Z coordinates"), .dataError),

            Case(ServerError.cannotListen("127.0.0.1:8080", reason: "Address already in use"), .temporaryFailure),
            Case(ServerError.invalidListenAddress("somewhere"), .usage),
            Case(ServerError.libraryMissing("cannot load libmicrohttpd (libmicrohttpd.so.12; install libmicrohttpd12): not found"), .unavailable),
            Case(ServerError.invalidTokenFile(path: "tokens.txt", line: 3, reason: "expected 'TOKEN USER read|edit', found 2 fields"), .dataError),
            Case(RenderError.cairo(function: "cairo_surface_write_to_png(x.png)", status: "error while writing to output stream"), .cannotCreate),
            Case(RenderError.cannotWrite(path: "pictures", reason: "Permission denied"), .cannotCreate),
            Case(RenderError.noExtent, .dataError),
            Case(RenderError.libraryMissing("cannot load Cairo (libcairo.so.2; install libcairo2): not found"), .unavailable),
            Case(RenderError.invalidView("the scale is not a finite number"), .dataError),
        ]
    }

    @Test("every domain error case exits with its status and prints its description on one line")
    func everyCase() {
        for entry in Self.cases {
            let (message, status) = AnnoLinkCommand.describe(entry.error)
            #expect(status == entry.status, "\(type(of: entry.error)) \(entry.error)")
            // The additions: what the command line offers against an empty label value and a
            // location far from the data.
            let hint = switch entry.error {
            case EditError.emptyLabelValue: " (--allow-empty sets it anyway)"
            case EditError.distantLocation(_, _, _, true): ": give --crs EPSG:4326 if they are (--force writes it anyway)"
            case EditError.distantLocation(_, _, _, false): " (--force writes it anyway)"
            default: ""
            }
            #expect(message == String(describing: entry.error) + hint, "\(type(of: entry.error))")
            #expect(!message.contains("\n"))
        }
    }

    @Test("SQLite errors by primary result code, extended codes included", arguments: [
        (ResultCode.busy.rawValue, "the file is locked by another process: m", ExitStatus.temporaryFailure),
        (ResultCode.locked.rawValue, "the file is locked by another process: m", .temporaryFailure),
        (517, "the file is locked by another process: m", .temporaryFailure),  // SQLITE_BUSY_SNAPSHOT
        (ResultCode.constraint.rawValue, "constraint violated: m", .dataError),
        (2067, "constraint violated: m", .dataError),  // SQLITE_CONSTRAINT_UNIQUE
        (ResultCode.corrupt.rawValue, "the file is damaged or not a database: m", .dataError),
        (ResultCode.notADatabase.rawValue, "the file is damaged or not a database: m", .dataError),
        (ResultCode.ioError.rawValue, "cannot read or write the file: m", .ioError),
        (266, "cannot read or write the file: m", .ioError),  // SQLITE_IOERR_READ
        (ResultCode.full.rawValue, "cannot read or write the file: m", .ioError),
        (ResultCode.cannotOpen.rawValue, "cannot read or write the file: m", .ioError),
        (ResultCode.readOnly.rawValue, "the file is read-only: m", .ioError),
        (ResultCode.error.rawValue, "SQLite: m", .dataError),
        (ResultCode.permission.rawValue, "SQLite: m", .dataError),
        (ResultCode.authorization.rawValue, "SQLite: m", .dataError),
        (ResultCode.interrupt.rawValue, "SQLite: m", .dataError),
        (ResultCode.noMemory.rawValue, "SQLite: m", .dataError),
        (ResultCode.range.rawValue, "SQLite: m", .dataError),
        (ResultCode.mismatch.rawValue, "SQLite: m", .dataError),
        (ResultCode.tooBig.rawValue, "SQLite: m", .dataError),
        (ResultCode.misuse.rawValue, "SQLite: m", .dataError),
    ] as [(Int32, String, ExitStatus)])
    func sqlite(code: Int32, message: String, status: ExitStatus) {
        let (text, exit) = AnnoLinkCommand.describe(SQLiteError(code: code, message: "m", sql: "SELECT 1"))
        #expect(text == message)
        #expect(exit == status)
    }

    @Test("PostgreSQL errors by SQLSTATE, as for a file", arguments: [
        ("3D000", ExitStatus.noInput), ("42P07", .cannotCreate), ("40001", .temporaryFailure), ("40P01", .temporaryFailure),
        ("55P03", .temporaryFailure), ("57P01", .temporaryFailure), ("08006", .temporaryFailure), ("28P01", .ioError),
        ("42501", .ioError), ("23505", .dataError), ("22P02", .dataError), ("08P01", .dataError), ("42601", .dataError), ("XX000", .dataError),
    ])
    func postgreSQL(sqlState: String, status: ExitStatus) {
        let (text, exit) = AnnoLinkCommand.describe(PostgreSQLError(sqlState: sqlState, message: "m\nsecond line", sql: "SELECT 1"))
        #expect(exit == status)
        #expect(text.hasPrefix("PostgreSQL error \(sqlState): m second line"))
        // No SQLSTATE and no connection: the server cannot be reached.
        #expect(AnnoLinkCommand.describe(PostgreSQLError(sqlState: nil, message: "refused", isConnectionFailure: true)).1 == .temporaryFailure)
        // libpq itself missing: nothing to try again, install it.
        #expect(AnnoLinkCommand.describe(PostgreSQLError(sqlState: nil, message: "cannot load libpq", isConnectionFailure: true, isLibraryMissing: true)).1 == .unavailable)
    }

    @Test func sqliteMessageOnOneLine() {
        let error = SQLiteError(.error, message: "near \"x\":\nsyntax error")
        #expect(AnnoLinkCommand.describe(error) == ("SQLite: near \"x\": syntax error", .dataError))
    }

    @Test("the messages the end-to-end tests check")
    func exactMessages() {
        #expect(AnnoLinkCommand.describe(StoreError.missingFile(path: "/x.gpkg")) == ("no such file: /x.gpkg", .noInput))
        #expect(AnnoLinkCommand.describe(StoreError.unknownTable("no_such_table")) == ("no feature table named 'no_such_table'", .dataError))
        #expect(AnnoLinkCommand.describe(CommandError.usage("--bogus: unknown option")) == ("--bogus: unknown option", .usage))
        #expect(AnnoLinkCommand.describe(JournalError.nothingToRedo).0.hasPrefix("nothing to redo"))
    }

    @Test("Foundation's file errors are I/O errors")
    func foundationFileError() {
        let (message, status) = AnnoLinkCommand.describe(CocoaError(.fileWriteOutOfSpace))
        #expect(status == .ioError)
        #expect(message.hasPrefix("cannot read or write a file: "))
    }

    struct Unexpected: Error, CustomStringConvertible {
        var description: String { "something\nodd" }
    }

    @Test("an error of a type the command line does not know is a bug: status 70")
    func unexpectedError() {
        #expect(AnnoLinkCommand.describe(Unexpected()) == ("internal error: something odd, please report", .software))
        #expect(AnnoLinkCommand.describe(CocoaError(.coderInvalidValue)).1 == .software)
    }

    @Test func resultCodes() {
        #expect(ResultCode(rawValue: 2067).primaryResultCode == .constraint)
        #expect(ResultCode(rawValue: 2067) != .constraint)
        #expect(ResultCode.constraint.isPrimary)
        #expect(!ResultCode(rawValue: 2067).isPrimary)
        #expect(SQLiteError(code: 2067, message: "UNIQUE constraint failed").resultCode == .constraint)
        #expect(SQLiteError(code: 26, message: "file is not a database").isNotADatabase)
        #expect(ResultCode.busy.description == "5 (database is locked)")
    }
}
