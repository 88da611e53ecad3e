import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

extension ConsistencyChecker {
    /// An annotation row as read, with the reason its footprint could not be decoded.
    struct StoredAnnotation {
        var row: AnnotationRow
        var footprintError: String?
        var fid: Int64 { row.fid ?? 0 }
    }

    /// What the origin side of one feature's annotation looks like.
    enum Origin {
        /// No row with that fid.
        case gone
        /// The row has no geometry (NULL or empty): nothing to label.
        case withoutGeometry
        /// The origin pass reported its geometry; its annotation is not judged.
        case reported
        /// The feature, and which classes select it (bit i for `Group.classes[i]`).
        case present(Feature, selection: Int64)
    }

    /// What the class's rules give for one feature, worked out once.
    struct Expectation {
        var text: String
        var placement: Placement?
    }

    /// Reads the linked rows of `group`'s classes, joined to their origin features, in
    /// FeatureID order — walking the table's `(FeatureID, AnnotationClassID)` index, so that
    /// SQLite sorts nothing — and judges each feature's rows together: orphan, duplicate,
    /// wrong-class and missing as regeneration would resolve them, then stale text, stale
    /// placement and footprint for the rows that stay. Rows without a FeatureID are
    /// free-standing annotation and are not judged.
    ///
    /// - Returns: the number of rows read.
    func checkAnnotation(_ g: Group, invalid: Set<Int64>, report: (Problem) throws -> Void, tick: () -> Void) throws -> Int {
        let opk = quoteIdentifier(g.origin.primaryKey)
        let origin = quoteIdentifier(g.origin.name)
        let fields = Self.fieldColumns(g.origin, g.classes)
        // Where clauses are written on the origin table alone; a subquery keeps their column
        // names from meeting the annotation table's.
        let mask = Self.selectionMask(g.classes).map { "(SELECT \($0) FROM \(origin) AS s WHERE s.\(opk) = a.FeatureID)" } ?? String(g.allSelected)
        let columns = GeoPackage.annotationSelectList(g.annotation, alias: "a")
        let statement = try connection.prepareUncached("""
            SELECT \(columns), o.\(opk), o.\(quoteIdentifier(g.origin.geometryColumn))
                   \(fields.map { ", o." + quoteIdentifier($0.name) }.joined()), \(mask)
            FROM \(quoteIdentifier(g.annotation.name)) AS a LEFT JOIN \(origin) AS o ON o.\(opk) = a.FeatureID
            WHERE a.FeatureID IS NOT NULL AND a.AnnotationClassID IN (\(g.classIDs))
            ORDER BY a.FeatureID
            """)
        // The annotation columns come first, then the origin's key, geometry and fields, then the mask.
        let featureIDColumn = GeoPackage.annotationColumnNames.firstIndex(of: "FeatureID")!
        let originColumn = GeoPackage.annotationColumnCount
        var rows: [StoredAnnotation] = []
        var current: (fid: Int64, origin: Origin)?
        var count = 0

        while try statement.step() {
            count += 1
            tick()
            let featureID = statement.int64(featureIDColumn)
            if current?.fid != featureID {
                if let current { try judge(rows, featureID: current.fid, origin: current.origin, group: g, report: report) }
                rows.removeAll(keepingCapacity: true)
                current = (featureID, readOrigin(statement, at: originColumn, fid: featureID, fields: fields, invalid: invalid))
            }
            var footprintError: StoreError?
            let row = try package.annotationRow(from: statement, table: g.annotation) { footprintError = $0 }
            rows.append(StoredAnnotation(row: row, footprintError: footprintError?.description))
        }
        if let current { try judge(rows, featureID: current.fid, origin: current.origin, group: g, report: report) }
        return count
    }

    /// The origin columns of the row the statement is on: from `first` on, the origin's key,
    /// its geometry, `fields`, and the selection mask (as `checkAnnotation` selects them).
    private func readOrigin(_ s: Statement, at first: Int, fid: Int64, fields: [Column], invalid: Set<Int64>) -> Origin {
        if s.isNull(first) { return .gone }
        if invalid.contains(fid) { return .reported }
        if s.isNull(first + 1) { return .withoutGeometry }
        guard case .success(let geometry) = s.withBlob(first + 1, Self.decode) else { return .reported }
        if geometry.isEmpty { return .withoutGeometry }
        var attributes: [String: SQLValue] = [:]
        for (i, column) in fields.enumerated() { attributes[column.name] = s.value(first + 2 + i) }
        return .present(Feature(fid: fid, geometry: geometry, attributes: attributes), selection: s.int64(first + 2 + fields.count))
    }

