import AnnoLinkAnnotation
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

/// The one way features are edited: each edit changes the feature, regenerates its linked
/// annotation, keeps the spatial index and records a journal entry, all in one transaction
/// (docs/edits.md, "One edit, one transaction"). On any error the store is as it was.
///
/// The service works on any `FeatureStore` (a GeoPackage file, a PostGIS database): every read
/// and write goes through the store's protocol, and the bulk move is one store operation.
public final class EditService {
    /// Where the features live.
    public let store: any FeatureStore
    public let annotation: AnnotationEngine
    private var transformer: CoordinateTransformer?
    private var journalStorage: (any EditJournal)?
    var geometryEngineStorage: GeometryEngine?
    /// Whether a location outside the area of use of a table's CRS, or far outside its extent,
    /// is written anyway (`annolink … --force`); false: refused (`checkNearData`).
    public var allowsDistantLocations = false

    public init(store: any FeatureStore) {
        self.store = store
        annotation = AnnotationEngine(store: store)
    }

    public convenience init(package: GeoPackage) {
        self.init(store: package)
    }

    /// Which end of a line `moveVertex` moves.
    public enum VertexChoice: String, Sendable {
        /// The last vertex (the default, as Esri's sample intends).
        case last
        /// Whichever end is nearer to the new location (`GeometryEngine.nearestVertex`, planar,
        /// in the table's CRS).
        case nearest
    }

    // MARK: Helpers

    /// The store's edit journal, opened on first use.
    public func journal() throws -> any EditJournal {
        if let journalStorage { return journalStorage }
        let made = try store.journal()
        journalStorage = made
        return made
    }

    /// Runs `body` as one transaction recorded as one journal entry, and notes the entry.
    func perform(command: String, summary: String, _ body: () throws -> EditResult) throws -> EditResult {
        let recorded = try journal().recordEdit(command: command, summary: summary, body)
        var result = recorded.value
        result.journalEntry = recorded.entry
        return result
    }

    /// The PROJ name of `table`'s CRS (`EPSG:n`, or its WKT).
    func crsName(of table: FeatureTable) throws -> String {
        guard let srs = try store.spatialReferenceSystem(table.srsID) else { throw StoreError.unknownSpatialReference(srsID: table.srsID) }
        return srs.projName
    }

    /// The service's PROJ transformer, made on first use (and its transformations cached).
    func coordinateTransformer() throws -> CoordinateTransformer {
        if let transformer { return transformer }
        let made = try CoordinateTransformer()
        transformer = made
        return made
    }

    /// `point`, given in `crs` (nil: the table's own), in `table`'s CRS.
    func location(_ point: Point, crs: String?, for table: FeatureTable) throws -> Point {
        guard point.isFinite else { throw EditError.nonFiniteCoordinate("\(point.x), \(point.y)") }
        guard let crs else { return point }
        return try coordinateTransformer().transform(point, from: crs, to: crsName(of: table))
    }

    /// The result of a geometry edit that gives the stored geometry back (`GeometryMatch`):
    /// nothing written, no annotation regenerated, no journal entry.
    func unchangedResult(_ kind: EditResult.Kind, _ table: FeatureTable, fid: Int64, geometry: Geometry?) -> EditResult {
        var result = EditResult(kind: kind, table: table.name, fid: fid, oldGeometry: geometry, newGeometry: geometry)
        result.unchanged = true
        return result
    }

