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

    /// `--dry-run`, as every editing command declares it.
    static let dryRun = ArgumentDeclaration.flag("--dry-run", help: """
        print exactly what would change (fields; annotation text,
        anchor and angle before -> after) and write nothing
        """)
    /// `--force`, for the commands that take a location: write (or search) a location outside
    /// the area of use of the table's CRS or far outside its extent (docs/cli.md, "Locations
    /// far from the data").
    static let force = ArgumentDeclaration.flag("--force", help: """
        take a location outside the area of use of the table's CRS, or
        more than 10 times the table's size from its extent (refused
        otherwise: coordinates given without their --crs)
        """)
    /// `--allow-empty`, for the commands that set fields.
    static let allowEmpty = ArgumentDeclaration.flag("--allow-empty", help: """
        set NULL or an empty or blank text even for a field that a
        label expression reads (refused otherwise)
        """)

    /// Runs `request` on `service`, or with `dryRun` runs it as a dry run (`DryRun`).
    static func run<Request: EditRequest>(_ request: Request, in service: EditService, dryRun: Bool) throws -> Request.Result
    where Request.Result: DryRunReport {
        dryRun ? try service.run(DryRun(request)) : try service.run(request)
    }

    /// Runs a bulk edit (`body`, given a progress callback), or with `dryRun` runs it as a dry
    /// run, showing the count of features done on a terminal.
    static func runBulk(in service: EditService, dryRun: Bool, _ body: (_ progress: (Int, Int) -> Void) throws -> BulkEditResult) throws -> BulkEditResult {
        let progress = Progress("features")
        let update = { (done: Int, _: Int) in progress.update(done) }
        let result = dryRun ? try service.dryRun { try body(update) } : try body(update)
        if result.features > 0 { progress.finish(result.features) }
        return result
    }

    /// Prints `result` as JSON or as lines for a person.
    static func print(_ result: EditResult, json asJSON: Bool, warnings: [String]) throws {
        for warning in warnings { Output.diagnostic("warning: \(warning)") }
        if asJSON {
            Output.line(try Output.json(result))
            return
        }
        lines(of: result, indent: "")
    }

    /// Prints a bulk edit's result as JSON or as lines for a person: a summary, and with a dry
    /// run each feature's change.
    static func print(_ result: BulkEditResult, json asJSON: Bool, warnings: [String]) throws {
        for warning in warnings { Output.diagnostic("warning: \(warning)") }
        if asJSON {
            Output.line(try Output.json(result))
            return
        }
        let a = result.annotation
        let verb = result.kind == .delete ? "delete" : "set " + result.fields.map { "\($0.name)=\(text($0.new))" }.joined(separator: " ") + " of"
        let counts = "annotation rows: \(a.updated) updated, \(a.created) created, \(a.deleted) deleted, \(a.reclassified) reclassified"
        if result.features == 0 {
            Output.line("no feature of \(result.table) is selected; nothing changed")
        } else if result.dryRun {
            Output.line("would \(verb) \(result.features) features of \(result.table); \(counts) (dry run: nothing written)")
        } else {
            var line = "\(result.kind == .delete ? "deleted" : verb) \(result.features) features of \(result.table); \(counts)"
            if let entry = result.journalEntry { line += " (journal entry \(entry); undo with 'annolink undo')" }
            Output.line(line)
        }
        for change in result.changes ?? [] where result.dryRun { lines(of: change, indent: "  ") }
    }

    /// One annotation row's change, for a person: with a dry run the anchor and angle before
    /// and after.
    static func line(of change: AnnotationChange, dryRun: Bool, indent: String) -> String {
        var text = "\(indent)  annotation \(change.annotationTable) fid \(change.annotationFid) \(change.kind.rawValue)"
        if let new = change.newText, change.oldText != new {
            text += change.oldText.map { ": '\($0)' -> '\(new)'" } ?? ": '\(new)'"
        }
        if dryRun {
            // A preview says where the label was and where it would go.
            let format = { (p: Point) in "\(fixedDecimal(p.x)), \(fixedDecimal(p.y))" }
            switch (change.oldAnchor, change.newAnchor) {
            case let (old?, new?) where format(old) != format(new): text += " at \(format(old)) -> \(format(new))"
            case let (_, new?): text += " at \(format(new))"
            case let (old?, nil): text += " at \(format(old))"
            case (nil, nil): break
            }
            if let old = change.oldAngle, let new = change.newAngle, fixedDecimal(old) != fixedDecimal(new) {
                text += ", angle \(fixedDecimal(old)) -> \(fixedDecimal(new))"
            }
        } else if let anchor = change.newAnchor, change.kind != .deleted {
            text += " at \(fixedDecimal(anchor.x)), \(fixedDecimal(anchor.y))"
        }
        return text
    }

    /// The lines for a person of one feature's edit.
    private static func lines(of result: EditResult, indent: String) {
        let verb: String
        switch (result.kind, result.dryRun) {
        case (.set, _): verb = "set"
        case (.move, false): verb = "moved"
        case (.move, true): verb = "move"
        case (.moveVertex, false): verb = "moved a vertex of"
        case (.moveVertex, true): verb = "move a vertex of"
        case (.add, false): verb = "added"
        case (.add, true): verb = "add"
        case (.delete, false): verb = "deleted"
        case (.delete, true): verb = "delete"
        case (.reshape, false): verb = "reshaped"
        case (.reshape, true): verb = "reshape"
        case (.place, false): verb = "placed"
        case (.place, true): verb = "place"
        }
        if result.unchanged {
            Output.line(indent + "\(result.table) fid \(result.fid) unchanged: the geometry given is the stored one (nothing written)")
            return
        }
        // A dry run's own line says "would"; the features listed under a bulk one do not repeat it.
        var line = indent + (result.dryRun && indent.isEmpty ? "would " : "") + "\(verb) \(result.table) fid \(result.fid)"
        if let entry = result.journalEntry { line += " (journal entry \(entry); undo with 'annolink undo')" }
        if result.dryRun && indent.isEmpty { line += " (dry run: nothing written)" }
        Output.line(line)
        for field in result.fields { Output.line("\(indent)  \(field.name): \(text(field.old)) -> \(text(field.new))") }
        if let geometry = result.newGeometry, let wkt = try? geometry.wkt() { Output.line("\(indent)  geometry: \(wkt)") }
        for change in result.annotation { Output.line(Self.line(of: change, dryRun: result.dryRun, indent: indent)) }
        if result.annotation.isEmpty { Output.line("\(indent)  no linked annotation changed") }
    }
}
