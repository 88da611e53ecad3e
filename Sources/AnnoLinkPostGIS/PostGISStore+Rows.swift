import AnnoLinkGeometry
import AnnoLinkStore

/// The row images one edit took: for each row it wrote, the row as it was before the edit
/// (nil: it did not exist) and as the edit left it (nil: deleted), each the row's text form
/// (`row::text`, which `(text)::table` reads back exactly: geometry as hex EWKB, doubles in
/// their shortest exact digits).
final class EditRecording {
    struct Key: Hashable {
        var table: String
        var fid: Int64
    }

    struct Image {
        var before: String?
        var after: String?
        /// The row's `xmin` (the transaction that last wrote it) when the edit first read it;
        /// nil when it did not exist. An undo of an earlier bulk move reads it (`moveBack`).
        var beforeXmin: Int64?
        /// The row's `xmin` after the edit's last write of it (nil: deleted).
        var afterXmin: Int64?
    }

    private(set) var images: [Key: Image] = [:]
    private(set) var order: [Key] = []
    /// Per table, the envelope of the geometries the edit wrote (a bound of them), by which
    /// `annolink.contents` is widened when the edit is recorded.
    private(set) var written: [String: Envelope] = [:]
    /// Annotation rows the edit updated (the row) or deleted (nil) whose write is held back, by
    /// table and fid, to be written a batch at a time (`PostGISStore.flush`).
    var pending: [String: [Int64: AnnotationRow?]] = [:]
    /// The feature ids those rows belong to, by table: a read of a feature's rows writes them first.
    var pendingFeatureIDs: [String: Set<Int64>] = [:]
    /// The feature id of each annotation row the edit read, so that a held-back delete knows it.
    var featureIDs: [Key: Int64] = [:]

    func has(_ key: Key) -> Bool { images[key] != nil }

    /// Notes the row as it was, the first time the edit sees it.
    func before(_ key: Key, _ text: String?, xmin: Int64?) {
        guard images[key] == nil else { return }
        images[key] = Image(before: text, after: text, beforeXmin: text == nil ? nil : xmin)
        order.append(key)
    }

    /// Notes that the edit wrote a geometry of `table` within `box` (nil: none, or empty).
    func wrote(_ table: String, within box: Envelope?) {
        guard let box else { return }
        written[table] = written[table].map { $0.union(box) } ?? box
    }

    /// Notes the row as the edit left it, and its `xmin` then.
    func after(_ key: Key, _ text: String?, xmin: Int64?) {
        if images[key] == nil {
            order.append(key)
            images[key] = Image(before: nil, after: text, afterXmin: xmin)
        } else {
            images[key]!.after = text
            images[key]!.afterXmin = text == nil ? nil : xmin
        }
    }

    /// The images of rows the edit changed, in the order it first touched them.
    var changed: [(key: Key, image: Image)] {
        order.compactMap { key in images[key].flatMap { $0.before == $0.after ? nil : (key, $0) } }
    }
}

extension PostGISStore {
    /// Inside an edit, makes sure the row's image before the edit is taken, locking it.
    func lockAndRecord(_ table: FeatureTable, fid: Int64) throws {
        guard let recording, !recording.has(.init(table: table.name, fid: fid)) else { return }
        let row = try connection.query(
            "SELECT u::text, \(Self.xmin) FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.primaryKey)) = $1 FOR UPDATE", [.int8(fid)]
        ).rows.first
        recording.before(.init(table: table.name, fid: fid), row?[0].textValue, xmin: row?[1].integerValue)
    }

    /// The row's `xmin` (the transaction that last wrote it) as a number, for a query on `u`.
    static let xmin = "u.xmin::text::int8"

    /// The envelope of a geometry column of `u`, four columns (NULL for a NULL or empty geometry).
    static func envelopeColumns(_ column: String) -> String {
        let g = "u." + quoteIdentifier(column)
        return "ST_XMin(\(g)), ST_YMin(\(g)), ST_XMax(\(g)), ST_YMax(\(g))"
    }

