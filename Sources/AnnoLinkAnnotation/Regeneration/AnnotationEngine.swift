import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

/// Makes and keeps feature-linked annotation: evaluates each class's label expression, measures
/// the text with the class's font, places it by the rules of docs/placement.md, and brings the stored
/// annotation rows in line (created, updated, moved between classes, removed).
///
/// Classes are compiled on first use and cached; a font that is missing is replaced by the
/// documented fallback, and `warnings` says so.
public final class AnnotationEngine {
    /// Where the classes, features and annotation rows live.
    public let store: any FeatureStore
    private var fonts: FontLibrary?
    private var metricsByFamily: [String: TextMetrics] = [:]
    private var compiledByOrigin: [String: [CompiledClass]] = [:]
    private var metresPerUnitBySRS: [Int64: Double?] = [:]
    private var annotationTableNames: [String]?
    /// Messages for the user (a missing font and its fallback), each once.
    public private(set) var warnings: [String] = []

    public init(store: any FeatureStore) {
        self.store = store
    }

    public convenience init(package: GeoPackage) {
        self.init(store: package)
    }

    /// Forgets the classes compiled so far and the CRS units read for them, so that the next
    /// use reads the registry again: for a long-lived engine (`annolink serve`) after another
    /// program changed the file. The fonts loaded stay.
    public func forgetClasses() {
        compiledByOrigin.removeAll()
        metresPerUnitBySRS.removeAll()
        annotationTableNames = nil
    }

    /// The store's annotation tables, read once.
    func annotationTables() throws -> [String] {
        if let known = annotationTableNames { return known }
        let names = try store.annotationTableNames()
        annotationTableNames = names
        return names
    }

    /// The size in metres of the CRS unit of `srsID`, from the file's WKT, else from PROJ.
    func metresPerUnit(_ srsID: Int64) throws -> Double? {
        if let known = metresPerUnitBySRS[srsID] { return known }
        var value = try store.spatialReferenceSystem(srsID)?.metresPerUnitFromDefinition
        if value == nil, let srs = try store.spatialReferenceSystem(srsID), srs.organization.uppercased() == "EPSG" {
            let crs = try? CoordinateTransformer().referenceSystem("EPSG:\(srs.organizationCoordsysID)")
            if crs?.isGeographic == false { value = crs?.metresPerUnit }
        }
        metresPerUnitBySRS[srsID] = value
        return value
    }

    /// The metrics of `family`, loading the font on first use.
    func metrics(_ family: String) throws -> TextMetrics {
        if let known = metricsByFamily[family] { return known }
        if fonts == nil { fonts = try FontLibrary() }
        let metrics = try fonts!.textMetrics(family: family)
        if let warning = metrics.fallbackWarning, !warnings.contains(warning) { warnings.append(warning) }
        metricsByFamily[family] = metrics
        return metrics
    }

    /// The classes that label `originTable`, compiled.
    ///
    /// - Throws: `AnnotationError.expression` for an expression that does not parse.
    public func classes(labelling originTable: String) throws -> [CompiledClass] {
        let key = originTable.lowercased()
        if let known = compiledByOrigin[key] { return known }
        var result: [CompiledClass] = []
        for definition in try store.annotationClasses() where definition.originTable.lowercased() == key {
            result.append(try compile(definition))
        }
        compiledByOrigin[key] = result
        return result
    }

    /// Every registered class, compiled.
    public func allClasses() throws -> [CompiledClass] {
        var result: [CompiledClass] = []
        for origin in Set(try store.annotationClasses().map { $0.originTable.lowercased() }).sorted() {
            result += try classes(labelling: origin)
        }
        return result
    }

