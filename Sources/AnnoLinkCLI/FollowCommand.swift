import AnnoLinkEditing
import AnnoLinkStore
import Foundation

/// `annolink follow`: keep the annotation true to edits made with other programs.
struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "regenerate the annotation for edits made with other programs (QGIS, GDAL, sqlite3)",
        discussion: """
            Triggers in the file record every insert, update and delete that another program
            (QGIS, GDAL, the sqlite3 shell, Python) makes in a labelled table or an annotation
            table (docs/follow.md). follow turns them into the annotation change annolink would
            have made for the same edit: text regenerated, a moved point's labels carried with
            it, a reshaped feature's labels placed again, a new feature labelled, a deleted one's
            labels removed; a label moved or retyped elsewhere is marked as set by hand
            (Override), so that regeneration and check --fix keep it. One journal entry per
            catch-up holds the outside edits and the follow-up: 'annolink undo' reverts both.

            Every annolink command that edits catches up first, and 'annolink serve' follows
            continuously; follow is for a file no one serves. Files annolink makes (import,
            sample, annotate, copy) record outside edits from the start; --install adds the
            triggers to another file (and refreshes them after a table's columns changed),
            --remove takes them out.
            """,
        exitStatus: "0 done (also when there was nothing to follow), 64 bad usage, 65 not a GeoPackage, 66 no such file.")

    static let install = ArgumentDeclaration.flag("--install", help: """
        record outside edits of every labelled table and annotation table from now on
        """)
    static let remove = ArgumentDeclaration.flag("--remove", help: "stop recording outside edits; what was recorded and not followed is dropped")
    static let watch = ArgumentDeclaration.flag("--watch", help: "keep following, four times a second, until stopped (Ctrl-C)")
    static let json = ArgumentDeclaration.flag("--json", help: """
        an object per catch-up: {"edits": [{"table", "fid", "operation"}], "annotation": [...], "journalEntry"};
        with nothing to follow (and no --watch), one with no edits and no journalEntry
        """)
    static let arguments = [SetCommand.file, install, remove, watch, json]

    var install: Bool
    var remove: Bool
    var watch: Bool
    var json: Bool
    var path: String

    init(parsing arguments: inout Arguments) throws {
        install = arguments.flag(Self.install)
        remove = arguments.flag(Self.remove)
        watch = arguments.flag(Self.watch)
        json = arguments.flag(Self.json)
        path = try arguments.positional(SetCommand.file)
        if install, remove { throw CommandError.usage("--install and --remove cannot be given together") }
        if remove, watch { throw CommandError.usage("--watch follows edits; it cannot be given with --remove") }
    }

    func run() throws -> ExitStatus {
        let store = try StoreTarget.open(path)
        if remove {
            let tables = try store.changeCaptureTables()
            let pending = try store.pendingOutsideEdits().values.reduce(0) { $0 + $1.count }
            try store.installChangeCapture(on: [])
            Output.line("no longer recording outside edits of \(tables.count) tables"
                + (pending > 0 ? " (\(pending) recorded edits not followed were dropped)" : ""))
            return .success
        }
        let service = EditService(store: store)
        if install {
            let tables = try store.linkedTableNames()
            guard !tables.isEmpty else {
                throw CommandError("\(path) has no annotation classes, so no table to follow; run 'annolink annotate' first", status: .dataError)
            }
            try store.installChangeCapture(on: tables)
            if !json { Output.line("recording outside edits of \(tables.joined(separator: ", "))") }
        } else if try store.changeCaptureTables().isEmpty {
            throw CommandError("\(path) does not record outside edits; run 'annolink follow --install \(path)' first", status: .dataError)
        }
        repeat {
            if let result = try service.followOutsideEdits(command: EditOutput.commandLine) {
                try report(result)
            } else if !watch, !install {
                json ? try report(FollowResult()) : Output.line("nothing to follow")
            }
            if watch { Thread.sleep(forTimeInterval: 0.25) }
        } while watch
        return .success
    }

    private func report(_ result: FollowResult) throws {
        for warning in result.warnings { Output.diagnostic("warning: \(warning)") }
        if json { return Output.line(try Output.json(result)) }
        let tables = Dictionary(grouping: result.edits, by: \.table)
        let edits = tables.keys.sorted().map { table in
            let rows = tables[table]!
            let counts = [("insert", "inserted"), ("update", "updated"), ("delete", "deleted"), ("unjournaled", "not journaled")].compactMap {
                operation, done -> String? in
                let n = rows.filter { $0.operation == operation }.count
                return n == 0 ? nil : "\(n) \(done)"
            }
            return "\(table) \(counts.joined(separator: ", ")) (\(EditService.fidList(rows.map(\.fid))))"
        }
        let entry = result.journalEntry.map { " as journal entry \($0)" } ?? ""
        Output.line("followed \(result.edits.count) outside edits\(entry): " + edits.joined(separator: "; ")
            + "; \(result.annotation.filter { $0.kind != .unchanged }.count) annotation rows changed")
    }
}
