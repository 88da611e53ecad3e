import Foundation

/// The whole content of the SQLite file at `path` as SQL text (`sqlite3 -readonly FILE .dump`):
/// every table's schema and rows, indexes, triggers and views, in the order SQLite stores them.
///
/// Two dumps are equal when the files hold the same schema and the same rows in the same rowid
/// order, so comparing a dump taken before an operation with one taken after proves that the
/// operation left the file unchanged (a failed edit rolled back completely). Opening read-only
/// keeps the dump itself from writing; a WAL file beside the database is read, not checkpointed.
///
/// Throws `ToolFailure` when `sqlite3` is missing or cannot read the file.
public func dump(of path: String) throws -> String {
    try ExternalTool.sqlite3.output(["-readonly", path, ".dump"])
}

/// Every table's rows, each quoted as SQL, in key order: the content of a GeoPackage for
/// before/after comparisons of what an edit changed.
///
/// Unlike `dump(of:)` this leaves out the physical layout: R-trees are compared by their
/// entries, not by the node blobs of their shadow tables (which a rebuild lays out differently
/// for the same entries), and the annolink journal's tables (and their `gpkg_extensions` rows)
/// are left out, since the journal registers itself on the first edit and stays after undo.
/// `excluding` leaves further tables out. Throws `ToolFailure` when `sqlite3` fails.
public func contentDump(of path: String, excluding: Set<String> = ["annolink_journal"]) throws -> String {
    let sqlite3 = try ExternalTool.sqlite3
    let names = try sqlite3.output([path, """
        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
          AND NOT (name LIKE 'rtree_%' AND (name LIKE '%_node' OR name LIKE '%_parent' OR name LIKE '%_rowid'))
          AND name NOT LIKE 'annolink_journal_%'
        ORDER BY name
        """]).trimmingCharacters(in: .whitespacesAndNewlines)
        .split(separator: "\n").map(String.init).filter { !excluding.contains($0) }
    var text = ""
    for name in names {
        let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let filter = name == "gpkg_extensions" ? " WHERE table_name NOT LIKE 'annolink_journal%'" : ""
        text += "-- \(name)\n" + (try sqlite3.run(["-cmd", ".mode quote", path, "SELECT * FROM \(quoted)\(filter) ORDER BY 1"]).stdout)
    }
    return text
}