    func compile(_ definition: AnnotationClass) throws -> CompiledClass {
        let expression: LabelExpression
        do {
            expression = try LabelExpression(definition.expression)
        } catch {
            throw AnnotationError.expression(annotationTable: definition.annotationTable, classID: definition.classID, message: "\(error)")
        }
        let annotationTable = try store.featureTable(definition.annotationTable)
        let originTable = try store.featureTable(definition.originTable)
        // A where clause stored in a file is input from anyone: checked here, once, and only the
        // checked condition is ever pasted into SQL.
        var condition: SQLCondition?
        if let clause = definition.selectingClause {
            do {
                condition = try store.checkedCondition(clause, on: originTable.name)
            } catch let refusal as SQLCondition.Refusal {
                throw AnnotationError.whereClause(annotationTable: definition.annotationTable, classID: definition.classID, message: refusal.description)
            }
        }
        guard let annotationUnit = try metresPerUnit(annotationTable.srsID) else {
            throw AnnotationError.noLinearUnit(table: annotationTable.name, srsID: annotationTable.srsID)
        }
        let (preferences, messages) = PlacementPreferences.parse(definition.placementParameters)
        for message in messages {
            let warning = "\(definition.annotationTable) class \(definition.classID): \(message)"
            if !warnings.contains(warning) { warnings.append(warning) }
        }
        return CompiledClass(
            definition: definition, expression: expression, condition: condition, metrics: try metrics(definition.fontName),
            preferences: preferences,
            mapUnitsPerPoint: PlacementRules.mapUnitsPerPoint(referenceScale: definition.referenceScale, metresPerUnit: annotationUnit),
            originMetresPerUnit: try metresPerUnit(originTable.srsID))
    }

    /// The label text of `feature` under `compiled`'s expression.
    public func text(of feature: Feature, _ compiled: CompiledClass) throws -> String {
        do {
            let context = ExpressionContext(
                attributes: feature.attributes, geometry: feature.geometry, metresPerUnit: compiled.originMetresPerUnit)
            return try compiled.expression.text(for: context)
        } catch {
            throw AnnotationError.expression(
                annotationTable: compiled.definition.annotationTable, classID: compiled.definition.classID,
                message: "\(error) (feature fid \(feature.fid))")
        }
    }

    /// Where the rules put `feature`'s label under `compiled`.
    public func placement(of feature: Feature, _ compiled: CompiledClass) throws -> Placement {
        guard let geometry = feature.geometry else {
            throw AnnotationError.placement(table: compiled.definition.originTable, fid: feature.fid, message: PlacementError.emptyGeometry.description)
        }
        do {
            return try PlacementRules.place(
                geometry, style: compiled.definition.placement, offset: compiled.definition.placementOffset,
                mapUnitsPerPoint: compiled.mapUnitsPerPoint)
        } catch {
            throw AnnotationError.placement(table: compiled.definition.originTable, fid: feature.fid, message: error.description)
        }
    }

    /// The footprint of `text` at `placement` with the row's font size and alignments.
    ///
    /// Measured without kerning: ArcGIS kerns the text's baseline but builds the footprint
    /// from the unkerned glyphs, centred on their advance box (docs/text-metrics.md; with
    /// Tahoma this matches its SHAPE within 1.4 % for all 148 Loudoun rows, against 2.7 %
    /// kerned).
    public func footprint(text: String, placement: Placement, row: AnnotationRow, _ compiled: CompiledClass) throws -> Polygon {
        let extent = try compiled.metrics.extent(of: text, pointSize: row.fontSize, kerning: false)
        return PlacementRules.footprint(
            placement, extent: extent, horizontalAlignment: row.horizontalAlignment, verticalAlignment: row.verticalAlignment,
            xOffset: row.xOffset, yOffset: row.yOffset, mapUnitsPerPoint: compiled.mapUnitsPerPoint)
    }

    /// The annotation row the class's rules make for `feature` from scratch.
    public func freshRow(for feature: Feature, _ compiled: CompiledClass) throws -> AnnotationRow {
        let d = compiled.definition
        let text = try text(of: feature, compiled)
        let placement = try placement(of: feature, compiled)
        var row = AnnotationRow(
            featureID: feature.fid, classID: d.classID, text: text, fontName: d.fontName, fontSize: d.fontSize,
            horizontalAlignment: d.horizontalAlignment, verticalAlignment: d.verticalAlignment,
            anchor: placement.anchor, angle: placement.angle, footprint: nil)
        row.footprint = try footprint(text: text, placement: placement, row: row, compiled)
        return row
    }

    /// Whether the class's where clause selects feature `fid` of its origin table.
    public func selects(_ compiled: CompiledClass, fid: Int64) throws -> Bool {
        guard let condition = compiled.condition else { return true }
        let origin = try store.featureTable(compiled.definition.originTable)
        return try evaluatingWhereClause(of: compiled) { try store.feature(origin, fid: fid, meets: condition) }
    }

    /// Which of the features `fids` the class's where clause selects, in one read.
    func selected(_ compiled: CompiledClass, among fids: [Int64]) throws -> Set<Int64> {
        guard let condition = compiled.condition else { return Set(fids) }
        let origin = try store.featureTable(compiled.definition.originTable)
        return try evaluatingWhereClause(of: compiled) { try store.fids(of: origin, among: fids, meeting: condition) }
    }

