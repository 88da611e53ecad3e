import AnnoLinkEditing
import AnnoLinkStore
import Foundation

/// `annolink undo`: revert the newest edit in effect.
enum UndoCommand: Command {
    static let name = "undo"
    static let summary = "revert the most recent edit (across processes)"
    static let help = """
        usage: annolink undo FILE.gpkg [--json]

        Reverts the newest edit still in effect, features, annotation and spatial index
        together, from the edit journal kept in the file. It refuses, and changes nothing, when
        a row the edit touched was changed since by something else (another tool, or a later
        edit that was not undone first), naming the table and row.

        exit status: 0 done, 65 nothing to undo or the undo would overwrite a later change,
        66 no such file.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let path = try arguments.positional("FILE.gpkg")
        try arguments.finish()
        let entry = try EditService(package: try GeoPackage(path: path)).run(Undo())
        try JournalOutput.print(entry, verb: "undid", json: json)
        return .success
    }
}

/// `annolink redo`: reapply the edit undone last.
enum RedoCommand: Command {
    static let name = "redo"
    static let summary = "reapply the most recently undone edit"
    static let help = """
        usage: annolink redo FILE.gpkg [--json]

        Reapplies the edit undone most recently. A new edit after an undo discards what could
        be redone. Refuses, changing nothing, when the rows changed since the undo.

        exit status: 0 done, 65 nothing to redo or the rows changed since, 66 no such file.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let path = try arguments.positional("FILE.gpkg")
        try arguments.finish()
        let entry = try EditService(package: try GeoPackage(path: path)).run(Redo())
        try JournalOutput.print(entry, verb: "redid", json: json)
        return .success
    }
}

/// `annolink log`: the edit journal.
enum LogCommand: Command {
    static let name = "log"
    static let summary = "list the edit journal, newest first"
    static let help = """
        usage: annolink log FILE.gpkg [--limit N] [--json]

        Lists the journal's entries, newest first: number, time (UTC), state (done or undone),
        what the edit did, how many rows it changed, and the command line that made it.

        options:
          --limit N   only the newest N entries
          --json      [{"id", "time", "state", "kind", "summary", "command", "rows", "tables"}]

        exit status: 0 done, 65 not a GeoPackage, 66 no such file.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let limit = try arguments.option("--limit", as: "a positive whole number") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        let path = try arguments.positional("FILE.gpkg")
        try arguments.finish()
        let entries = try Journal(package: try GeoPackage(path: path, readOnly: true)).entries(limit: limit)
        if json {
            Output.line(try Output.json(entries))
            return .success
        }
        if entries.isEmpty { Output.line("no edits in the journal") }
        for e in entries {
            Output.line("#\(e.id)  \(e.time)  \(e.state.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  \(e.summary) (\(e.rowCount) rows)")
            Output.line("     \(e.command)")
        }
        return .success
    }
}

enum JournalOutput {
    static func print(_ entry: JournalEntry, verb: String, json: Bool) throws {
        if json {
            Output.line(try Output.json(entry))
        } else {
            Output.line("\(verb) #\(entry.id): \(entry.summary) (\(entry.rowCount) rows)")
        }
    }
}
