import AnnoLinkEditing
import AnnoLinkStore
import Foundation

/// The file's edit journal over HTTP (docs/serve.md, docs/editor.md): where it stands, for the
/// map page to notice edits made by other clients, and undo and redo as `annolink undo` and
/// `annolink redo` do them, through the same typed requests of the edit service.
///
/// - `GET /journal`: `{"key", "lastEntry", "undo", "redo", "lastChange", "readOnly", "mayEdit"}`.
///   `key` changes with every journaled change of the file, whichever process made it (a new
///   entry, an undo, a redo), and with `gpkg_contents.last_change` (which GDAL and QGIS stamp
///   when they write); `undo` and `redo` are the entries each would take (null when none),
///   as `annolink log --json` writes entries. It is read fresh from the file at every request
///   (one read transaction, three indexed look-ups), so a page polling it sees changes made by
///   another process, which the server is never told of.
/// - `POST /journal/undo`, `POST /journal/redo`: `{"undone"` (or `"redone"`)`: entry,
///   "journal": …}` (the state after). The refusals of the command line, in its words, as
///   problem documents (RFC 9457): 409 when there is nothing to undo or redo or the rows changed
///   since (`undo refused: …`); 403 on a read-only server or a read-only token; 401 without a
///   token when the server has `--tokens`, or with one it does not know.
///
/// Undo and redo run through `Dataset.write(user:)`, so one writer at a time and the caller's
/// user set on the journal as for any edit; the journal marks the entry undone or done again
/// and records no new entry (as `annolink undo`), so who undid it is not recorded.
public struct JournalRoutes: Routes {
    /// The path of the journal's state.
    public static let path = "/journal"

    public init() {}

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        var path = request.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard path == Self.path || path.hasPrefix(Self.path + "/") else { return nil }
        let action = path.dropFirst(Self.path.count)
        do {
            switch action {
            case "":
                guard request.method == "GET" || request.method == "HEAD" else { throw RouteRefusal.methodNotAllowed(path, allowed: ["GET", "HEAD"]) }
                try RouteRefusal.check(request.caller, .read)
                try Self.waitForChange(request, dataset: dataset)
                return Self.answer(try Self.state(dataset, caller: request.caller))
            case "/undo", "/redo":
                guard request.method == "POST" else { throw RouteRefusal.methodNotAllowed(path, allowed: ["POST"]) }
                try RouteRefusal.check(request.caller, .edit("an undo or redo"), readOnlyServer: dataset.readOnly)
                let undoing = action == "/undo"
                let entry = try dataset.write(user: request.caller.userName) { service in
                    undoing ? try service.run(Undo()) : try service.run(Redo())
                }
                return Self.answer(.object([(undoing ? "undone" : "redone", Self.json(entry)),
                                            ("journal", try Self.state(dataset, caller: request.caller))]))
            default:
                return .problem(status: 404, detail: "there is no resource at \(path); the journal answers \(Self.path), \(Self.path)/undo and \(Self.path)/redo")
            }
        } catch {
            // The journal's refusals (JournalError) in the command line's words.
            return RouteRefusal(error).problem
        }
    }

    /// The journal's state as `GET /journal` answers it, read fresh from the store. On PostGIS
    /// `lastChange` is empty (edits there stamp no `last_change`) and `notifications` is how many
    /// journal notifications this server has heard (`LISTEN`): every server's edits raise it.
    static func state(_ dataset: Dataset, caller: Caller) throws -> JSONText {
        let head = try dataset.journalHead()
        let lastChange = dataset.kind == .geoPackage
            ? try dataset.read { try $0.connection.scalarText("SELECT max(last_change) FROM gpkg_contents") ?? "" } : ""
        var members: [(String, JSONText)] = [
            // As `Dataset.changeKey()` makes it.
            ("key", .string(head.key + "/" + lastChange)),
            ("lastEntry", .integer(head.lastEntry)),
            ("undo", head.undo.map(json) ?? .null),
            ("redo", head.redo.map(json) ?? .null),
            ("lastChange", .string(lastChange)),
            ("readOnly", .bool(dataset.readOnly)),
            ("mayEdit", .bool(!dataset.readOnly && caller.mayEdit)),
        ]
        if let heard = dataset.journalNotifications { members.append(("notifications", .integer(Int64(heard)))) }
        return .object(members)
    }

    /// `GET /journal?key=K&wait=S` on PostGIS: when the journal's key is still K, waits up to S
    /// seconds (at most 25) for a journal notification before answering, so that a page hears of
    /// another server's edit as it commits instead of at its next poll. Elsewhere answers at once.
    static func waitForChange(_ request: HTTPRequest, dataset: Dataset) throws {
        guard let key = request.parameters["key"], let waitText = request.parameters["wait"],
              let seconds = Double(waitText), seconds > 0, seconds.isFinite, let seen = dataset.journalNotifications else { return }
        let head = try dataset.journalHead()
        guard head.key + "/" == key else { return }
        _ = dataset.waitForJournalNotification(after: seen, timeout: min(seconds, 25))
    }

    /// An entry with the keys of `annolink log --json`.
    static func json(_ entry: JournalEntry) -> JSONText {
        var members: [(String, JSONText)] = [
            ("id", .integer(entry.id)), ("time", .string(entry.time)), ("state", .string(entry.state.rawValue)),
            ("kind", .string(entry.kind.rawValue)), ("summary", .string(entry.summary)), ("command", .string(entry.command)),
            ("rows", .integer(Int64(entry.rowCount))), ("tables", .array(entry.tables.map(JSONText.string))),
        ]
        if let user = entry.user { members.append(("user", .string(user))) }
        return .object(members)
    }

    static func answer(_ json: JSONText) -> HTTPResponse {
        var response = HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: Array(json.rendered().utf8))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }
}