    /// `body`, a read that evaluates the class's where clause, with the database's error in it
    /// reported as the class's (`AnnotationError.whereClause`).
    private func evaluatingWhereClause<T>(of compiled: CompiledClass, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw AnnotationError.whereClause(
                annotationTable: compiled.definition.annotationTable, classID: compiled.definition.classID, message: error.message)
        } catch let error as StoreError {
            throw error
        } catch {
            // Another store's database error evaluating the clause.
            throw AnnotationError.whereClause(
                annotationTable: compiled.definition.annotationTable, classID: compiled.definition.classID, message: "\(error)")
        }
    }

    /// `existing` brought in line with the class's rules for `feature` (docs/placement.md):
    ///
    /// - The text, unless set by hand.
    /// - A hand-placed anchor (`Override` position) is moved by the distance the rules' anchor
    ///   moved between `previousGeometry` and the feature's geometry; a class that does not
    ///   update on shape change keeps the stored anchor and angle.
    /// - A label whose inputs are unchanged — same class, the feature's shape not changed by this
    ///   edit, and the rule placement still the one its `PlacedFrom` records — stays where it is
    ///   (ArcGIS's or a person's choice included); a new text gets a new footprint there, and is
    ///   placed again only when that footprint no longer fits among the labels around it.
    /// - Otherwise, or with `replace`, the label is placed by the rules, conflict-aware
    ///   (`placed(_:for:in:_:)`); `plan`, when given, holds the placement a whole-file solve
    ///   chose for it.
    /// - Without `fitting` (bulk edits: every label keeps its place, `check` finds the texts
    ///   that no longer fit) a label that keeps its place is not placed again, and a carried one
    ///   is not looked at.
    ///
    /// With a `translation` — the feature's new geometry is its old one moved by that vector —
    /// a row that stays in its class is carried rigidly instead (`AnnotationRow.translated`):
    /// anchor and footprint moved by exactly the vector, text and angle as they are, no rule
    /// run — unless it lands on a label it was clear of before the move (its own feature's
    /// other labels aside): then it is placed by the rules, conflict-aware. A move creates no
    /// overlap, and does not mend an old one. Esri: "the position of the annotation will
    /// transform to match any transformation to the linked feature's geometry"
    /// (docs/placement.md, "Rigid moves"). A row that changes class is placed by its new
    /// class's rules.
    public func regenerated(_ existing: AnnotationRow, for feature: Feature, previousGeometry: Geometry?,
                            translation: (dx: Double, dy: Double)? = nil, _ compiled: CompiledClass,
                            replace: Bool = false, plan: PlacementPlan? = nil, fitting: Bool = true) throws -> AnnotationRow {
        if let translation, existing.classID == compiled.definition.classID {
            let carried = existing.translated(dx: translation.dx, dy: translation.dy)
            // A label carried onto another is placed again among its new neighbours; one set
            // by hand, or not placed, is carried as it is.
            let table = try store.featureTable(compiled.definition.annotationTable)
            guard fitting, carried.status == 0, let footprint = carried.footprint, carried.override.isDisjoint(with: [.position, .angle]),
                  let old = existing.footprint, existing.anchor != nil,
                  !(try fits(footprint, table: table, fid: carried.fid, feature: feature.fid, compiled)),
                  try fits(old, table: table, fid: existing.fid, feature: feature.fid, compiled)
            else { return carried }
        }
        var row = existing
        row.classID = compiled.definition.classID
        if !row.override.contains(.text) { row.text = try text(of: feature, compiled) }
        let geometryChanged = previousGeometry != nil && previousGeometry != feature.geometry
        let rulePlacement = try placement(of: feature, compiled)
        func basis(_ source: PlacementBasis.Source, _ placement: Placement) -> PlacementBasis {
            PlacementBasis(
                source: source, anchor: placement.anchor, angle: placement.angle, ruleAnchor: rulePlacement.anchor, ruleAngle: rulePlacement.angle)
        }
        if row.override.contains(.position) || (geometryChanged && !compiled.definition.updateOnShapeChange) {
            var placement = Placement(anchor: row.anchor ?? rulePlacement.anchor, angle: row.angle)
            if geometryChanged, let previous = previousGeometry, let anchor = row.anchor {
                let before = try self.placement(of: Feature(fid: feature.fid, geometry: previous, attributes: feature.attributes), compiled)
                placement.anchor = Point(x: anchor.x + rulePlacement.anchor.x - before.anchor.x, y: anchor.y + rulePlacement.anchor.y - before.anchor.y)
            }
            if !row.override.contains(.angle) && !(geometryChanged && !compiled.definition.updateOnShapeChange) {
                placement.angle = rulePlacement.angle
            }
            row.anchor = placement.anchor
            row.angle = placement.angle
            row.status = 0
            row.footprint = try footprint(text: row.text, placement: placement, row: row, compiled)
            row.placedFrom = basis(row.override.contains(.position) ? .person : existing.placedFrom?.source ?? .rules, placement)
            return row
        }
        let table = try store.featureTable(compiled.definition.annotationTable)
        if !replace, existing.classID == row.classID, !geometryChanged, let anchor = existing.anchor,
           isPlaced(existing, from: rulePlacement, compiled) {
            // What the label was placed from is unchanged: it stays.
            if row.text == existing.text, existing.footprint != nil { return row }
            row.footprint = try footprint(text: row.text, placement: Placement(anchor: anchor, angle: row.angle), row: row, compiled)
            if !fitting || existing.status != 0 { return row }
            if try fits(row.footprint!, table: table, fid: row.fid, feature: feature.fid, compiled) { return row }
        }
        if row.override.contains(.angle) {
            // A hand-set angle keeps the rule anchor: the candidates assume their own angles.
            let placement = Placement(anchor: rulePlacement.anchor, angle: row.angle)
            row.anchor = placement.anchor
            row.status = 0
            row.footprint = try footprint(text: row.text, placement: placement, row: row, compiled)
            row.placedFrom = basis(.rules, placement)
            return row
        }
        if let decided = plan?.decision(table: table.name, classID: row.classID, featureID: feature.fid) {
            return decided.applied(to: row)
        }
        return try placed(row, for: feature, in: table, compiled)
    }

    /// Brings every annotation of origin feature `fid` of `originTable` in line with the classes
    /// that label the table: rows are updated, created (for a new feature only when the class
    /// says AutoCreate), moved to the class whose where clause now selects the feature, or
    /// deleted (the feature is gone or has no geometry, no class selects it, or its text is
    /// empty).
    ///
    /// `feature` nil means the feature was deleted. `previousGeometry` is the geometry before
    /// the edit (nil when it did not change or the feature is new); `translation`, when the new
    /// geometry is the previous one moved by that vector: the rows are then carried rigidly
    /// (`regenerated(_:for:previousGeometry:translation:_:)`).
    ///
    /// `reads`, when given, holds what this reads of the feature, read for many at once
    /// (`reads(originTable:fids:features:)`) after the edit wrote them. `plan`, when given, is a
    /// whole-file placement (`regenerateAll(replace: true)`): every label is placed as it says.
    public func regenerate(originTable: String, fid: Int64, feature: Feature?, previousGeometry: Geometry?, isNew: Bool,
                           translation: (dx: Double, dy: Double)? = nil, reads: RegenerationReads? = nil,
                           plan: PlacementPlan? = nil, fitting: Bool = true) throws -> [AnnotationChange] {
        var changes: [AnnotationChange] = []
        let compiled = try classes(labelling: originTable)
        let byTable = Dictionary(grouping: compiled) { $0.definition.annotationTable.lowercased() }
        for (key, classes) in byTable.sorted(by: { $0.key < $1.key }) {
            let table = try store.featureTable(classes[0].definition.annotationTable)
            var existing = try reads?.rows[key].map { $0[fid] ?? [] } ?? store.annotationRows(table, featureID: fid)
            // A feature without geometry has nowhere to put a label, like a deleted one.
            let placeable = feature.flatMap { f in f.geometry.map { !$0.isEmpty } } ?? false
            let selected = placeable ? try classes.filter { try reads?.selects($0, fid) ?? selects($0, fid: fid) } : []
            for compiledClass in selected {
                let id = compiledClass.definition.classID
                let index = existing.firstIndex { $0.classID == id }
                    ?? existing.firstIndex { row in
                        classes.contains { $0.definition.classID == row.classID } && !selected.contains { $0.definition.classID == row.classID }
                    }
                if let index {
                    let old = existing.remove(at: index)
                    let updated = try regenerated(old, for: feature!, previousGeometry: previousGeometry, translation: translation, compiledClass,
                                                  replace: plan != nil, plan: plan, fitting: fitting)
                    if updated.text.isEmpty {
                        try store.deleteAnnotation(fid: old.fid!, from: table)
                        changes.append(change(.deleted, table, old, nil))
                    } else if updated != old {
                        try store.updateAnnotation(updated, in: table)
                        changes.append(change(old.classID == id ? .updated : .reclassified, table, old, updated))
                    }
                } else if !isNew || compiledClass.definition.autoCreate {
                    var row = try freshRow(for: feature!, compiledClass)
                    guard !row.text.isEmpty else { continue }
                    row = try plan?.decision(table: table.name, classID: id, featureID: feature!.fid)?.applied(to: row)
                        ?? placed(row, for: feature!, in: table, compiledClass)
                    row.fid = try store.insertAnnotation(row, into: table)
                    changes.append(change(.created, table, nil, row))
                }
            }
            // What is left belongs to classes that no longer select the feature, or to a
            // deleted feature.
            for old in existing where !placeable || classes.contains(where: { $0.definition.classID == old.classID }) {
                try store.deleteAnnotation(fid: old.fid!, from: table)
                changes.append(change(.deleted, table, old, nil))
            }
        }
        return changes
    }

    /// What `regenerate` reads of each of the features `fids` of `originTable`, read for all of
    /// them at once: their rows in each annotation table and, when `features` (the features
    /// exist: not for a delete, whose labels no class selects), the features themselves and which
    /// classes select them — a few reads for the lot instead of a few per feature, which a store
    /// with round trips (PostGIS) needs. Read after the edit wrote the features; each feature's
    /// regeneration then changes only its own rows.
    public func reads(originTable: String, fids: [Int64], features: Bool) throws -> RegenerationReads {
        var reads = RegenerationReads()
        // Features before their labels: the order every edit locks them in.
        if features { reads.features = try store.features(store.featureTable(originTable), fids: fids) }
        let compiled = try classes(labelling: originTable)
        for (key, classes) in Dictionary(grouping: compiled, by: { $0.definition.annotationTable.lowercased() }) {
            reads.rows[key] = try store.annotationRows(store.featureTable(classes[0].definition.annotationTable), featureIDs: fids)
        }
        guard features else { return reads }
        for compiledClass in compiled { reads.selected[RegenerationReads.key(compiledClass)] = try selected(compiledClass, among: fids) }
        return reads
    }

    private func change(_ kind: AnnotationChange.Kind, _ table: FeatureTable, _ old: AnnotationRow?, _ new: AnnotationRow?) -> AnnotationChange {
        AnnotationChange(
            kind: kind, annotationTable: table.name, annotationFid: (new ?? old)?.fid ?? 0, classID: (new ?? old)?.classID ?? 0,
            oldText: old?.text, newText: new?.text, oldAnchor: old?.anchor, newAnchor: new?.anchor,
            oldAngle: old?.angle, newAngle: new?.angle)
    }
}

