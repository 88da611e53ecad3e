import AnnoLinkAnnotation
import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// Parsing and printing shared by the editing commands.
enum EditOutput {
    /// Parses `X,Y` (two finite numbers), with a usage error naming `option` otherwise.
    static func coordinate(_ text: String, option: String) throws -> Point {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let x = decimalNumber(parts[0]), let y = decimalNumber(parts[1]) else {
            throw CommandError.usage("\(option) expects X,Y (two numbers separated by a comma), not '\(text)'")
        }
        guard x.isFinite, y.isFinite else { throw CommandError("\(option): coordinates must be finite numbers, not '\(text)'", status: .dataError) }
        return Point(x: x, y: y)
    }

    /// Parses a fid (a whole number).
    static func fid(_ text: String) throws -> Int64 {
        guard let fid = Int64(text) else { throw CommandError.usage("FID must be a whole number, not '\(text)'") }
        return fid
    }

    /// Splits `FIELD=VALUE` words.
    static func assignments(_ words: [String]) throws -> [FieldAssignment] {
        try words.map { word in
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw CommandError.usage("expected FIELD=VALUE, not '\(word)'")
            }
            return FieldAssignment(field: String(word[..<equals]), text: String(word[word.index(after: equals)...]))
        }
    }

    /// The command line as typed, for the journal.
    static var commandLine: String {
        (["annolink"] + CommandLine.arguments.dropFirst()).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }

    static func text(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): v
        case .blob(let v): "x'" + SQLValue.hex(v) + "'"
        }
    }

    /// Prints `result` as JSON or as lines for a person.
    static func print(_ result: EditResult, json asJSON: Bool, warnings: [String]) throws {
        for warning in warnings { Output.diagnostic("warning: \(warning)") }
        if asJSON {
            Output.line(try Output.json(result))
            return
        }
        let verb: String
        switch result.kind {
        case .set: verb = "set"
        case .move: verb = "moved"
        case .moveVertex: verb = "moved a vertex of"
        case .add: verb = "added"
        case .delete: verb = "deleted"
        case .reshape: verb = "reshaped"
        }
        var line = "\(verb) \(result.table) fid \(result.fid)"
        if let entry = result.journalEntry { line += " (journal entry \(entry); undo with 'annolink undo')" }
        Output.line(line)
        for field in result.fields { Output.line("  \(field.name): \(text(field.old)) -> \(text(field.new))") }
        if let geometry = result.newGeometry, let wkt = try? geometry.wkt() { Output.line("  geometry: \(wkt)") }
        for change in result.annotation {
            var text = "  annotation \(change.annotationTable) fid \(change.annotationFid) \(change.kind.rawValue)"
            if let new = change.newText, change.oldText != new {
                text += change.oldText.map { ": '\($0)' -> '\(new)'" } ?? ": '\(new)'"
            }
            if let anchor = change.newAnchor, change.kind != .deleted {
                text += String(format: " at %.2f, %.2f", anchor.x, anchor.y)
            }
            Output.line(text)
        }
        if result.annotation.isEmpty { Output.line("  no linked annotation changed") }
    }
}
