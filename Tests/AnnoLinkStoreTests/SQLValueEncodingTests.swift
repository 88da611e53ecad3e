import AnnoLinkStore
import Foundation
import Testing

/// `SQLValue` and `JournalEntry` encode as `--json` shows them.
@Suite("SQLValue and JournalEntry as JSON")
struct SQLValueEncodingTests {
    func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func values() throws {
        #expect(try json([SQLValue.null, .integer(-7), .real(2.5), .text("Elm \"Tree\""), .blob([0x00, 0xab, 0x1f])])
            == #"[null,-7,2.5,"Elm \"Tree\"","00ab1f"]"#)
        #expect(SQLValue.hex([]) == "")
    }

    @Test func journalEntry() throws {
        let entry = JournalEntry(id: 3, time: "2024-05-01T12:00:00.000Z", command: "annolink undo f.gpkg", summary: "set Name", state: .undone,
                                 kind: .ordinary, rowCount: 2, tables: ["parcels", "parcels_anno"])
        #expect(try json(entry) == #"{"command":"annolink undo f.gpkg","id":3,"kind":"ordinary","rows":2,"state":"undone","summary":"set Name","# +
            #""tables":["parcels","parcels_anno"],"time":"2024-05-01T12:00:00.000Z"}"#)
        #expect(try JSONDecoder().decode(JournalEntry.self, from: Data(json(entry).utf8)) == entry)
    }
}