    /// The envelope in four result values from `at` on (`envelopeColumns`), nil when NULL.
    static func envelope(_ row: [PostgreSQLValue], at i: Int) -> Envelope? {
        guard row.count >= i + 4, let x0 = row[i].doubleValue, let y0 = row[i + 1].doubleValue, let x1 = row[i + 2].doubleValue,
              let y1 = row[i + 3].doubleValue else { return nil }
        return Envelope(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    /// Inside an edit, locks the rows `fids` of `table` (`FOR UPDATE`) in one statement, in fid
    /// order, and takes their images before the edit; the rows already taken are left as they are.
    public func lockFeatures(_ table: FeatureTable, fids: [Int64]) throws {
        try flush(table.name)
        guard let recording else { return }
        let wanted = Array(Set(fids.filter { !recording.has(.init(table: table.name, fid: $0)) })).sorted()
        guard !wanted.isEmpty else { return }
        let pk = quoteIdentifier(table.primaryKey)
        let rows = try connection.query(
            "SELECT u.\(pk), u::text, \(Self.xmin) FROM \(qualified(table)) AS u WHERE u.\(pk) = ANY($1::int8[]) ORDER BY u.\(pk) FOR UPDATE",
            [.text(Self.array(wanted))]
        ).rows
        for row in rows {
            guard let fid = row[0].integerValue else { continue }
            recording.before(.init(table: table.name, fid: fid), row[1].textValue, xmin: row[2].integerValue)
        }
    }

    /// Row `fid` of `table` as PostgreSQL writes it (`row::text`: every column, geometry as hex
    /// EWKB, doubles in their shortest exact digits), nil when there is none: what an entity tag
    /// is computed from. Inside an edit the row is locked first (`FOR UPDATE`, its image taken)
    /// and the text is the row as the edit has left it so far.
    public func rowText(_ table: FeatureTable, fid: Int64) throws -> String? {
        try flush(table.name)
        try lockAndRecord(table, fid: fid)
        return try connection.query(
            "SELECT u::text FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.primaryKey)) = $1", [.int8(fid)]
        ).scalar?.textValue
    }

    public func rowCount(_ table: FeatureTable, matching condition: SQLCondition?) throws -> Int64 {
        try flush(table.name)
        return try connection.query("SELECT count(*) FROM \(qualified(table)) AS u" + (condition.map { " WHERE \($0.sql)" } ?? "")).scalar?.integerValue ?? 0
    }

    public func recordedExtent(of table: FeatureTable) throws -> Envelope? {
        try recordedContents(of: table.name).extent
    }

    /// Through the GiST index: `&&` on `ST_MakeEnvelope` in the column's SRID.
    public func fids(of table: FeatureTable, meeting box: Envelope) throws -> [Int64] {
        try flush(table.name)
        let pk = quoteIdentifier(table.primaryKey)
        let sql = "SELECT u.\(pk) FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.geometryColumn)) && "
            + "ST_MakeEnvelope($1, $2, $3, $4, \(try srid(of: table))) ORDER BY u.\(pk)"
        return try connection.query(sql, [.float8(box.minX), .float8(box.minY), .float8(box.maxX), .float8(box.maxY)])
            .rows.compactMap { $0[0].integerValue }
    }

    /// The columns read for `fields` (nil: all), after the key and the geometry.
    private func attributeColumns(_ table: FeatureTable, fields: Set<String>?) -> [Column] {
        let wanted = fields.map { Set($0.map { $0.lowercased() }) }
        return table.attributeColumns.filter { wanted?.contains($0.name.lowercased()) ?? true }
    }

    func selectList(_ table: FeatureTable, _ attributes: [Column]) -> String {
        ([table.primaryKey, table.geometryColumn] + attributes.map(\.name)).map { "u." + quoteIdentifier($0) }.joined(separator: ", ")
    }

    func feature(from row: [PostgreSQLValue], _ table: FeatureTable, _ attributes: [Column]) throws -> Feature {
        let fid = row[0].integerValue ?? 0
        var values: [String: SQLValue] = [:]
        for (i, column) in attributes.enumerated() { values[column.name] = Self.sqlValue(row[2 + i]) }
        return Feature(fid: fid, geometry: try Self.geometry(row[1], table: table, fid: fid), attributes: values)
    }

    /// Inside an edit the row is locked (`FOR UPDATE`) and its image taken in the same read.
    public func feature(_ table: FeatureTable, fid: Int64) throws -> Feature {
        try flush(table.name)
        let attributes = table.attributeColumns
        var sql = "SELECT \(selectList(table, attributes))"
        if recording != nil { sql += ", u::text, \(Self.xmin)" }
        sql += " FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.primaryKey)) = $1"
        if recording != nil { sql += " FOR UPDATE" }
        guard let row = try connection.query(sql, [.int8(fid)]).rows.first else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        if let recording { recording.before(.init(table: table.name, fid: fid), row[row.count - 2].textValue, xmin: row.last?.integerValue) }
        return try feature(from: row, table, attributes)
    }

    /// In one statement; inside an edit the rows are locked (`FOR UPDATE`, in fid order), and
    /// their images are taken only if the edit writes them (every write takes the image of a row
    /// that has none, `lockAndRecord`, `lockFeatures`): a regeneration reads every feature and
    /// writes none, and holding each one's image made it hold the whole table in memory.
    public func features(_ table: FeatureTable, fids: [Int64]) throws -> [Int64: Feature] {
        try flush(table.name)
        guard !fids.isEmpty else { return [:] }
        let attributes = table.attributeColumns
        let pk = quoteIdentifier(table.primaryKey)
        var sql = "SELECT \(selectList(table, attributes)) FROM \(qualified(table)) AS u WHERE u.\(pk) = ANY($1::text::int8[]) ORDER BY u.\(pk)"
        if recording != nil { sql += " FOR UPDATE" }
        var found: [Int64: Feature] = [:]
        for row in try connection.query(sql, [.text(Self.array(fids))]).rows {
            let feature = try feature(from: row, table, attributes)
            found[feature.fid] = feature
        }
        return found
    }

    public func forEachFeature(_ table: FeatureTable, matching condition: SQLCondition?, fields: Set<String>?,
                               _ body: (Feature) throws -> Void) throws {
        try flush(table.name)
        let attributes = attributeColumns(table, fields: fields)
        let pk = quoteIdentifier(table.primaryKey)
        // A page at a time by key, so that memory stays flat and no cursor stays open over writes.
        var last = Int64.min
        while true {
            let rows = try connection.query("""
                SELECT \(selectList(table, attributes)) FROM \(qualified(table)) AS u
                WHERE u.\(pk) > $1\(condition.map { " AND \($0.sql)" } ?? "") ORDER BY u.\(pk) LIMIT 4096
                """, [.int8(last)]).rows
            guard !rows.isEmpty else { return }
            for row in rows { try body(try feature(from: row, table, attributes)) }
            last = rows.last![0].integerValue ?? Int64.max
        }
    }

    public func insertFeature(_ table: FeatureTable, fid: Int64?, geometry: Geometry?, attributes: [String: SQLValue]) throws -> Int64 {
        try flush(table.name)
        var columns = [table.geometryColumn], values = [try parameter(geometry, for: table)]
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let column = table.column(name) else { throw StoreError.unknownColumn(table: table.name, column: name) }
            columns.append(column.name)
            values.append(Self.parameter(value, for: column))
        }
        if let fid {
            columns.insert(table.primaryKey, at: 0)
            values.insert(.int8(fid), at: 0)
        }
        let row = try connection.query("""
            INSERT INTO \(qualified(table)) AS u (\(columns.map(quoteIdentifier).joined(separator: ", ")))
            VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", ")))
            RETURNING u.\(quoteIdentifier(table.primaryKey)), u::text, \(Self.xmin), \(Self.envelopeColumns(table.geometryColumn))
            """, values).rows.first
        guard let row, let made = row[0].integerValue else { throw StoreError.invalidData("the insert into \(table.name) returned no fid") }
        recording?.after(.init(table: table.name, fid: made), row[1].textValue, xmin: row[2].integerValue)
        recording?.wrote(table.name, within: Self.envelope(row, at: 3))
        return made
    }

    /// Appends `column = $n` for each of `attributes` (by name) to `assignments`, its value to
    /// `values`. Throws `StoreError.unknownColumn`.
    static func assign(_ attributes: [String: SQLValue], of table: FeatureTable, to assignments: inout [String],
                       values: inout [PostgreSQLValue]) throws {
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let column = table.column(name) else { throw StoreError.unknownColumn(table: table.name, column: name) }
            values.append(parameter(value, for: column))
            assignments.append("\(quoteIdentifier(column.name)) = $\(values.count)")
        }
    }

