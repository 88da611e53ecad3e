#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides, from a table's name as SQLite passes it to the session's filter, whether the
/// session records the table, without allocating for the tables it refuses: SQLite asks again
/// on every change of a refused table (every R-tree node write, every row of a declared bulk
/// table).
final class JournalTableFilter {
    /// The tables the session records, lowercased.
    private(set) var recorded: Set<String> = []
    /// The tables of bulk images, NUL-terminated.
    private var excluded: [[CChar]] = []

    func records(_ name: UnsafePointer<CChar>) -> Bool {
        if strncasecmp(name, JournalSchema.prefix, JournalSchema.prefix.utf8.count) == 0 { return false }
        if strncasecmp(name, ChangeCapture.prefix, ChangeCapture.prefix.utf8.count) == 0 { return false }
        if strncasecmp(name, "rtree_", 6) == 0 {
            let length = strlen(name)
            func ends(with suffix: String) -> Bool {
                let count = suffix.utf8.count
                return length > count && strcasecmp(name + (length - count), suffix) == 0
            }
            if ends(with: "_node") || ends(with: "_parent") || ends(with: "_rowid") { return false }
        }
        for table in excluded where strcasecmp(name, table) == 0 { return false }
        recorded.insert(String(cString: name).lowercased())
        return true
    }

    /// Stops recording `table` (it has a bulk image now).
    func exclude(_ table: String) {
        excluded.append(Array(table.utf8CString))
    }
}
