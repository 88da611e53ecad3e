import AnnoLinkGeometry
import AnnoLinkStore

extension ConsistencyChecker {
    /// Compares the spatial index of `table` with the table: every row with a non-empty
    /// geometry must have exactly one entry, whose box is the envelope in the geometry blob
    /// rounded outward to 32-bit floats as SQLite's rtree module rounds it (`RTreeRounding`,
    /// docs/spatial-index.md); every entry must belong to such a row.
    ///
    /// The index is read once in its own order, each entry joined to its row by key; the rows
    /// are counted, and searched for ones without an entry only when the count says some are
    /// missing. The problems of the table are reported sorted by fid.
    ///
    /// - Returns: the number of index entries read.
    func checkIndex(_ table: FeatureTable, isAnnotation: Bool, report: (Problem) throws -> Void, tick: () -> Void) throws -> Int {
        let rtree = quoteIdentifier(table.spatialIndexName), t = quoteIdentifier(table.name)
        let pk = quoteIdentifier(table.primaryKey), geometry = quoteIdentifier(table.geometryColumn)
        // What is wrong, kept compact (the messages are made when reporting): held for the
        // whole table, to report in fid order.
        var found: [(fid: Int64, problem: IndexProblem)] = []
        var entries = 0, matched = 0

        let statement = try connection.prepareUncached("""
            SELECT r.id, r.minx, r.maxx, r.miny, r.maxy, t.\(pk) IS NOT NULL, t.\(geometry)
            FROM \(rtree) AS r LEFT JOIN \(t) AS t ON t.\(pk) = r.id
            """)
        while try statement.step() {
            entries += 1
            tick()
            let id = statement.int64(0)
            guard statement.int64(5) != 0 else {
                found.append((id, .noRow))
                continue
            }
            let stored = Box(
                minX: Float(statement.double(1)), maxX: Float(statement.double(2)),
                minY: Float(statement.double(3)), maxY: Float(statement.double(4)))
            let envelope: Result<Envelope?, Error> = statement.isNull(6) ? .success(nil) : statement.withBlob(6) { blob in
                Result {
                    let header = try GeoPackageBinaryHeader.read(from: blob)
                    return header.isEmpty ? nil : try header.envelopeOrComputed(in: blob)
                }
            }
            switch envelope {
            case .failure:
                found.append((id, .unreadable))
            case .success(nil):
                found.append((id, .noGeometry))
            case .success(let e?):
                matched += 1
                let expected = Box(
                    minX: RTreeRounding.down(e.minX), maxX: RTreeRounding.up(e.maxX),
                    minY: RTreeRounding.down(e.minY), maxY: RTreeRounding.up(e.maxY))
                if stored != expected { found.append((id, .wrongBox(stored: stored, expected: expected))) }
            }
        }

        // A blob whose header cannot be read is reported by the origin and footprint checks
        // (and above, when it has an entry); it must not stop the check of the whole file.
        let indexable = try rowCount(table, where: "annolink_has_geometry(\(geometry)) = 1")
        if indexable > matched {
            let missing = try connection.prepareUncached("""
                SELECT \(pk) FROM \(t) AS t WHERE annolink_has_geometry(\(geometry)) = 1
                AND NOT EXISTS (SELECT 1 FROM \(rtree) AS r WHERE r.id = t.\(pk)) ORDER BY \(pk)
                """)
            while try missing.step() { found.append((missing.int64(0), .noEntry)) }
        }

        found.sort { $0.fid < $1.fid }
        for (fid, problem) in found {
            let message: String
            switch problem {
            case .noRow: message = "the spatial index has an entry for fid \(fid), which is not a row of \(table.name)"
            case .noGeometry: message = "the spatial index has an entry for fid \(fid), which has no geometry"
            case .unreadable: message = "its geometry cannot be read, so its index entry cannot be checked"
            case .noEntry: message = "it has no spatial index entry"
            case .wrongBox(let stored, let expected): message = "its index box (\(stored)) is not its envelope (\(expected))"
            }
            try report(isAnnotation
                ? Problem(code: .index, annotationTable: table.name, annotationFid: fid, message: message)
                : Problem(code: .index, originTable: table.name, originFid: fid, message: message))
        }
        return entries
    }

}

/// A box as an R-tree stores it: 32-bit floats.
private struct Box: Equatable, CustomStringConvertible {
    var minX: Float, maxX: Float, minY: Float, maxY: Float

    /// `minX, minY, maxX, maxY`, two decimals.
    var description: String {
        [minX, minY, maxX, maxY].map { ConsistencyChecker.format(Double($0)) }.joined(separator: ", ")
    }
}

/// What is wrong with one index entry, or the lack of one.
private enum IndexProblem {
    case noRow, noGeometry, unreadable, noEntry
    case wrongBox(stored: Box, expected: Box)
}
