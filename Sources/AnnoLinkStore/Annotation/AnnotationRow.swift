import AnnoLinkGeometry

/// Properties of an annotation that a person set by hand, as bits of the `Override` column.
/// Regeneration keeps what they mark: a hand-placed annotation moves with its feature instead
/// of being placed again, a hand-set angle or text stays.
///
/// Esri's own bits (ArcGIS writes e.g. 1024 for a changed word spacing) are kept as they are;
/// annolink gives meaning only to these three.
public struct AnnotationOverride: OptionSet, Hashable, Sendable {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// AnchorX, AnchorY were set by hand.
    public static let position = AnnotationOverride(rawValue: 1)
    /// Angle was set by hand.
    public static let angle = AnnotationOverride(rawValue: 2)
    /// TextString was set by hand.
    public static let text = AnnotationOverride(rawValue: 4)
}

/// One row of an annotation table (docs/format.md, "Annotation tables"), in the table's CRS.
public struct AnnotationRow: Hashable, Sendable {
    /// The annotation's fid; nil for a row not yet inserted.
    public var fid: Int64?
    /// The origin feature's fid; nil when not linked.
    public var featureID: Int64?
    public var classID: Int64
    public var text: String
    public var fontName: String
    /// Points at the reference scale.
    public var fontSize: Double
    public var horizontalAlignment: Int
    public var verticalAlignment: Int
    /// The point the alignments refer to, in map units; nil when unknown.
    public var anchor: Point?
    /// Degrees counter-clockwise from east, in [0, 360).
    public var angle: Double
    /// Offsets in points along and across the text.
    public var xOffset: Double
    public var yOffset: Double
    /// 0 placed, 1 unplaced.
    public var status: Int
    public var override: AnnotationOverride
    /// The footprint polygon; nil when the row has no geometry.
    public var footprint: Polygon?
    /// Why the row is where it is (`PlacedFrom`); nil when unknown: written by another program
    /// or by annolink before it kept it, or the table has no `PlacedFrom` column.
    public var placedFrom: PlacementBasis?

    public init(
        fid: Int64? = nil, featureID: Int64?, classID: Int64, text: String, fontName: String, fontSize: Double,
        horizontalAlignment: Int, verticalAlignment: Int, anchor: Point?, angle: Double, xOffset: Double = 0,
        yOffset: Double = 0, status: Int = 0, override: AnnotationOverride = [], footprint: Polygon?, placedFrom: PlacementBasis? = nil
    ) {
        self.fid = fid
        self.featureID = featureID
        self.classID = classID
        self.text = text
        self.fontName = fontName
        self.fontSize = fontSize
        self.horizontalAlignment = horizontalAlignment
        self.verticalAlignment = verticalAlignment
        self.anchor = anchor
        self.angle = angle
        self.xOffset = xOffset
        self.yOffset = yOffset
        self.status = status
        self.override = override
        self.footprint = footprint
        self.placedFrom = placedFrom
    }
}

extension AnnotationRow {
    /// The annotation carried rigidly by (`dx`, `dy`), as its feature is by a translation: the
    /// anchor and every vertex of the footprint moved by exactly that vector (`x + dx`, as
    /// `GeoPackageGeometry.translate` and `MovedColumn.moveAssignment` compute it, so that a
    /// bulk move in SQL and a move of one row agree bit for bit); text, font, alignments,
    /// angle, offsets (which are along and across the text), status and `Override` as they
    /// are. A missing anchor or footprint stays missing. docs/placement.md, "Rigid moves".
    public func translated(dx: Double, dy: Double) -> AnnotationRow {
        var row = self
        row.anchor = anchor?.translated(dx: dx, dy: dy)
        if let footprint, case .polygon(let moved) = Geometry.polygon(footprint).translated(dx: dx, dy: dy) {
            row.footprint = moved
        }
        return row
    }
}

extension GeoPackage {
    /// The columns of an annotation table that make an `AnnotationRow`, in the order
    /// `annotationRow(from:startingAt:table:withFootprint:footprintProblem:)` reads them.
    public static let annotationColumnNames = [
        "fid", "geom", "FeatureID", "AnnotationClassID", "TextString", "FontName", "FontSize", "HorizontalAlignment",
        "VerticalAlignment", "AnchorX", "AnchorY", "Angle", "XOffset", "YOffset", "Status", "Override",
    ]
    /// The column that records why a row is where it is (`PlacementBasis`), after
    /// `annotationColumnNames`. Tables made by annolink before it have none: it then reads as
    /// NULL and is not written (`annotationSelectList`).
    public static let placedFromColumn = "PlacedFrom"
    /// How many columns `annotationSelectList` lists: `annotationColumnNames` and `PlacedFrom`.
    public static var annotationColumnCount: Int { annotationColumnNames.count + 1 }