/// What `AnnotationEngine.regenerate` reads of each of many features, read for all of them at
/// once (`AnnotationEngine.reads(originTable:fids:features:)`).
public struct RegenerationReads {
    /// The features read, by fid (empty when they were not asked for).
    public fileprivate(set) var features: [Int64: Feature] = [:]
    /// By annotation table (lowercased), each feature's rows.
    var rows: [String: [Int64: [AnnotationRow]]] = [:]
    /// By class, the features its where clause selects.
    fileprivate var selected: [String: Set<Int64>] = [:]

    fileprivate static func key(_ compiled: CompiledClass) -> String {
        "\(compiled.definition.annotationTable.lowercased())#\(compiled.definition.classID)"
    }

    /// Feature `fid` of `table` as read.
    ///
    /// - Throws: `StoreError.unknownFeature` when there was none to read.
    public func feature(_ fid: Int64, of table: String) throws -> Feature {
        guard let feature = features[fid] else { throw StoreError.unknownFeature(table: table, fid: fid) }
        return feature
    }

    /// Whether `compiled` selects feature `fid`, nil when the class was not read.
    /// The rows of feature `featureID` read in annotation table `table`.
    func rows(of table: String, featureID: Int64) -> [AnnotationRow] {
        rows[table.lowercased()]?[featureID] ?? []
    }

    func selects(_ compiled: CompiledClass, _ fid: Int64) -> Bool? {
        selected[Self.key(compiled)].map { $0.contains(fid) }
    }
}

@available(*, unavailable)
extension AnnotationEngine: Sendable {}
