import AnnoLinkGeometry
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// A temporary directory of its own, removed when the value goes away (the shared one).
typealias TemporaryDirectory = ScratchDirectory

/// SQLite's primary result codes the tests expect (sqlite3.h).
enum PrimaryCode {
    static let error: Int32 = 1
    static let busy: Int32 = 5
    static let readOnly: Int32 = 8
    static let cantOpen: Int32 = 14
    static let constraint: Int32 = 19
    static let misuse: Int32 = 21
    static let range: Int32 = 25
}

/// The primary result code of `error` (one place to adapt when the code becomes a named type).
func primaryCode(_ error: SQLiteError?) -> Int32? { error?.resultCode.rawValue }