    public func updateFeature(_ table: FeatureTable, fid: Int64, geometry: Geometry?, attributes: [String: SQLValue]) throws {
        try flush(table.name)
        var assignments: [String] = [], values: [PostgreSQLValue] = []
        if let geometry {
            values.append(try parameter(geometry, for: table))
            assignments.append("\(quoteIdentifier(table.geometryColumn)) = $\(values.count)")
        }
        try Self.assign(attributes, of: table, to: &assignments, values: &values)
        guard !assignments.isEmpty else { return }
        try lockAndRecord(table, fid: fid)
        values.append(.int8(fid))
        let rows = try connection.query("""
            UPDATE \(qualified(table)) AS u SET \(assignments.joined(separator: ", "))
            WHERE u.\(quoteIdentifier(table.primaryKey)) = $\(values.count) RETURNING u::text, \(Self.xmin), \(Self.envelopeColumns(table.geometryColumn))
            """, values).rows
        guard let row = rows.first else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        recording?.after(.init(table: table.name, fid: fid), row[0].textValue, xmin: row[1].integerValue)
        if geometry != nil { recording?.wrote(table.name, within: Self.envelope(row, at: 2)) }
    }

    public func deleteFeature(_ table: FeatureTable, fid: Int64) throws {
        try flush(table.name)
        try lockAndRecord(table, fid: fid)
        let deleted = try connection.query(
            "DELETE FROM \(qualified(table)) WHERE \(quoteIdentifier(table.primaryKey)) = $1", [.int8(fid)]).affectedRows
        guard deleted == 1 else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        recording?.after(.init(table: table.name, fid: fid), nil, xmin: nil)
    }