    /// The typed values of `FIELD=VALUE` texts for `table`'s columns.
    ///
    /// On an annotation table the display fields are held to what they can mean as well
    /// (`checkAnnotationValue`): every front end's set and add comes through here.
    ///
    /// - Throws: `StoreError.unknownColumn`, `EditError` for the feature id or a value that
    ///   does not fit its column.
    func parse(_ values: [(field: String, text: String)], for table: FeatureTable) throws -> [String: SQLValue] {
        let isAnnotation = try holdsCheckedAnnotationFields(table, fields: values.map(\.field))
        var parsed: [String: SQLValue] = [:]
        for (field, text) in values {
            guard let column = table.column(field) else { throw StoreError.unknownColumn(table: table.name, column: field) }
            if column.isPrimaryKey {
                throw EditError.fieldNotEditable(table: table.name, field: column.name, reason: "it is the feature id, which the table chooses")
            }
            // Two values for one field: which one the user meant cannot be guessed.
            guard parsed[column.name] == nil else {
                throw EditError.fieldNotEditable(table: table.name, field: column.name, reason: "it is given more than once")
            }
            let value = try FieldValue.parse(text, for: column, table: table.name)
            if isAnnotation { try checkAnnotationValue(value, text: text, column: column, of: table) }
            try checkGlobalID(value, text: text, column: column, of: table)
            parsed[column.name] = value
        }
        return parsed
    }

    /// Refuses `NULL`, or an empty or blank text, among the `FIELD=VALUE` texts for a field that
    /// a label expression of a class labelling `table` reads: the label would lose that part
    /// (" OAKMONT" for a NULL `AD_ADDRESS`; Esri's editor disables Done on an empty value).
    /// Checked before the texts are read by type, so that a blank number gets these words too,
    /// not "expects a whole number". Every front end's field edits pass here, so the CLI, the
    /// FeatureServer, OGC and the map page refuse alike.
    ///
    /// - Throws: `EditError.emptyLabelValue` naming the first such class and its expression.
    func refuseEmptyLabelValues(_ values: [(field: String, text: String)], of table: FeatureTable) throws {
        let blank = values.filter { $0.text == FieldValue.nullText || $0.text.allSatisfy(\.isWhitespace) }
            .map { table.column($0.field)?.name ?? $0.field }
        guard !blank.isEmpty else { return }
        for compiled in try annotation.classes(labelling: table.name) {
            let read = Set(compiled.expression.referencedFields.map { $0.lowercased() })
            if let field = blank.sorted().first(where: { read.contains($0.lowercased()) }) {
                let d = compiled.definition
                throw EditError.emptyLabelValue(
                    table: table.name, field: field, annotationTable: d.annotationTable, classID: d.classID, className: d.name, expression: d.expression)
            }
        }
    }

    /// Regenerates the annotation of feature `fid` after an edit; with a `translation` (the
    /// edit moved the feature by that vector) its annotation is carried rigidly. `reads`: what
    /// that reads of the feature, read with others of a bulk edit's batch after they were written.
    func regenerate(_ table: FeatureTable, fid: Int64, previousGeometry: Geometry?, isNew: Bool = false, deleted: Bool = false,
                    translation: (dx: Double, dy: Double)? = nil, reads: RegenerationReads? = nil,
                    fitting: Bool = true) throws -> [AnnotationChange] {
        let feature = deleted ? nil : try reads?.feature(fid, of: table.name) ?? store.feature(table, fid: fid)
        return try annotation.regenerate(originTable: table.name, fid: fid, feature: feature, previousGeometry: previousGeometry, isNew: isNew,
                                         translation: translation, reads: reads, fitting: fitting)
    }

    /// Every geometry column write refreshes the table's extent in `gpkg_contents`.
    func geometryChanged(_ table: FeatureTable) throws {
        try store.refreshExtent(of: table)
        for name in Set(try annotation.classes(labelling: table.name).map(\.definition.annotationTable)) {
            try store.refreshExtent(of: store.featureTable(name))
        }
    }

    // MARK: Edits