    /// Judges the rows of one feature in one annotation table.
    func judge(_ unsorted: [StoredAnnotation], featureID: Int64, origin: Origin, group g: Group, report: (Problem) throws -> Void) throws {
        // The common case: one row, of the one class that selects the feature. It needs none
        // of the grouping and sorting below, which were a tenth of a clean check's
        // instructions (callgrind, docs/benchmarks.md).
        if unsorted.count == 1, case .present(let feature, let selection) = origin,
           let i = g.classIndex[unsorted[0].row.classID], selection == 1 << Int64(i) {
            let c = g.classes[i]
            let expected = Expectation(text: try engine.text(of: feature, c), placement: try? engine.placement(of: feature, c))
            try checkRow(unsorted[0], c, expected, group: g, featureID: featureID, report: report)
            return
        }
        let rows = unsorted.sorted { ($0.row.classID, $0.fid) < ($1.row.classID, $1.fid) }
        func problem(_ code: ProblemCode, _ r: StoredAnnotation, _ message: String, target: Int64? = nil) -> Problem {
            Problem(code: code, annotationTable: g.annotation.name, annotationFid: r.fid, classID: r.row.classID, originTable: g.origin.name,
                    originFid: featureID, message: message, targetClassID: target)
        }
        let feature: Feature, selection: Int64
        switch origin {
        case .gone:
            for r in rows { try report(problem(.orphan, r, "its feature \(g.origin.name) fid \(featureID) does not exist")) }
            return
        case .withoutGeometry:
            for r in rows { try report(problem(.orphan, r, "its feature \(g.origin.name) fid \(featureID) has no geometry to label")) }
            return
        case .reported:
            return
        case .present(let f, let s):
            feature = f
            selection = s
        }

        var expectations: [Int: Expectation] = [:]
        func expectation(_ i: Int) throws -> Expectation {
            if let known = expectations[i] { return known }
            let c = g.classes[i]
            let made = Expectation(text: try engine.text(of: feature, c), placement: try? engine.placement(of: feature, c))
            expectations[i] = made
            return made
        }
        func isSelected(_ i: Int) -> Bool { selection & (1 << Int64(i)) != 0 }

        // One row per class stays: the one that matches the rules best (text first, then the
        // anchor's distance; the lowest fid among equals). The others are duplicates.
        var kept: [Int: StoredAnnotation] = [:]
        for (classID, classRows) in Dictionary(grouping: rows, by: \.row.classID).sorted(by: { $0.key < $1.key }) {
            guard let i = g.classIndex[classID] else { continue }
            var best = classRows[0]
            if classRows.count > 1 {
                let expected = isSelected(i) ? try expectation(i) : (try? expectation(i))
                let scored = classRows.map { ($0, mismatch($0.row, expected, g.classes[i])) }
                best = scored.min { $0.1 < $1.1 }!.0
                for (r, _) in scored where r.fid != best.fid {
                    try report(problem(.duplicate, r, "\(g.annotation.name) fid \(best.fid) labels the same feature in the same class and is kept"))
                }
            }
            kept[i] = best
        }

        // As regeneration resolves them: each selecting class keeps its row, or takes a row of
        // a class that no longer selects the feature, or lacks one.
        var spare = kept.filter { !isSelected($0.key) }.sorted { $0.value.fid < $1.value.fid }.map(\.key)
        for i in g.classes.indices where isSelected(i) {
            let c = g.classes[i].definition
            if let r = kept[i] {
                try checkRow(r, g.classes[i], try expectation(i), group: g, featureID: featureID, report: report)
            } else if !spare.isEmpty {
                let j = spare.removeFirst(), r = kept[j]!
                let from = g.classes[j].definition
                let message = "class \(from.classID) '\(from.name)' no longer selects \(g.origin.name) fid \(featureID); "
                    + "class \(c.classID) '\(c.name)' does"
                try report(problem(.wrongClass, r, message, target: c.classID))
            } else if !(try expectation(i).text.isEmpty) {
                try report(Problem(
                    code: .missing, annotationTable: g.annotation.name, classID: c.classID, originTable: g.origin.name, originFid: featureID,
                    message: "class \(c.classID) '\(c.name)' selects it, and it has no annotation of that class in \(g.annotation.name)"))
            }
        }
        for j in spare {
            let from = g.classes[j].definition
            let message = "class \(from.classID) '\(from.name)' no longer selects \(g.origin.name) fid \(featureID), "
                + "and no other class of \(g.annotation.name) does"
            try report(problem(.wrongClass, kept[j]!, message))
        }
    }

    /// How far `row` is from what its class gives: whether the text differs (0 or 1), then the
    /// anchor's distance in points (0 where a person set the text or position).
    private func mismatch(_ row: AnnotationRow, _ expected: Expectation?, _ c: CompiledClass) -> Score {
        let textDiffers = !row.override.contains(.text) && row.text != expected?.text
        var distance = 0.0
        if !row.override.contains(.position) {
            if let anchor = row.anchor, let rule = expected?.placement?.anchor {
                distance = anchor.distance(to: rule) / c.mapUnitsPerPoint
            } else {
                distance = .infinity
            }
        }
        return Score(textDiffers: textDiffers ? 1 : 0, distance: distance)
    }

    /// A row's mismatch, ordered text first.
    private struct Score: Comparable {
        var textDiffers: Int
        var distance: Double
        static func < (a: Score, b: Score) -> Bool {
            (a.textDiffers, a.distance) < (b.textDiffers, b.distance)
        }
    }

