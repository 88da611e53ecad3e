import AnnoLinkGeometry
import CSQLite

/// The SQL functions the GeoPackage R-tree triggers call: `ST_IsEmpty`, `ST_MinX`, `ST_MaxX`,
/// `ST_MinY`, `ST_MaxY`, each taking a GeoPackage geometry blob; `annolink_has_geometry(blob)`,
/// 1 for a readable non-empty geometry, 0 for an empty one and NULL for NULL or a blob that
/// cannot be read (never an error: `check` counts with it and reports such rows itself); and `annolink_translate(blob,
/// dx, dy)`, the blob moved by (dx, dy) in its CRS units (envelope too), which undo and redo
/// of a bulk move use.
///
/// They read the blob header only (its envelope), decoding the WKB just when the header has no
/// envelope, because the triggers call them for every written row. NULL gives NULL; a blob that
/// is not a GeoPackage geometry makes the statement fail with the reason, so that a corrupt
/// geometry is never indexed silently.
enum GeoPackageFunctions {
    private enum Function: Int {
        case isEmpty, minX, maxX, minY, maxY, hasGeometry

        var sqlName: String {
            switch self {
            case .isEmpty: "ST_IsEmpty"
            case .minX: "ST_MinX"
            case .maxX: "ST_MaxX"
            case .minY: "ST_MinY"
            case .maxY: "ST_MaxY"
            case .hasGeometry: "annolink_has_geometry"
            }
        }
    }

    /// Registers the five functions on `connection`.
    static func register(on connection: Connection) throws {
        for function in [Function.isEmpty, .minX, .maxX, .minY, .maxY, .hasGeometry] {
            // The function's identity travels in the user-data pointer, so one non-capturing C
            // callback serves all five.
            let userData = UnsafeMutableRawPointer(bitPattern: function.rawValue + 1)
            let rc = sqlite3_create_function_v2(
                connection.handle, function.sqlName, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, userData,
                { context, _, arguments in
                    guard let context, let arguments, let raw = sqlite3_user_data(context),
                          let function = Function(rawValue: Int(bitPattern: raw) - 1) else { return }
                    GeoPackageFunctions.evaluate(function, context: context, argument: arguments[0])
                }, nil, nil, nil)
            guard rc == SQLITE_OK else { throw connection.lastError(sql: function.sqlName, code: rc) }
        }
        let rc = sqlite3_create_function_v2(
            connection.handle, "annolink_translate", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                GeoPackageFunctions.translate(context: context, blob: arguments[0], dx: arguments[1], dy: arguments[2])
            }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw connection.lastError(sql: "annolink_translate", code: rc) }
    }

    private static func translate(context: OpaquePointer, blob argument: OpaquePointer?, dx: OpaquePointer?, dy: OpaquePointer?) {
        switch sqlite3_value_type(argument) {
        case SQLITE_BLOB: break
        case SQLITE_NULL:
            sqlite3_result_null(context)
            return
        default:
            // Moving a text or a number would have to write NULL or the value unchanged; both
            // would report a move that did not happen.
            sqlite3_result_error(context, "annolink_translate: a geometry column holds a value that is not a GeoPackage geometry blob", -1)
            return
        }
        let count = Int(sqlite3_value_bytes(argument))
        guard let source = sqlite3_value_blob(argument), count > 0 else {
            sqlite3_result_error(context, "annolink_translate: an empty blob is not a GeoPackage geometry", -1)
            return
        }
        var blob = [UInt8](UnsafeRawBufferPointer(start: source, count: count))
        do {
            try GeoPackageGeometry.translate(blob: &blob, dx: sqlite3_value_double(dx), dy: sqlite3_value_double(dy))
            blob.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress, UInt64($0.count), annolink_sqlite_transient()) }
        } catch {
            sqlite3_result_error(context, "annolink_translate: \(error)", -1)
        }
    }

    private static func evaluate(_ function: Function, context: OpaquePointer, argument: OpaquePointer?) {
        guard sqlite3_value_type(argument) == SQLITE_BLOB else {
            sqlite3_result_null(context)
            return
        }
        let pointer = sqlite3_value_blob(argument)
        let count = Int(sqlite3_value_bytes(argument))
        let blob = UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count)
        do {
            let header = try GeoPackageBinaryHeader.read(from: blob)
            if function == .isEmpty || function == .hasGeometry {
                sqlite3_result_int(context, header.isEmpty == (function == .isEmpty) ? 1 : 0)
                return
            }
            guard let envelope = try header.envelopeOrComputed(in: blob) else {
                sqlite3_result_null(context)
                return
            }
            let value = switch function {
            case .minX: envelope.minX
            case .maxX: envelope.maxX
            case .minY: envelope.minY
            case .maxY: envelope.maxY
            case .isEmpty, .hasGeometry: 0.0
            }
            sqlite3_result_double(context, value)
        } catch where function == .hasGeometry {
            sqlite3_result_null(context)
        } catch {
            sqlite3_result_error(context, "\(function.sqlName): \(error)", -1)
        }
    }
}
