import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkStore
import Foundation
import Testing

/// A synthetic sample (as `annolink sample` writes it: `address_points`, `parcel_lines` and
/// their annotation in EPSG:2924) in its own temporary directory, with an edit service on it;
/// removed when the value goes away.
///
/// (Local helper until the shared test-support target lands; the lead may swap it.)
final class EditScratch {
    let directory: URL
    let path: String
    let package: GeoPackage
    private var serviceStorage: EditService?

    /// US survey feet per point of text at 1:1200 (`1200 × 0.0254 / 72` m in feet of 1200/3937 m).
    static let feetPerPoint = 1200 * 0.0254 / 72 / (1200.0 / 3937.0)
    /// How far above its point an address label's anchor is (3.35 pt).
    static let addressOffset = 3.35 * feetPerPoint
    /// How far to the upper side of its line a length label's anchor is (1.5 pt).
    static let lineOffset = 1.5 * feetPerPoint

    init(parcels: Int = 24, prepare: (GeoPackage) throws -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("sample.gpkg").path
        package = try GeoPackage.create(path: path)
        try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
        _ = try SampleWriter.write(SampleGenerator(parcels: parcels, seed: 3), into: package)
        try prepare(package)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The edit service, made on first use (after any change to the classes).
    var service: EditService {
        if let serviceStorage { return serviceStorage }
        let made = EditService(package: package)
        serviceStorage = made
        return made
    }

    func table(_ name: String) throws -> FeatureTable { try package.featureTable(name) }

    func feature(_ table: String, _ fid: Int64) throws -> Feature { try package.feature(self.table(table), fid: fid) }

    func point(_ fid: Int64) throws -> Point {
        guard case .point(let p)? = try feature("address_points", fid).geometry else { throw ScratchError("address point \(fid) is not a point") }
        return p
    }

    func line(_ fid: Int64) throws -> LineString {
        guard case .lineString(let l)? = try feature("parcel_lines", fid).geometry else { throw ScratchError("parcel line \(fid) is not a line") }
        return l
    }

    /// The annotation rows of origin feature `fid` in `table`.
    func annotations(_ table: String, feature fid: Int64) throws -> [AnnotationRow] {
        try package.annotationRows(self.table(table), featureID: fid)
    }

    /// The one annotation row of origin feature `fid`.
    func annotation(_ table: String, feature fid: Int64) throws -> AnnotationRow {
        let rows = try annotations(table, feature: fid)
        guard rows.count == 1 else { throw ScratchError("\(rows.count) annotation rows for \(table) feature \(fid)") }
        return rows[0]
    }

    func count(_ sql: String) throws -> Int64 { try package.connection.scalarInt(sql) ?? -1 }

    /// Makes every write of `table` (`INSERT`, `UPDATE` or `DELETE`) fail with an SQL error,
    /// so that an edit fails after it has changed the feature.
    func refuseWrites(to table: String, on event: String) throws {
        try package.connection.execute("""
            CREATE TRIGGER "refuse_\(table)_\(event.lowercased())" BEFORE \(event) ON \(quoteIdentifier(table))
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """)
    }

    /// Everything the file holds, read on a connection of its own (what another process would
    /// see): every schema object with its SQL, and every table's rows ordered by rowid
    /// (R-trees and their shadow tables, `gpkg_contents`, the journal included).
    func dump() throws -> [String] {
        let connection = try Connection(path: path, mode: .readOnly)
        var lines: [String] = []
        let objects = try connection.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        for object in objects {
            lines.append(object.map(describe).joined(separator: " | "))
        }
        for object in objects where object[0] == .text("table") {
            guard let name = object[1].textValue else { continue }
            // An R-tree virtual table reads through the ST_ functions only in its triggers, so a
            // plain connection can read it.
            for row in try connection.rows("SELECT rowid, * FROM \(quoteIdentifier(name)) ORDER BY rowid") {
                lines.append("\(name): " + row.map(describe).joined(separator: ", "))
            }
        }
        return lines
    }

    private func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): "\(v)"
        case .real(let v): "\(v.bitPattern)r"
        case .text(let s): "'\(s)'"
        case .blob(let b): "x'" + b.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }

    /// Runs `edit`, which must fail with an error of type `E`, and checks that the file is
    /// byte for byte the same in every table and that no transaction is left open.
    @discardableResult
    func expectUnchanged<E: Error>(by edit: () throws -> Void, throws type: E.Type, sourceLocation: SourceLocation = #_sourceLocation) throws -> E? {
        let before = try dump()
        let error = #expect(throws: type, sourceLocation: sourceLocation) { try edit() }
        #expect(!package.connection.isInTransaction, "a transaction is left open", sourceLocation: sourceLocation)
        let after = try dump()
        #expect(after.count == before.count, sourceLocation: sourceLocation)
        let changed = zip(before, after).filter { $0 != $1 }
        #expect(changed.isEmpty, "first difference: \(changed.first.map { "\($0.0)\n→ \($0.1)" } ?? "")", sourceLocation: sourceLocation)
        return error
    }
}

struct ScratchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `a` and `b` within `tolerance` in both coordinates.
func close(_ a: Point?, _ b: Point?, within tolerance: Double = 1e-6) -> Bool {
    guard let a, let b else { return false }
    return abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
}

/// The box the R-tree stores for a point: its coordinates rounded outward to 32-bit floats, as
/// SQLite's rtree module does.
func rtreeBox(_ p: Point) -> [SQLValue] {
    [.real(Double(RTreeRounding.down(p.x))), .real(Double(RTreeRounding.up(p.x))),
     .real(Double(RTreeRounding.down(p.y))), .real(Double(RTreeRounding.up(p.y)))]
}