    /// Stale text, stale placement and the footprint of a row that stays in its class.
    private func checkRow(
        _ r: StoredAnnotation, _ c: CompiledClass, _ expected: Expectation, group g: Group, featureID: Int64,
        report: (Problem) throws -> Void
    ) throws {
        func problem(_ code: ProblemCode, _ message: String) -> Problem {
            Problem(code: code, annotationTable: g.annotation.name, annotationFid: r.fid, classID: r.row.classID, originTable: g.origin.name,
                    originFid: featureID, message: message)
        }
        let row = r.row
        let unit = c.mapUnitsPerPoint
        var stale = false
        if !row.override.contains(.text), row.text != expected.text {
            stale = true
            try report(problem(.staleText, expected.text.isEmpty
                ? "text is '\(row.text)'; the expression gives no text, so the annotation should go"
                : "text is '\(row.text)'; the expression gives '\(expected.text)'"))
        }
        if c.definition.updateOnShapeChange, let rule = expected.placement {
            // A label is stale when what it was placed from changed: the rule placement its
            // PlacedFrom records (with none recorded: its own position) is no longer the one the
            // feature gives. Where ArcGIS, a person or conflict-aware placement put it is not.
            var parts: [String] = []
            let basis = row.placedFrom
            if !row.override.contains(.position) {
                if let anchor = row.anchor {
                    let recorded = basis?.ruleAnchor(from: anchor) ?? anchor
                    let distance = recorded.distance(to: rule.anchor)
                    if distance / unit > tolerances.position {
                        parts.append(basis == nil
                            ? "anchor is \(Self.format(distance / unit)) pt (\(Self.format(distance)) map units) from the rules' anchor"
                            : "the rules' anchor moved \(Self.format(distance / unit)) pt (\(Self.format(distance)) map units) since the label was placed")
                    }
                } else {
                    parts.append("it has no anchor")
                }
            }
            let recordedAngle = basis?.ruleAngle(from: row.angle) ?? row.angle
            if !row.override.contains(.angle), FootprintComparison.angleDifference(recordedAngle, rule.angle) > tolerances.angle {
                parts.append(basis == nil
                    ? "angle is \(Self.format(row.angle))°; the rules give \(Self.format(rule.angle))°"
                    : "the rules' angle turned from \(Self.format(recordedAngle))° to \(Self.format(rule.angle))° since the label was placed")
            }
            if !parts.isEmpty {
                stale = true
                try report(problem(.stalePlacement, parts.joined(separator: "; ")))
            } else if let basis, let anchor = row.anchor {
                // Where the label was put, against the rule position: information.
                let distance = basis.ruleAnchor(from: anchor).distance(to: anchor)
                if distance / unit > tolerances.position || abs(basis.ruleTurn) > tolerances.angle {
                    try report(problem(.offRule, "placed by \(basis.source.rawValue) \(Self.format(distance / unit)) pt (\(Self.format(distance)) map units) "
                        + "from the rule position, turned \(Self.format(basis.ruleTurn))° from the rule angle"))
                }
            }
        }
        // Repairing stale text or placement makes a new footprint anyway.
        guard !stale, let anchor = row.anchor else { return }
        if let error = r.footprintError {
            try report(problem(.footprint, "its footprint is unusable: \(error)"))
            return
        }
        guard let stored = row.footprint else {
            try report(problem(.footprint, "it has no footprint"))
            return
        }
        let footprint = try engine.footprint(text: row.text, placement: Placement(anchor: anchor, angle: row.angle), row: row, c)
        guard !FootprintComparison.isWithin(stored, footprint, tolerance: tolerances.footprint, unit: unit) else { return }
        let distance = FootprintComparison.distance(stored, footprint)
        if distance / unit > tolerances.footprint {
            try report(problem(.footprint, "footprint is \(Self.format(distance / unit)) pt off the box of its text at its anchor and angle"))
        }
    }

    /// Reports the rows of `table` whose class is not registered for it.
    func checkClassesRegistered(_ table: FeatureTable, registered: Set<Int64>, report: (Problem) throws -> Void) throws {
        let known = registered.sorted().map(String.init).joined(separator: ", ")
        let condition = known.isEmpty ? "1" : "AnnotationClassID IS NULL OR AnnotationClassID NOT IN (\(known))"
        let pk = quoteIdentifier(table.primaryKey)
        let statement = try connection.prepareUncached("""
            SELECT \(pk), FeatureID, AnnotationClassID FROM \(quoteIdentifier(table.name)) WHERE \(condition) ORDER BY \(pk)
            """)
        while try statement.step() {
            let classID = statement.isNull(2) ? nil : statement.int64(2)
            try report(Problem(
                code: .unknownClass, annotationTable: table.name, annotationFid: statement.int64(0), classID: classID,
                originFid: statement.isNull(1) ? nil : statement.int64(1),
                message: classID.map { "class \($0) is not registered for \(table.name)" } ?? "it has no AnnotationClassID"))
        }
    }
}