    /// The columns of `table` that make an `AnnotationRow`, as an SQL select list:
    /// `annotationColumnNames`, then `PlacedFrom` (NULL when the table has no such column), each
    /// qualified by `alias` when given.
    public static func annotationSelectList(_ table: FeatureTable, alias: String? = nil) -> String {
        let prefix = alias.map { $0 + "." } ?? ""
        let placedFrom = table.column(placedFromColumn) == nil ? "NULL" : prefix + quoteIdentifier(placedFromColumn)
        return (annotationColumnNames.map { prefix + quoteIdentifier($0) } + [placedFrom]).joined(separator: ", ")
    }

    /// The columns `insertAnnotation` and `updateAnnotation` write to `table`, in order: every
    /// annotation column but `fid`, `PlacedFrom` only where the table has it.
    public static func annotationWrittenColumns(_ table: FeatureTable) -> [String] {
        Array(annotationColumnNames.dropFirst()) + (table.column(placedFromColumn) == nil ? [] : [placedFromColumn])
    }

    /// The statements annolink runs on annotation tables.
    enum AnnotationStatement: Int {
        case rowsOfFeature, row, insert, update

        func sql(_ table: FeatureTable) -> String {
            let t = quoteIdentifier(table.name)
            let written = GeoPackage.annotationWrittenColumns(table)
            switch self {
            case .rowsOfFeature: return "SELECT \(GeoPackage.annotationSelectList(table)) FROM \(t) WHERE FeatureID = ? ORDER BY fid"
            case .row: return "SELECT \(GeoPackage.annotationSelectList(table)) FROM \(t) WHERE fid = ?"
            case .insert:
                return "INSERT INTO \(t) (\(written.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(written.map { _ in "?" }.joined(separator: ", ")))"
            case .update:
                return "UPDATE \(t) SET \(written.map { quoteIdentifier($0) + " = ?" }.joined(separator: ", ")) WHERE fid = ?"
            }
        }
    }

    /// The prepared statement `kind` for `table`, reset: its SQL is built once per table, so
    /// that a bulk run does not build and hash the text for every row.
    func annotationStatement(_ kind: AnnotationStatement, _ table: FeatureTable) throws -> Statement {
        try cachedStatement(key: StatementKey(kind: kind.rawValue, table: table.name)) { kind.sql(table) }
    }

    /// Reads the annotation row of `table` the statement is on: the statement's columns from
    /// `first` on are `annotationColumnNames`, in that order. Without `withFootprint` the stored
    /// footprint is not decoded (nil), for callers that compute a new one anyway.
    ///
    /// - Parameter footprintProblem: when given, a footprint that cannot be decoded or is not
    ///   a polygon is handed to it and the row is read without one, instead of throwing.
    /// - Throws: `StoreError.corruptGeometry` or `.wrongGeometryKind` for the footprint, unless
    ///   `footprintProblem` is given.
    public func annotationRow(
        from s: some SQLRow, startingAt first: Int = 0, table: FeatureTable, withFootprint: Bool = true,
        footprintProblem: ((StoreError) -> Void)? = nil
    ) throws -> AnnotationRow {
        let fid = s.int64(first)
        var footprint: Polygon?
        if withFootprint, !s.isNull(first + 1) {
            do {
                let geometry = try s.withBlob(first + 1) { try decodeGeometry($0, table: table, fid: fid) }
                guard case .polygon(let polygon) = geometry else {
                    throw StoreError.wrongGeometryKind(table: table.name, expected: "POLYGON", got: geometry.kind.rawValue)
                }
                footprint = polygon
            } catch let error as StoreError {
                guard let footprintProblem else { throw error }
                footprintProblem(error)
            }
        }
        func column(_ i: Int) -> Int { first + i }
        return AnnotationRow(
            fid: fid, featureID: s.isNull(column(2)) ? nil : s.int64(column(2)), classID: s.int64(column(3)), text: s.text(column(4)) ?? "",
            fontName: s.text(column(5)) ?? "", fontSize: s.double(column(6)), horizontalAlignment: Int(s.int64(column(7))),
            verticalAlignment: Int(s.int64(column(8))),
            anchor: s.isNull(column(9)) || s.isNull(column(10)) ? nil : Point(x: s.double(column(9)), y: s.double(column(10))),
            angle: s.double(column(11)), xOffset: s.double(column(12)), yOffset: s.double(column(13)), status: Int(s.int64(column(14))),
            override: AnnotationOverride(rawValue: s.int64(column(15))), footprint: footprint,
            placedFrom: s.text(column(16)).flatMap(PlacementBasis.init(text:)))
    }

    /// The annotation rows of `table` linked to the origin feature `featureID`, in fid order.
    public func annotationRows(_ table: FeatureTable, featureID: Int64) throws -> [AnnotationRow] {
        let s = try annotationStatement(.rowsOfFeature, table)
        try s.bind(featureID, at: 1)
        var rows: [AnnotationRow] = []
        while try s.step() { rows.append(try annotationRow(from: s, table: table)) }
        return rows
    }

