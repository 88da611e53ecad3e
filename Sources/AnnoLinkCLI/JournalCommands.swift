import AnnoLinkEditing
import AnnoLinkStore
import Foundation

/// `annolink undo`: revert the newest edit in effect.
struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "revert the most recent edit (across processes)",
        discussion: """
            Reverts the newest edit still in effect, features, annotation and spatial index
            together, from the edit journal kept in the file. It refuses, and changes nothing, when
            a row the edit touched was changed since by something else (another tool, or a later
            edit that was not undone first), naming the table and row.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done, 65 nothing to undo or the undo would overwrite a later change,
            66 no such file.
            """)

    static let json = ArgumentDeclaration.flag("--json", help: """
        the entry undone: {"id", "time", "state", "kind", "summary", "command",
        "rows", "tables"}
        """)
    static let arguments = [SetCommand.file, json]

    var json: Bool
    var path: String

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        path = try arguments.positional(SetCommand.file)
    }

    func run() throws -> ExitStatus {
        let entry = try EditService(store: try StoreTarget.open(path)).run(Undo())
        try JournalOutput.print(entry, verb: "undid", json: json)
        return .success
    }
}

/// `annolink redo`: reapply the edit undone last.
struct RedoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "reapply the most recently undone edit",
        discussion: """
            Reapplies the edit undone most recently. A new edit after an undo discards what could
            be redone. Refuses, changing nothing, when the rows changed since the undo.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: "0 done, 65 nothing to redo or the rows changed since, 66 no such file.")

    static let json = ArgumentDeclaration.flag("--json", help: "the entry redone (see 'annolink undo --help')")
    static let arguments = [SetCommand.file, json]

    var json: Bool
    var path: String

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        path = try arguments.positional(SetCommand.file)
    }

    func run() throws -> ExitStatus {
        let entry = try EditService(store: try StoreTarget.open(path)).run(Redo())
        try JournalOutput.print(entry, verb: "redid", json: json)
        return .success
    }
}

/// `annolink log`: the edit journal.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "list the edit journal, newest first",
        discussion: """
            Lists the journal's entries, newest first: number, time (UTC), state (done or undone),
            what the edit did, how many rows it changed, and the command line that made it, after
            the user who made it in brackets when the journal knows one (edits through
            'annolink serve' with --tokens record the token's user).

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: "0 done, 65 not a GeoPackage, 66 no such file.")

    static let limit = ArgumentDeclaration.option("--limit", value: "N", help: "only the newest N entries")
    static let json = ArgumentDeclaration.flag("--json", help: #"[{"id", "time", "state", "kind", "summary", "command", "rows", "tables", "user" (when known)}]"#)
    static let arguments = [SetCommand.file, limit, json]

    var json: Bool
    var limit: Int?
    var path: String

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        limit = try arguments.option(Self.limit, as: "a positive whole number") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        path = try arguments.positional(SetCommand.file)
    }

    func run() throws -> ExitStatus {
        let entries = try StoreTarget.open(path, readOnly: true).journal().entries(limit: limit)
        if json {
            Output.line(try Output.json(entries))
            return .success
        }
        if entries.isEmpty { Output.line("no edits in the journal") }
        for e in entries {
            Output.line("#\(e.id)  \(e.time)  \(e.state.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  \(e.summary) (\(e.rowCount) rows)")
            Output.line("     \(e.user.map { "[\(AnnoLinkCommand.terminalSafe($0))] " } ?? "")\(e.command)")
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
