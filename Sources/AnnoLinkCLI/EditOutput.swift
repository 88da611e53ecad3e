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
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else {
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
    static func assignments(_ words: [String]) throws -> [(field: String, text: String)] {
        try words.map { word in
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw CommandError.usage("expected FIELD=VALUE, not '\(word)'")
            }
            return (String(word[..<equals]), String(word[word.index(after: equals)...]))
        }
    }

    /// The command line as typed, for the journal.
    static var commandLine: String {
        (["annolink"] + CommandLine.arguments.dropFirst()).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }

    static func json(_ value: SQLValue) -> Any {
        switch value {
        case .null: NSNull()
        case .integer(let v): v
        case .real(let v): v
        case .text(let v): v
        case .blob(let v): v.map { String(format: "%02x", $0) }.joined()
        }
    }

    static func text(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): v
        case .blob(let v): "x'" + v.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }

    static func json(_ point: Point?) -> Any {
        point.map { [$0.x, $0.y] } ?? NSNull()
    }

    static func json(_ geometry: Geometry?) -> Any {
        guard let geometry, let text = try? geometry.geoJSON(), let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) else { return NSNull() }
        return object
    }

    static func json(_ change: AnnotationChange) -> [String: Any] {
        [
            "change": change.kind.rawValue, "annotationTable": change.annotationTable, "annotationFid": change.annotationFid,
            "classID": change.classID, "oldText": change.oldText ?? NSNull(), "newText": change.newText ?? NSNull(),
            "oldAnchor": json(change.oldAnchor), "newAnchor": json(change.newAnchor),
        ]
    }

    /// Prints `result` as JSON or as lines for a person.
    static func print(_ result: EditResult, json asJSON: Bool, warnings: [String]) throws {
        for warning in warnings { Output.diagnostic("warning: \(warning)") }
        if asJSON {
            var object: [String: Any] = [
                "edit": result.kind.rawValue, "table": result.table, "fid": result.fid,
                "fields": result.fields.map { ["name": $0.name, "old": json($0.old), "new": json($0.new)] },
                "annotation": result.annotation.map(json),
                "journalEntry": result.journalEntry ?? NSNull(),
            ]
            if result.oldGeometry != nil || result.newGeometry != nil {
                object["oldGeometry"] = json(result.oldGeometry)
                object["newGeometry"] = json(result.newGeometry)
            }
            Output.line(try Output.json(object))
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