    /// Sets fields of one feature from the text a user typed (`FIELD=VALUE`), checked against
    /// each column's type and constraints, and regenerates its annotation.
    ///
    /// - Throws: `StoreError.unknownTable`, `.unknownFeature`, `.unknownColumn`, `EditError`
    ///   for a value that does not fit or a field that cannot be set, `SQLiteError` for a
    ///   violated constraint.
    public func setFields(table name: String, fid: Int64, values: [(field: String, text: String)], allowEmpty: Bool = false,
                          command: String) throws -> EditResult {
        let table = try store.featureTable(name)
        if !allowEmpty { try refuseEmptyLabelValues(values, of: table) }
        let parsed = try parse(values, for: table)
        return try perform(command: command, summary: "set \(parsed.keys.sorted().joined(separator: ", ")) of \(table.name) fid \(fid)") {
            let before = try store.feature(table, fid: fid)
            try store.updateFeature(table, fid: fid, geometry: nil, attributes: parsed)
            var result = EditResult(kind: .set, table: table.name, fid: fid)
            result.fields = parsed.keys.sorted().map { EditResult.FieldChange(name: $0, old: before.attributes[$0] ?? .null, new: parsed[$0]!) }
            if try store.annotationTableNames().contains(where: { $0.lowercased() == table.name.lowercased() }) {
                try annotationEditedByHand(table, fid: fid, fields: Set(parsed.keys))
            } else {
                result.annotation = try regenerate(table, fid: fid, previousGeometry: nil)
            }
            return result
        }
    }

    /// After a person set fields of an annotation row: marks what they set in `Override` so
    /// that regeneration keeps it (AnchorX/AnchorY: position, Angle: angle, TextString: text),
    /// records in `PlacedFrom` that a person placed it (when they set the position or angle of
    /// a row linked to a feature: `person`, with the rule placement its feature gives now), and
    /// recomputes the footprint for the new text and placement. `set` on an annotation row, the
    /// FeatureServer's and OGC's updates of one and `place` all come through here.
    func annotationEditedByHand(_ table: FeatureTable, fid: Int64, fields: Set<String>) throws {
        var row = try store.annotationRow(table, fid: fid, footprintProblem: nil)
        let lower = Set(fields.map { $0.lowercased() })
        let placedByHand = !lower.isDisjoint(with: ["anchorx", "anchory", "xoffset", "yoffset", "angle"])
        if !lower.isDisjoint(with: ["anchorx", "anchory", "xoffset", "yoffset"]) { row.override.insert(.position) }
        if lower.contains("angle") { row.override.insert(.angle) }
        if lower.contains("textstring") { row.override.insert(.text) }
        row.angle = PlacementRules.normalizedAngle(row.angle)
        let compiled = try annotation.allClasses().first {
            $0.definition.annotationTable.lowercased() == table.name.lowercased() && $0.definition.classID == row.classID
        }
        if placedByHand, let compiled, let anchor = row.anchor, let featureID = row.featureID,
           let feature = try? store.feature(store.featureTable(compiled.definition.originTable), fid: featureID),
           let geometry = feature.geometry, !geometry.isEmpty {
            let rule = try annotation.placement(of: feature, compiled)
            row.placedFrom = PlacementBasis(source: .person, anchor: anchor, angle: row.angle, ruleAnchor: rule.anchor, ruleAngle: rule.angle)
        }
        if let compiled, let anchor = row.anchor {
            row.footprint = try annotation.footprint(text: row.text, placement: Placement(anchor: anchor, angle: row.angle), row: row, compiled)
            // The values are checked one by one (`parse`); the box they make together must fit too.
            if let footprint = row.footprint { try checkFits(.polygon(footprint), in: table) }
        }
        try store.updateAnnotation(row, in: table)
        try store.refreshExtent(of: table)
    }