    /// The annotation row `fid` of `table`.
    ///
    /// - Parameter footprintProblem: as in `annotationRow(from:startingAt:table:withFootprint:footprintProblem:)`:
    ///   when given, an unreadable footprint is handed to it instead of thrown.
    /// - Throws: `StoreError.unknownFeature` when there is none.
    public func annotationRow(_ table: FeatureTable, fid: Int64, footprintProblem: ((StoreError) -> Void)? = nil) throws -> AnnotationRow {
        let s = try annotationStatement(.row, table)
        try s.bind(fid, at: 1)
        defer { s.reset() }
        guard try s.step() else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        return try annotationRow(from: s, table: table, footprintProblem: footprintProblem)
    }

    private func bindAnnotation(_ row: AnnotationRow, to s: Statement, table: FeatureTable) throws {
        try s.bind(row.footprint.map { .blob(encode(.polygon($0), for: table)) } ?? .null, at: 1)
        try s.bind(row.featureID.map(SQLValue.integer) ?? .null, at: 2)
        try s.bind(row.classID, at: 3)
        try s.bind(.text(row.text), at: 4)
        try s.bind(.text(row.fontName), at: 5)
        try s.bind(row.fontSize, at: 6)
        try s.bind(Int64(row.horizontalAlignment), at: 7)
        try s.bind(Int64(row.verticalAlignment), at: 8)
        try s.bind(row.anchor.map { .real($0.x) } ?? .null, at: 9)
        try s.bind(row.anchor.map { .real($0.y) } ?? .null, at: 10)
        try s.bind(row.angle, at: 11)
        try s.bind(row.xOffset, at: 12)
        try s.bind(row.yOffset, at: 13)
        try s.bind(Int64(row.status), at: 14)
        try s.bind(row.override.rawValue, at: 15)
        if table.column(Self.placedFromColumn) != nil { try s.bind(row.placedFrom.map { .text($0.text) } ?? .null, at: 16) }
    }

    /// Inserts `row` (its fid is chosen by SQLite) and returns the new fid.
    @discardableResult
    public func insertAnnotation(_ row: AnnotationRow, into table: FeatureTable) throws -> Int64 {
        let s = try annotationStatement(.insert, table)
        try bindAnnotation(row, to: s, table: table)
        while try s.step() {}
        return connection.lastInsertRowID
    }

    /// Writes every column of `row` (which must have a fid) back to `table`.
    public func updateAnnotation(_ row: AnnotationRow, in table: FeatureTable) throws {
        guard let fid = row.fid else { preconditionFailure("updateAnnotation needs a row with a fid") }
        let s = try annotationStatement(.update, table)
        try bindAnnotation(row, to: s, table: table)
        try s.bind(fid, at: Self.annotationWrittenColumns(table).count + 1)
        while try s.step() {}
    }

    /// The columns `updateAnnotationPlacements` writes, in the order of its values, with what
    /// each does when the annotation moves with its feature (for `JournalRecorder.captureMove`).
    /// `PlacedFrom` only where the table has it.
    public static func annotationPlacementColumns(_ table: FeatureTable) -> [MovedColumn] {
        [.geometry("geom"), .kept("TextString"), .x("AnchorX"), .y("AnchorY"), .kept("Angle"), .kept("Status")]
            + (table.column(placedFromColumn) == nil ? [] : [.kept(placedFromColumn)])
    }

    /// The columns a rigid move of annotation changes (`GeoPackage.translate` with a
    /// `JournalRecorder.captureMove` of them): the footprint and the anchor, each moved by the
    /// vector; every other column stays (`AnnotationRow.translated`).
    public static let annotationMovedColumns: [MovedColumn] = [.geometry("geom"), .x("AnchorX"), .y("AnchorY")]

    /// The values of `annotationPlacementColumns` for `row`, as written to `table`.
    func placementValues(of row: AnnotationRow, in table: FeatureTable) -> [SQLValue] {
        [
            row.footprint.map { .blob(encode(.polygon($0), for: table)) } ?? .null, .text(row.text),
            row.anchor.map { .real($0.x) } ?? .null, row.anchor.map { .real($0.y) } ?? .null, .real(row.angle), .integer(Int64(row.status)),
        ] + (table.column(Self.placedFromColumn) == nil ? [] : [row.placedFrom.map { .text($0.text) } ?? .null])
    }

    /// Deletes annotation row `fid` of `table`.
    public func deleteAnnotation(fid: Int64, from table: FeatureTable) throws {
        try connection.run("DELETE FROM \(quoteIdentifier(table.name)) WHERE fid = ?", [.integer(fid)])
    }
}
