import AnnoLinkStore
import Foundation

/// Turns the text a user typed for a field (`FIELD=VALUE` on the command line) into the value
/// its column holds, checking the column's type and constraints.
///
/// `NULL` (in capitals) is SQL NULL; anything else is read by the column's affinity: integers
/// (and booleans as `true`/`false`/`1`/`0`), real numbers, text (checked against `TEXT(n)`),
/// dates `YYYY-MM-DD`, date-times `YYYY-MM-DDTHH:MM:SS[.fff]Z`, blobs as hexadecimal.
enum FieldValue {
    /// The text that is SQL NULL.
    static let nullText = "NULL"

    static func parse(_ text: String, for column: Column, table: String) throws -> SQLValue {
        func invalid(_ reason: String) -> EditError {
            .invalidValue(table: table, field: column.name, value: text, reason: reason)
        }
        if text == nullText {
            guard !column.isNotNull else { throw invalid("the column is NOT NULL") }
            return .null
        }
        switch column.affinity {
        case .integer:
            guard let value = Int64(text) else { throw invalid("\(column.type) expects a whole number") }
            if let range = integerRange(column.type), !range.contains(value) {
                throw invalid("\(column.type) holds \(range.lowerBound)…\(range.upperBound)")
            }
            return .integer(value)
        case .boolean:
            switch text.lowercased() {
            case "true", "1": return .integer(1)
            case "false", "0": return .integer(0)
            default: throw invalid("BOOLEAN expects true or false")
            }
        case .real:
            guard let value = Double(text), value.isFinite else { throw invalid("\(column.type) expects a finite number") }
            return .real(value)
        case .text:
            if let limit = column.maximumTextLength, text.count > limit {
                throw invalid("\(column.type) holds at most \(limit) characters, this has \(text.count)")
            }
            return .text(text)
        case .date:
            guard text.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil else { throw invalid("DATE expects YYYY-MM-DD") }
            return .text(text)
        case .dateTime:
            guard text.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$"#, options: .regularExpression) != nil else {
                throw invalid("DATETIME expects YYYY-MM-DDTHH:MM:SS.SSSZ")
            }
            return .text(text)
        case .blob:
            let digits = Array(text.utf8)
            guard digits.count % 2 == 0, let bytes = hexBytes(digits) else { throw invalid("BLOB expects hexadecimal digits") }
            return .blob(bytes)
        case .geometry:
            throw EditError.fieldNotEditable(table: table, field: column.name, reason: "it is the geometry; use move, move-vertex or translate")
        }
    }

    /// The range of GeoPackage's sized integer types.
    static func integerRange(_ declared: String) -> ClosedRange<Int64>? {
        switch declared.uppercased() {
        case "TINYINT": -128...127
        case "SMALLINT": -32_768...32_767
        case "MEDIUMINT": -2_147_483_648...2_147_483_647
        default: nil
        }
    }

    static func hexBytes(_ digits: [UInt8]) -> [UInt8]? {
        var bytes: [UInt8] = []
        var i = 0
        while i < digits.count {
            guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        return bytes
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