    /// Moves a point feature to `point`, given in `crs` (nil: the table's CRS), and carries
    /// its annotation with it: a point's move is a translation by the vector from where it was
    /// to where it goes, and its labels move by exactly that vector, text and angle kept
    /// (docs/placement.md, "Rigid moves"). A point that had no location (NULL or empty) gets
    /// its labels placed by the rules.
    ///
    /// - Throws: `EditError.notAPointTable`, `StoreError.unknownFeature`, PROJ errors for an
    ///   unknown CRS or a point outside its domain.
    public func movePoint(table name: String, fid: Int64, to point: Point, crs: String?, command: String) throws -> EditResult {
        let table = try store.featureTable(name)
        guard table.geometryKind == .point else { throw EditError.notAPointTable(table: table.name, geometryType: table.geometryTypeName) }
        guard point.isFinite else { throw EditError.nonFiniteCoordinate("\(point.x), \(point.y)") }
        try checkNearData(.point(point), crs: crs, in: table)
        return try perform(command: command, summary: "move \(table.name) fid \(fid)") {
            let before = try store.feature(table, fid: fid)
            let matched = try match(.point(point), crs: crs, stored: before.geometry, in: table)
            if matched.unchanged { return unchangedResult(.move, table, fid: fid, geometry: before.geometry) }
            guard case .point(let target) = matched.geometry else { preconditionFailure("a point matched as \(matched.geometry.kind)") }
            let moved = Geometry.point(target)
            try validate(moved, for: table)
            try store.updateFeature(table, fid: fid, geometry: moved, attributes: [:])
            var result = EditResult(kind: .move, table: table.name, fid: fid, oldGeometry: before.geometry, newGeometry: moved)
            let translation = Self.pointMove(before.geometry, moved)
            result.annotation = try regenerate(table, fid: fid, previousGeometry: before.geometry, translation: translation)
            try geometryChanged(table)
            return result
        }
    }

    /// Moves an end of a single-segment line (one part, two points) to `point`: the last
    /// vertex, or with `.nearest` whichever end is nearer. The line keeps its direction.
    ///
    /// - Throws: `EditError.notSingleSegment` naming the line's parts and points,
    ///   `EditError.notALineTable`.
    public func moveVertex(table name: String, fid: Int64, to point: Point, crs: String?, vertex: VertexChoice, command: String) throws -> EditResult {
        let table = try store.featureTable(name)
        guard table.geometryKind == .lineString || table.geometryKind == .multiLineString || table.geometryKind == nil else {
            throw EditError.notALineTable(table: table.name, geometryType: table.geometryTypeName)
        }
        let target = try location(point, crs: crs, for: table)
        try checkNearData(.point(point), crs: crs, in: table)
        return try perform(command: command, summary: "move \(vertex.rawValue) vertex of \(table.name) fid \(fid)") {
            let before = try store.feature(table, fid: fid)
            var line: LineString
            var rewrap: (LineString) -> Geometry = { .lineString($0) }
            switch before.geometry {
            case .lineString(let l)?: line = l
            case .multiLineString(let m)? where m.lines.count == 1:
                line = m.lines[0]
                rewrap = { .multiLineString(MultiLineString([$0])) }
            case .multiLineString(let m)?:
                throw EditError.notSingleSegment(table: table.name, fid: fid, parts: m.lines.count, points: m.lines.reduce(0) { $0 + $1.points.count })
            case let other?:
                throw EditError.notALineTable(table: table.name, geometryType: other.kind.rawValue)
            case nil:
                throw EditError.notSingleSegment(table: table.name, fid: fid, parts: 0, points: 0)
            }
            guard line.points.count == 2 else {
                throw EditError.notSingleSegment(table: table.name, fid: fid, parts: 1, points: line.points.count)
            }
            let index: Int
            switch vertex {
            case .last: index = 1
            case .nearest: index = try geometryEngine().nearestVertex(of: .lineString(line), to: target).vertex
            }
            // The vertex given back where it is (within the resolution of the CRS it is given in) is no move.
            let matched = try match(.point(point), crs: crs, stored: .point(line.points[index]), in: table)
            if matched.unchanged { return unchangedResult(.moveVertex, table, fid: fid, geometry: before.geometry) }
            line.points[index] = target
            let moved = rewrap(line)
            try validate(moved, for: table)
            try store.updateFeature(table, fid: fid, geometry: moved, attributes: [:])
            var result = EditResult(kind: .moveVertex, table: table.name, fid: fid, oldGeometry: before.geometry, newGeometry: moved)
            result.annotation = try regenerate(table, fid: fid, previousGeometry: before.geometry)
            try geometryChanged(table)
            return result
        }
    }