    /// One `UPDATE … WHERE fid = ANY(…) RETURNING` for all of them, the rows locked and their
    /// images taken before (`lockFeatures`: one statement, in fid order) and after (the
    /// returned rows).
    public func updateFeatures(_ table: FeatureTable, fids: [Int64], attributes: [String: SQLValue]) throws {
        try flush(table.name)
        var assignments: [String] = [], values: [PostgreSQLValue] = []
        try Self.assign(attributes, of: table, to: &assignments, values: &values)
        guard !assignments.isEmpty, !fids.isEmpty else { return }
        try lockFeatures(table, fids: fids)
        let pk = quoteIdentifier(table.primaryKey)
        values.append(.text(Self.array(fids)))
        let rows = try connection.query("""
            UPDATE \(qualified(table)) AS u SET \(assignments.joined(separator: ", "))
            WHERE u.\(pk) = ANY($\(values.count)::text::int8[]) RETURNING u.\(pk), u::text, \(Self.xmin)
            """, values).rows
        for row in rows {
            guard let fid = row[0].integerValue else { continue }
            recording?.after(.init(table: table.name, fid: fid), row[1].textValue, xmin: row[2].integerValue)
        }
    }

    /// One `DELETE … WHERE fid = ANY(…) RETURNING` for all of them, the rows locked and their
    /// images taken before (`lockFeatures`).
    public func deleteFeatures(_ table: FeatureTable, fids: [Int64]) throws -> [Int64: Feature] {
        try flush(table.name)
        guard !fids.isEmpty else { return [:] }
        try lockFeatures(table, fids: fids)
        let attributes = table.attributeColumns
        let rows = try connection.query("""
            DELETE FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.primaryKey)) = ANY($1::text::int8[])
            RETURNING \(selectList(table, attributes))
            """, [.text(Self.array(fids))]).rows
        var deleted: [Int64: Feature] = [:]
        for row in rows {
            let feature = try feature(from: row, table, attributes)
            recording?.after(.init(table: table.name, fid: feature.fid), nil, xmin: nil)
            deleted[feature.fid] = feature
        }
        return deleted
    }

    /// Nothing to do here: the extent in `annolink.contents` is widened as the geometries are
    /// written — every write returns its geometry's envelope, and the edit's entry widens the
    /// recorded extent by them (`PostGISJournal.recordEdit`); a bulk move widens it by the moved
    /// rows' extent moved. Recomputing it would scan the table (`ST_Extent`), which one edit must
    /// not cost; so the extent stays a bound of every feature, not a tight one (docs/postgis.md).
    public func refreshExtent(of table: FeatureTable) throws {}

    // MARK: Annotation rows

    /// The columns of `table`'s annotation rows, as `GeoPackage.annotationSelectList` lists them.
    func annotationSelectList(_ table: FeatureTable) -> String { GeoPackage.annotationSelectList(table, alias: "u") }

