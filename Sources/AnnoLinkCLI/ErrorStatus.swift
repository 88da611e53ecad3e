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

// Every error a command can throw, mapped to its one-line message and exit status in one place
// (docs/cli.md lists them). Each domain error type gets an `exitStatus` with a switch over all
// its cases and no `default`, so that a new case does not compile until it is given a status
// here; an error of a type not listed is a bug and exits 70.

extension AnnoLinkCommand {
    /// The one-line message (without the `error:` prefix) and exit status for any error a
    /// command can throw.
    static func describe(_ error: any Error) -> (String, ExitStatus) {
        switch error {
        case let error as CommandError: (error.message, error.status)
        case let error as StoreError: (error.description, error.exitStatus)
        case let error as SQLiteError: describe(error)
        case let error as PostgreSQLError: (oneLine(error.description), error.exitStatus)
        case let error as CopyError: (oneLine(error.description), error.exitStatus)
        case let error as RTreeBulkLoadError: (error.description, error.exitStatus)
        case let error as JournalError: (oneLine(error.description), error.exitStatus)
        case let error as EditError: (oneLine(error.description) + cliHint(error), error.exitStatus)
        case let error as CheckError: (error.description, error.exitStatus)
        case let error as GeometryCodecError: (error.description, error.exitStatus)
        case let error as GeometryValidationError: (oneLine(error.description), error.exitStatus)
        case let error as EngineError: (oneLine(error.description), error.exitStatus)
        case let error as GEOSError: (oneLine(error.description), error.exitStatus)
        case let error as PROJError: (oneLine(error.description), error.exitStatus)
        case let error as AnnotationError: (oneLine(error.description), error.exitStatus)
        case let error as ExpressionError: (oneLine(error.description), error.exitStatus)
        case let error as PlacementError: (oneLine(error.description), error.exitStatus)
        case let error as FontError: (oneLine(error.description), error.exitStatus)
        case let error as GeodatabaseDefinitionError: (oneLine(error.description), error.exitStatus)
        case let error as ProtobufError: (oneLine(error.description), error.exitStatus)
        case let error as AnnotationElementError: (oneLine(error.description), error.exitStatus)
        case let error as SketchError: (oneLine(error.description), error.exitStatus)
        case let error as ServerError: (oneLine(error.description), error.exitStatus)
        case let error as ServiceError: (oneLine(error.description), .dataError)
        case let error as RenderError: (oneLine(error.description), error.exitStatus)
        case let error as SQLCondition.Refusal: (oneLine(error.description), .dataError)
        case let error as CocoaError where error.isFileError:
            ("cannot read or write a file: \(oneLine(error.localizedDescription))", .ioError)
        default: ("internal error: \(oneLine(String(describing: error))), please report", .software)
        }
    }

    /// SQLite's failures by result code: a busy file can be retried, a damaged one cannot.
    static func describe(_ error: SQLiteError) -> (String, ExitStatus) {
        let message = oneLine(error.message)
        switch error.resultCode {
        case .busy, .locked: return ("the file is locked by another process: \(message)", .temporaryFailure)
        case .constraint: return ("constraint violated: \(message)", .dataError)
        case .corrupt, .notADatabase: return ("the file is damaged or not a database: \(message)", .dataError)
        case .ioError, .full, .cannotOpen: return ("cannot read or write the file: \(message)", .ioError)
        case .readOnly: return ("the file is read-only: \(message)", .ioError)
        // A state annolink's own SQL should never reach (its SQL functions called otherwise
        // than it calls them): a bug to report, exit 70.
        case .internalError: return ("internal error: \(message), please report", .software)
        default: return ("SQLite: \(message)", .dataError)
        }
    }