    /// Replaces the geometry of feature `fid` with `geometry` (in `crs`, nil: the table's) and
    /// regenerates its annotation as for a shape change: what a reshape in the sketch editor
    /// saves.
    ///
    /// The geometry is held against the stored one first (`GeometryMatch`): its rings are
    /// wound as the stored rings are, a single polygon or line goes into a multi column as its
    /// one part, vertices within the CRS's resolution of the stored ones keep the stored
    /// coordinates, and when all of them do the edit changes nothing (no journal entry).
    ///
    /// - Throws: `StoreError.unknownTable`, `.unknownFeature`, `.wrongGeometryKind`,
    ///   `GeometryValidationError` with GEOS's reason for an empty, non-finite or invalid
    ///   geometry.
    public func replaceGeometry(table name: String, fid: Int64, geometry: Geometry, crs: String? = nil, command: String) throws -> EditResult {
        let table = try store.featureTable(name)
        return try perform(command: command, summary: "reshape \(table.name) fid \(fid)") {
            let before = try store.feature(table, fid: fid)
            let matched = try match(geometry, crs: crs, stored: before.geometry, in: table)
            if matched.unchanged { return unchangedResult(.reshape, table, fid: fid, geometry: before.geometry) }
            let shape = matched.geometry
            try validate(shape, for: table)
            // After the geometry's own faults (its kind, GEOS's validity), which say more.
            try checkNearData(geometry, crs: crs, in: table)
            try store.updateFeature(table, fid: fid, geometry: shape, attributes: [:])
            var result = EditResult(kind: .reshape, table: table.name, fid: fid, oldGeometry: before.geometry, newGeometry: shape)
            result.annotation = try regenerate(table, fid: fid, previousGeometry: before.geometry)
            try geometryChanged(table)
            return result
        }
    }

    /// Adds a feature with `geometry` (in `crs`, nil: the table's) and fields typed as text,
    /// and creates its annotation where the classes say AutoCreate. A table with a GlobalID
    /// gets a new GUID in it unless the values give one (`withGlobalID`); the result's fields
    /// list it.
    public func addFeature(table name: String, geometry: Geometry, crs: String?, values: [(field: String, text: String)],
                           allowEmpty: Bool = false, command: String) throws -> EditResult {
        let table = try store.featureTable(name)
        if !allowEmpty { try refuseEmptyLabelValues(values, of: table) }
        let parsed = try parse(withGlobalID(values, for: table), for: table)
        var shape = geometry
        if let crs {
            guard geometry.isFinite else { throw EditError.nonFiniteCoordinate("in the geometry") }
            shape = try coordinateTransformer().transform(geometry, from: crs, to: crsName(of: table))
        }
        let finalShape = shape
        return try perform(command: command, summary: "add a feature to \(table.name)") {
            try validate(finalShape, for: table)
            // After the geometry's own faults (its kind, GEOS's validity), which say more.
            try checkNearData(geometry, crs: crs, in: table)
            let fid = try store.insertFeature(table, fid: nil, geometry: finalShape, attributes: parsed)
            var result = EditResult(kind: .add, table: table.name, fid: fid, newGeometry: finalShape)
            result.fields = parsed.keys.sorted().map { EditResult.FieldChange(name: $0, old: .null, new: parsed[$0]!) }
            result.annotation = try regenerate(table, fid: fid, previousGeometry: nil, isNew: true)
            try geometryChanged(table)
            return result
        }
    }

    /// Deletes a feature and, by cascade, its annotation.
    public func deleteFeature(table name: String, fid: Int64, command: String) throws -> EditResult {
        let table = try store.featureTable(name)
        return try perform(command: command, summary: "delete \(table.name) fid \(fid)") {
            let before = try store.feature(table, fid: fid)
            try store.deleteFeature(table, fid: fid)
            var result = EditResult(kind: .delete, table: table.name, fid: fid, oldGeometry: before.geometry)
            result.annotation = try regenerate(table, fid: fid, previousGeometry: before.geometry, deleted: true)
            try geometryChanged(table)
            return result
        }
    }
}

@available(*, unavailable)
extension EditService: Sendable {}