    func annotationRow(from r: [PostgreSQLValue], table: FeatureTable, footprintProblem: ((StoreError) -> Void)?) throws -> AnnotationRow {
        let fid = r[0].integerValue ?? 0
        var footprint: Polygon?
        do {
            switch try Self.geometry(r[1], table: table, fid: fid) {
            case .polygon(let polygon)?: footprint = polygon
            case nil: break
            case let other?: throw StoreError.wrongGeometryKind(table: table.name, expected: "POLYGON", got: other.kind.rawValue)
            }
        } catch let error as StoreError {
            guard let footprintProblem else { throw error }
            footprintProblem(error)
        }
        return AnnotationRow(
            fid: fid, featureID: r[2].integerValue, classID: r[3].integerValue ?? 0, text: r[4].textValue ?? "", fontName: r[5].textValue ?? "",
            fontSize: r[6].doubleValue ?? 0, horizontalAlignment: Int(r[7].integerValue ?? 0), verticalAlignment: Int(r[8].integerValue ?? 0),
            anchor: r[9].isNull || r[10].isNull ? nil : Point(x: r[9].doubleValue ?? 0, y: r[10].doubleValue ?? 0),
            angle: r[11].doubleValue ?? 0, xOffset: r[12].doubleValue ?? 0, yOffset: r[13].doubleValue ?? 0, status: Int(r[14].integerValue ?? 0),
            override: AnnotationOverride(rawValue: r[15].integerValue ?? 0), footprint: footprint,
            placedFrom: r[16].textValue.flatMap(PlacementBasis.init(text:)))
    }

    /// Inside an edit the rows are locked and their images taken.
    public func annotationRows(_ table: FeatureTable, featureID: Int64) throws -> [AnnotationRow] {
        if recording?.pendingFeatureIDs[table.name]?.contains(featureID) == true { try flush(table.name) }
        var sql = "SELECT \(annotationSelectList(table))"
        if recording != nil { sql += ", u::text, \(Self.xmin)" }
        sql += " FROM \(qualified(table)) AS u WHERE u.\"FeatureID\" = $1 ORDER BY u.fid"
        if recording != nil { sql += " FOR UPDATE" }
        return try connection.query(sql, [.int8(featureID)]).rows.map { r in
            let row = try annotationRow(from: r, table: table, footprintProblem: nil)
            if let recording, let fid = row.fid {
                recording.before(.init(table: table.name, fid: fid), r[r.count - 2].textValue, xmin: r.last?.integerValue)
                recording.featureIDs[.init(table: table.name, fid: fid)] = featureID
            }
            return row
        }
    }

    /// In one statement; inside an edit the rows are locked (`FOR UPDATE`) and their feature ids
    /// noted, as `annotationRows(_:featureID:)` does, but their images are taken only for the
    /// rows the edit then writes, a batch at a time (`flush`): a regeneration reads every label
    /// and usually changes few.
    public func annotationRows(_ table: FeatureTable, featureIDs: [Int64]) throws -> [Int64: [AnnotationRow]] {
        if let pending = recording?.pendingFeatureIDs[table.name], featureIDs.contains(where: pending.contains) { try flush(table.name) }
        guard !featureIDs.isEmpty else { return [:] }
        var sql = "SELECT \(annotationSelectList(table)) FROM \(qualified(table)) AS u WHERE u.\"FeatureID\" = ANY($1::text::int8[]) ORDER BY u.fid"
        if recording != nil { sql += " FOR UPDATE" }
        var found: [Int64: [AnnotationRow]] = [:]
        for r in try connection.query(sql, [.text(Self.array(featureIDs))]).rows {
            let row = try annotationRow(from: r, table: table, footprintProblem: nil)
            guard let featureID = row.featureID else { continue }
            if let recording, let fid = row.fid { recording.featureIDs[.init(table: table.name, fid: fid)] = featureID }
            found[featureID, default: []].append(row)
        }
        return found
    }

    public func annotationRow(_ table: FeatureTable, fid: Int64, footprintProblem: ((StoreError) -> Void)?) throws -> AnnotationRow {
        if recording?.pending[table.name]?[fid] != nil { try flush(table.name) }
        var sql = "SELECT \(annotationSelectList(table))"
        if recording != nil { sql += ", u::text, \(Self.xmin)" }
        sql += " FROM \(qualified(table)) AS u WHERE u.fid = $1"
        if recording != nil { sql += " FOR UPDATE" }
        guard let r = try connection.query(sql, [.int8(fid)]).rows.first else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        if let recording {
            recording.before(.init(table: table.name, fid: fid), r[r.count - 2].textValue, xmin: r.last?.integerValue)
            if let featureID = r[2].integerValue { recording.featureIDs[.init(table: table.name, fid: fid)] = featureID }
        }
        return try annotationRow(from: r, table: table, footprintProblem: footprintProblem)
    }