    /// What the command line offers against `error`, after its message: an empty label field
    /// can be set anyway with `--allow-empty` (a browser or a service client has no such flag,
    /// so the edit service's own message does not name it).
    static func cliHint(_ error: EditError) -> String {
        switch error {
        case .emptyLabelValue: " (--allow-empty sets it anyway)"
        case .distantLocation(_, _, _, let looksLikeDegrees):
            looksLikeDegrees ? ": give --crs EPSG:4326 if they are (--force writes it anyway)" : " (--force writes it anyway)"
        default: ""
        }
    }

    /// Lines to show under the `error:` line, indented: the candidates of an ambiguous
    /// location (`fid 12 at 0.000`); none for other errors.
    static func details(_ error: any Error) -> [String] {
        (error as? EditError)?.candidateLines ?? []
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `text` on one line with every other control character (an escape sequence, a carriage
    /// return, a C1 control) written as `\u{…}`: names in messages come from files and
    /// arguments, and must not reach the terminal as commands (issue 16, D10).
    static func terminalSafe(_ text: String) -> String {
        var result = ""
        for scalar in oneLine(text).unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension StoreError {
    /// A missing input is 66 and an output that exists already 73; a file another process holds
    /// open is busy (75); a command this store does not support is a usage error (64); the rest
    /// is bad data.
    var exitStatus: ExitStatus {
        switch self {
        case .missingFile: .noInput
        case .notSupported: .usage
        case .fileExists, .cannotCreate: .cannotCreate
        case .fileInUse: .temporaryFailure
        case .notAGeoPackage, .unknownTable, .tableExists, .unknownColumn, .unknownFeature, .invalidValue, .corruptGeometry,
            .wrongGeometryKind, .unknownSpatialReference, .invalidWhereClause, .invalidData:
            .dataError
        }
    }
}

extension PostgreSQLError {
    /// As for a file: a database that is not there is a missing input (66), a table that is
    /// there already an output that exists (73), a server that cannot be reached or a conflict
    /// with another transaction can be tried again (75), a refused login is an I/O failure (74),
    /// values or SQL the server refuses are bad data (65), and libpq missing is unavailable (69).
    var exitStatus: ExitStatus {
        switch kind {
        case .libraryMissing: .unavailable
        case .noSuchDatabase: .noInput
        case .exists: .cannotCreate
        case .unavailable, .conflict: .temporaryFailure
        case .permission: .ioError
        case .invalidData, .invalidStatement, .other: .dataError
        }
    }
}

extension CopyError {
    /// A destination that exists is 73, as for every output; the rest is the data.
    var exitStatus: ExitStatus {
        switch self {
        case .tablesExist, .destinationExists: .cannotCreate
        case .unconvertibleValue, .notADataSet, .unsupported: .dataError
        }
    }
}

extension ServerError {
    /// An address in use can be tried again; a bad token file is bad data.
    var exitStatus: ExitStatus {
        switch self {
        case .cannotListen: .temporaryFailure
        case .libraryMissing: .unavailable
        case .invalidListenAddress: .usage
        case .invalidTokenFile: .dataError
        case .invalidPublicURL, .invalidCORSOrigin, .invalidPathPrefix: .usage
        }
    }
}

extension RTreeBulkLoadError {
    var exitStatus: ExitStatus {
        switch self {
        case .unknownTable, .unsupportedTable, .nonFiniteCoordinate, .invertedBox, .duplicateID: .dataError
        }
    }
}

extension JournalError {
    /// A refused undo or redo leaves the file as it was: the data does not allow it.
    var exitStatus: ExitStatus {
        switch self {
        case .nothingToUndo, .nothingToRedo, .conflict, .corrupt, .unsupportedBulkChange: .dataError
        }
    }
}

extension EditError {
    var exitStatus: ExitStatus {
        switch self {
        case .fieldNotEditable, .invalidValue, .notAPointTable, .notSingleSegment, .notALineTable, .firstVertexChanged, .notOneSegment,
            .annotationGeometry, .nonFiniteCoordinate, .coordinateOutOfRange,
            .invalidSelection, .emptySelection, .invalidTolerance, .noReferenceScale, .nothingAtLocation, .ambiguousLocation,
            .conflictingCRS, .emptyLabelValue, .distantLocation, .notAnAnnotationTable, .invalidPlacement, .annotationNotPlaceable:
            .dataError
        }
    }
}

extension CheckError {
    var exitStatus: ExitStatus {
        switch self {
        case .noAnnotationClasses, .notAnnotated, .tooManyRepairs: .dataError
        }
    }
}

extension GeometryCodecError {
    /// Every format's reading failure is bad data.
    var exitStatus: ExitStatus {
        switch format {
        case .wkb, .geoPackageBinary, .geoJSON, .esriJSON, .esriShapeBuffer, .wkt: .dataError
        }
    }
}

extension GeometryValidationError {
    var exitStatus: ExitStatus {
        switch self {
        case .nonFiniteCoordinate, .empty, .invalid: .dataError
        }
    }
}

extension EngineError {
    var exitStatus: ExitStatus {
        switch self {
        case .unknownCRS, .refusedCRS, .noTransformation, .nonFiniteCoordinate, .outsideDomain, .nonFiniteResult, .emptyGeometry, .notLineal,
            .unsupportedGeometry, .invalidArgument:
            .dataError
        }
    }
}

extension GEOSError {
    /// GEOS fails on the geometries it is given (an unclosed ring, …); GEOS missing, loaded on
    /// first use, is unavailable.
    var exitStatus: ExitStatus { function == "dlopen" ? .unavailable : .dataError }
}

extension PROJError {
    /// PROJ fails on the CRS definitions and coordinates it is given; PROJ missing, loaded on
    /// first use, is unavailable.
    var exitStatus: ExitStatus { function == "dlopen" ? .unavailable : .dataError }
}

extension AnnotationError {
    var exitStatus: ExitStatus {
        switch self {
        case .expression, .whereClause, .noLinearUnit, .placement: .dataError
        }
    }
}

extension ExpressionError {
    var exitStatus: ExitStatus {
        switch self {
        case .syntax, .unterminatedString, .unknownFunction, .argumentCount, .unsupported, .unknownField, .typeMismatch,
            .unsupportedFormat, .unknownUnit, .noLinearUnit:
            .dataError
        }
    }
}

extension PlacementError {
    var exitStatus: ExitStatus {
        switch self {
        case .emptyGeometry, .zeroLengthLine, .wrongGeometryKind: .dataError
        }
    }
}

extension FontError {
    /// A font file that cannot be read is bad input data; a missing font library is unavailable.
    var exitStatus: ExitStatus {
        switch self {
        case .freeType, .fontconfig, .notScalable: .dataError
        case .libraryMissing: .unavailable
        }
    }
}

extension RenderError {
    /// Cairo failing to write is an output problem; a view that cannot be drawn is bad input.
    var exitStatus: ExitStatus {
        switch self {
        case .cairo, .cannotWrite: .cannotCreate
        case .noExtent, .invalidView: .dataError
        case .libraryMissing: .unavailable
        }
    }
}

extension GeodatabaseDefinitionError {
    var exitStatus: ExitStatus {
        switch self {
        case .malformedXML, .invalidValue, .malformedAnnotationClasses, .unknownFieldType: .dataError
        }
    }
}

extension ProtobufError {
    var exitStatus: ExitStatus { .dataError }
}

extension AnnotationElementError {
    var exitStatus: ExitStatus { .dataError }
}

extension SketchError {
    /// A sketch command the editor refuses (in a script, the session stops there).
    var exitStatus: ExitStatus {
        switch self {
        case .notStarted, .alreadyStarted, .noMapView, .toolNotAttached, .invalidViewpoint, .unsupportedGeometryType,
            .indexOutOfRange, .noSelection, .cannotPickUp, .alreadyPickedUp, .midVertexNotEditable, .invalidTransform,
            .invalidTolerance, .strokeTooShort, .degenerateShape:
            .dataError
        }
    }
}
