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
    }

    private(set) var images: [Key: Image] = [:]
    private(set) var order: [Key] = []

    func has(_ key: Key) -> Bool { images[key] != nil }

    /// Notes the row as it was, the first time the edit sees it.
    func before(_ key: Key, _ text: String?) {
        guard images[key] == nil else { return }
        images[key] = Image(before: text, after: text)
        order.append(key)
    }

    /// Notes the row as the edit left it.
    func after(_ key: Key, _ text: String?) {
        if images[key] == nil {
            order.append(key)
            images[key] = Image(before: nil, after: text)
        } else {
            images[key]!.after = text
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
        let text = try connection.query(
            "SELECT u::text FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.primaryKey)) = $1 FOR UPDATE", [.int8(fid)]
        ).scalar?.textValue
        recording.before(.init(table: table.name, fid: fid), text)
    }

    /// Inside an edit, locks the rows `fids` of `table` (`FOR UPDATE`) in one statement, in fid
    /// order, and takes their images before the edit; the rows already taken are left as they are.
    public func lockFeatures(_ table: FeatureTable, fids: [Int64]) throws {
        guard let recording else { return }
        let wanted = Array(Set(fids.filter { !recording.has(.init(table: table.name, fid: $0)) })).sorted()
        guard !wanted.isEmpty else { return }
        let pk = quoteIdentifier(table.primaryKey)
        let rows = try connection.query(
            "SELECT u.\(pk), u::text FROM \(qualified(table)) AS u WHERE u.\(pk) = ANY($1::int8[]) ORDER BY u.\(pk) FOR UPDATE",
            [.text("{" + wanted.map(String.init).joined(separator: ",") + "}")]
        ).rows
        for row in rows {
            guard let fid = row[0].integerValue else { continue }
            recording.before(.init(table: table.name, fid: fid), row[1].textValue)
        }
    }

    /// Row `fid` of `table` as PostgreSQL writes it (`row::text`: every column, geometry as hex
    /// EWKB, doubles in their shortest exact digits), nil when there is none: what an entity tag
    /// is computed from. Inside an edit the row is locked first (`FOR UPDATE`, its image taken)
    /// and the text is the row as the edit has left it so far.
    public func rowText(_ table: FeatureTable, fid: Int64) throws -> String? {
        try lockAndRecord(table, fid: fid)
        return try connection.query(
            "SELECT u::text FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.primaryKey)) = $1", [.int8(fid)]
        ).scalar?.textValue
    }

    public func rowCount(_ table: FeatureTable, matching condition: SQLCondition?) throws -> Int64 {
        try connection.query("SELECT count(*) FROM \(qualified(table)) AS u" + (condition.map { " WHERE \($0.sql)" } ?? "")).scalar?.integerValue ?? 0
    }

    public func recordedExtent(of table: FeatureTable) throws -> Envelope? {
        try recordedContents(of: table.name).extent
    }

    /// Through the GiST index: `&&` on `ST_MakeEnvelope` in the column's SRID.
    public func fids(of table: FeatureTable, meeting box: Envelope) throws -> [Int64] {
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

    private func selectList(_ table: FeatureTable, _ attributes: [Column]) -> String {
        ([table.primaryKey, table.geometryColumn] + attributes.map(\.name)).map { "u." + quoteIdentifier($0) }.joined(separator: ", ")
    }

    private func feature(from row: [PostgreSQLValue], _ table: FeatureTable, _ attributes: [Column]) throws -> Feature {
        let fid = row[0].integerValue ?? 0
        var values: [String: SQLValue] = [:]
        for (i, column) in attributes.enumerated() { values[column.name] = Self.sqlValue(row[2 + i]) }
        return Feature(fid: fid, geometry: try Self.geometry(row[1], table: table, fid: fid), attributes: values)
    }

    /// Inside an edit the row is locked (`FOR UPDATE`) and its image taken in the same read.
    public func feature(_ table: FeatureTable, fid: Int64) throws -> Feature {
        let attributes = table.attributeColumns
        var sql = "SELECT \(selectList(table, attributes))"
        if recording != nil { sql += ", u::text" }
        sql += " FROM \(qualified(table)) AS u WHERE u.\(quoteIdentifier(table.primaryKey)) = $1"
        if recording != nil { sql += " FOR UPDATE" }
        guard let row = try connection.query(sql, [.int8(fid)]).rows.first else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        if let recording { recording.before(.init(table: table.name, fid: fid), row.last?.textValue) }
        return try feature(from: row, table, attributes)
    }

    public func forEachFeature(_ table: FeatureTable, matching condition: SQLCondition?, fields: Set<String>?,
                               _ body: (Feature) throws -> Void) throws {
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
            VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", "))) RETURNING u.\(quoteIdentifier(table.primaryKey)), u::text
            """, values).rows.first
        guard let made = row?[0].integerValue else { throw StoreError.invalidData("the insert into \(table.name) returned no fid") }
        recording?.after(.init(table: table.name, fid: made), row?[1].textValue)
        return made
    }

    public func updateFeature(_ table: FeatureTable, fid: Int64, geometry: Geometry?, attributes: [String: SQLValue]) throws {
        var assignments: [String] = [], values: [PostgreSQLValue] = []
        if let geometry {
            values.append(try parameter(geometry, for: table))
            assignments.append("\(quoteIdentifier(table.geometryColumn)) = $\(values.count)")
        }
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let column = table.column(name) else { throw StoreError.unknownColumn(table: table.name, column: name) }
            values.append(Self.parameter(value, for: column))
            assignments.append("\(quoteIdentifier(column.name)) = $\(values.count)")
        }
        guard !assignments.isEmpty else { return }
        try lockAndRecord(table, fid: fid)
        values.append(.int8(fid))
        let rows = try connection.query("""
            UPDATE \(qualified(table)) AS u SET \(assignments.joined(separator: ", "))
            WHERE u.\(quoteIdentifier(table.primaryKey)) = $\(values.count) RETURNING u::text
            """, values).rows
        guard let row = rows.first else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        recording?.after(.init(table: table.name, fid: fid), row[0].textValue)
    }

    public func deleteFeature(_ table: FeatureTable, fid: Int64) throws {
        try lockAndRecord(table, fid: fid)
        let deleted = try connection.query(
            "DELETE FROM \(qualified(table)) WHERE \(quoteIdentifier(table.primaryKey)) = $1", [.int8(fid)]).affectedRows
        guard deleted == 1 else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        recording?.after(.init(table: table.name, fid: fid), nil)
    }

    /// The extent in `annolink.contents` is not kept by edits: recomputing it scans the table
    /// (`ST_Extent`), which one edit must not cost. `annolink copy` writes it; PostGIS answers
    /// a table's extent itself (`ST_EstimatedExtent`).
    public func refreshExtent(of table: FeatureTable) throws {}

    // MARK: Annotation rows

    static let annotationColumns = GeoPackage.annotationColumnNames

    var annotationSelectList: String { Self.annotationColumns.map { "u." + quoteIdentifier($0) }.joined(separator: ", ") }

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
            override: AnnotationOverride(rawValue: r[15].integerValue ?? 0), footprint: footprint)
    }

    /// Inside an edit the rows are locked and their images taken.
    public func annotationRows(_ table: FeatureTable, featureID: Int64) throws -> [AnnotationRow] {
        var sql = "SELECT \(annotationSelectList)"
        if recording != nil { sql += ", u::text" }
        sql += " FROM \(qualified(table)) AS u WHERE u.\"FeatureID\" = $1 ORDER BY u.fid"
        if recording != nil { sql += " FOR UPDATE" }
        return try connection.query(sql, [.int8(featureID)]).rows.map { r in
            let row = try annotationRow(from: r, table: table, footprintProblem: nil)
            if let recording, let fid = row.fid { recording.before(.init(table: table.name, fid: fid), r.last?.textValue) }
            return row
        }
    }

    public func annotationRow(_ table: FeatureTable, fid: Int64, footprintProblem: ((StoreError) -> Void)?) throws -> AnnotationRow {
        var sql = "SELECT \(annotationSelectList)"
        if recording != nil { sql += ", u::text" }
        sql += " FROM \(qualified(table)) AS u WHERE u.fid = $1"
        if recording != nil { sql += " FOR UPDATE" }
        guard let r = try connection.query(sql, [.int8(fid)]).rows.first else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        if let recording { recording.before(.init(table: table.name, fid: fid), r.last?.textValue) }
        return try annotationRow(from: r, table: table, footprintProblem: footprintProblem)
    }

    /// The values of every annotation column but fid, in `annotationColumns` order.
    private func annotationValues(_ row: AnnotationRow, table: FeatureTable) throws -> [PostgreSQLValue] {
        [
            try parameter(row.footprint.map { .polygon($0) }, for: table), row.featureID.map { .int8($0) } ?? .null, .int8(row.classID),
            .text(row.text), .text(row.fontName), .float8(row.fontSize), .int8(Int64(row.horizontalAlignment)),
            .int8(Int64(row.verticalAlignment)), row.anchor.map { .float8($0.x) } ?? .null, row.anchor.map { .float8($0.y) } ?? .null,
            .float8(row.angle), .float8(row.xOffset), .float8(row.yOffset), .int8(Int64(row.status)), .int8(row.override.rawValue),
        ]
    }

    public func insertAnnotation(_ row: AnnotationRow, into table: FeatureTable) throws -> Int64 {
        let columns = Self.annotationColumns.dropFirst()
        let r = try connection.query("""
            INSERT INTO \(qualified(table)) AS u (\(columns.map(quoteIdentifier).joined(separator: ", ")))
            VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", "))) RETURNING u.fid, u::text
            """, try annotationValues(row, table: table)).rows.first
        guard let fid = r?[0].integerValue else { throw StoreError.invalidData("the insert into \(table.name) returned no fid") }
        recording?.after(.init(table: table.name, fid: fid), r?[1].textValue)
        return fid
    }

    public func updateAnnotation(_ row: AnnotationRow, in table: FeatureTable) throws {
        guard let fid = row.fid else { preconditionFailure("updateAnnotation needs a row with a fid") }
        try lockAndRecord(table, fid: fid)
        let columns = Array(Self.annotationColumns.dropFirst())
        let r = try connection.query("""
            UPDATE \(qualified(table)) AS u SET \(columns.enumerated().map { "\(quoteIdentifier($1)) = $\($0 + 1)" }.joined(separator: ", "))
            WHERE u.fid = $\(columns.count + 1) RETURNING u::text
            """, try annotationValues(row, table: table) + [.int8(fid)]).rows.first
        recording?.after(.init(table: table.name, fid: fid), r?[0].textValue)
    }

    public func deleteAnnotation(fid: Int64, from table: FeatureTable) throws {
        try lockAndRecord(table, fid: fid)
        try connection.query("DELETE FROM \(qualified(table)) WHERE fid = $1", [.int8(fid)])
        recording?.after(.init(table: table.name, fid: fid), nil)
    }
}