    /// The values of `GeoPackage.annotationWrittenColumns(table)`, in that order.
    private func annotationValues(_ row: AnnotationRow, table: FeatureTable) throws -> [PostgreSQLValue] {
        [
            try parameter(row.footprint.map { .polygon($0) }, for: table), row.featureID.map { .int8($0) } ?? .null, .int8(row.classID),
            .text(row.text), .text(row.fontName), .float8(row.fontSize), .int8(Int64(row.horizontalAlignment)),
            .int8(Int64(row.verticalAlignment)), row.anchor.map { .float8($0.x) } ?? .null, row.anchor.map { .float8($0.y) } ?? .null,
            .float8(row.angle), .float8(row.xOffset), .float8(row.yOffset), .int8(Int64(row.status)), .int8(row.override.rawValue),
        ] + (table.column(GeoPackage.placedFromColumn) == nil ? [] : [row.placedFrom.map { .text($0.text) } ?? .null])
    }

    public func insertAnnotation(_ row: AnnotationRow, into table: FeatureTable) throws -> Int64 {
        let columns = GeoPackage.annotationWrittenColumns(table)
        let r = try connection.query("""
            INSERT INTO \(qualified(table)) AS u (\(columns.map(quoteIdentifier).joined(separator: ", ")))
            VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", "))) RETURNING u.fid, u::text, \(Self.xmin), \(Self.envelopeColumns(table.geometryColumn))
            """, try annotationValues(row, table: table)).rows.first
        guard let r, let fid = r[0].integerValue else { throw StoreError.invalidData("the insert into \(table.name) returned no fid") }
        recording?.after(.init(table: table.name, fid: fid), r[1].textValue, xmin: r[2].integerValue)
        recording?.wrote(table.name, within: Self.envelope(r, at: 3))
        return fid
    }

    /// Inside an edit, a row the edit read (and so locked) as a label of the same feature is held
    /// back to be written with others, its image taken then if it has none (`flush`); any other
    /// row is locked, its image taken, and written at once, as outside an edit.
    public func updateAnnotation(_ row: AnnotationRow, in table: FeatureTable) throws {
        guard let fid = row.fid else { preconditionFailure("updateAnnotation needs a row with a fid") }
        if let recording, let featureID = row.featureID, recording.featureIDs[.init(table: table.name, fid: fid)] == featureID {
            recording.pending[table.name, default: [:]][fid] = .some(row)
            recording.pendingFeatureIDs[table.name, default: []].insert(featureID)
            if recording.pending[table.name]!.count >= Self.annotationBatch { try flush(table.name) }
            return
        }
        try lockAndRecord(table, fid: fid)
        try flush(table.name)
        let columns = GeoPackage.annotationWrittenColumns(table)
        let r = try connection.query("""
            UPDATE \(qualified(table)) AS u SET \(columns.enumerated().map { "\(quoteIdentifier($1)) = $\($0 + 1)" }.joined(separator: ", "))
            WHERE u.fid = $\(columns.count + 1) RETURNING u::text, \(Self.xmin), \(Self.envelopeColumns(table.geometryColumn))
            """, try annotationValues(row, table: table) + [.int8(fid)]).rows.first
        recording?.after(.init(table: table.name, fid: fid), r?[0].textValue, xmin: r?[1].integerValue)
        if let r { recording?.wrote(table.name, within: Self.envelope(r, at: 2)) }
    }

    /// Inside an edit, held back as `updateAnnotation` is.
    public func deleteAnnotation(fid: Int64, from table: FeatureTable) throws {
        if let recording, let featureID = recording.featureIDs[.init(table: table.name, fid: fid)] {
            recording.pending[table.name, default: [:]][fid] = .some(nil)
            recording.pendingFeatureIDs[table.name, default: []].insert(featureID)
            if recording.pending[table.name]!.count >= Self.annotationBatch { try flush(table.name) }
            return
        }
        try lockAndRecord(table, fid: fid)
        try flush(table.name)
        try connection.query("DELETE FROM \(qualified(table)) WHERE fid = $1", [.int8(fid)])
        recording?.after(.init(table: table.name, fid: fid), nil, xmin: nil)
    }
}

extension PostGISStore {
    /// Annotation rows written per statement by `flush`.
    static let annotationBatch = 256

    /// Writes the annotation rows of `table` the edit holds back: the deleted ones with one
    /// `DELETE … WHERE fid = ANY`, the updated ones with one `UPDATE … FROM (VALUES …)` per
    /// `annotationBatch` rows, returning their images, `xmin`s and envelopes for the journal.
    /// Every read of the table that could see them writes them first (a read of a feature's
    /// labels only when they are among them), and so does the end of the edit.
    func flush(_ table: String) throws {
        guard let recording, let held = recording.pending.removeValue(forKey: table), !held.isEmpty else { return }
        recording.pendingFeatureIDs[table] = nil
        let target = try featureTable(table)
        // The images of the rows read without one (`annotationRows(_:featureIDs:)`), in one read:
        // they are locked and this edit has not written them yet, so they are as it read them.
        let unimaged = held.keys.filter { !recording.has(.init(table: table, fid: $0)) }.sorted()
        if !unimaged.isEmpty {
            for r in try connection.query("SELECT u.fid, u::text, \(Self.xmin) FROM \(qualified(target)) AS u WHERE u.fid = ANY($1::text::int8[])",
                                          [.text(Self.array(unimaged))]).rows {
                guard let fid = r[0].integerValue else { continue }
                recording.before(.init(table: table, fid: fid), r[1].textValue, xmin: r[2].integerValue)
            }
        }
        let deleted = held.compactMap { $0.value == nil ? $0.key : nil }.sorted()
        if !deleted.isEmpty {
            try connection.query("DELETE FROM \(qualified(target)) WHERE fid = ANY($1::text::int8[])", [.text(Self.array(deleted))])
            for fid in deleted { recording.after(.init(table: table, fid: fid), nil, xmin: nil) }
        }
        let updated = held.compactMap { entry in entry.value.map { (entry.key, $0) } }.sorted { $0.0 < $1.0 }
        let columns = GeoPackage.annotationWrittenColumns(target)
        var start = 0
        while start < updated.count {
            let batch = updated[start..<min(start + Self.annotationBatch, updated.count)]
            start += batch.count
            var values: [[PostgreSQLValue]] = []
            for (fid, row) in batch { values.append([.int8(fid)] + (try annotationValues(row, table: target))) }
            // Each placeholder cast to its column's type, so that a column NULL in every row of
            // the batch is not read as text.
            let types = (0...columns.count).map { j -> String in
                if j == 1 { return "geometry" }
                for row in values {
                    switch row[j] {
                    case .int8, .int4, .int2: return "int8"
                    case .float8, .float4: return "float8"
                    case .text: return "text"
                    case .bool: return "boolean"
                    case .bytea: return "bytea"
                    default: continue
                    }
                }
                let column = j == 0 ? nil : target.column(columns[j - 1])
                switch column?.affinity {
                case .integer?: return "int8"
                case .real?: return "float8"
                default: return "text"
                }
            }
            let tuples = values.indices.map { i in
                "(" + types.indices.map { j in "$\(i * types.count + j + 1)::\(types[j])" }.joined(separator: ", ") + ")"
            }
            let names = ["fid"] + columns.indices.map { "c\($0)" }
            let rows = try connection.query("""
                UPDATE \(qualified(target)) AS u SET \(columns.enumerated().map { "\(quoteIdentifier($1)) = v.c\($0)" }.joined(separator: ", "))
                FROM (VALUES \(tuples.joined(separator: ", "))) AS v(\(names.joined(separator: ", ")))
                WHERE u.fid = v.fid RETURNING u.fid, u::text, \(Self.xmin), \(Self.envelopeColumns(target.geometryColumn))
                """, values.flatMap { $0 }).rows
            for r in rows {
                guard let fid = r[0].integerValue else { continue }
                recording.after(.init(table: table, fid: fid), r[1].textValue, xmin: r[2].integerValue)
                recording.wrote(table, within: Self.envelope(r, at: 3))
            }
        }
    }

    /// Writes every annotation row the edit holds back (`flush`).
    func flushAll() throws {
        guard let recording else { return }
        for table in recording.pending.keys.sorted() { try flush(table) }
    }
}
