import AnnoLinkAnnotation
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

extension ConsistencyChecker {
    /// The check on a store other than a GeoPackage, through the store's protocol: the same
    /// judgement of each feature's annotation (`judge`, `checkRow`) and the same origin checks
    /// (invalid geometry, missing annotation, unplaceable), fed by reads of the store rather
    /// than by the GeoPackage passes' joined SQL. No spatial index pass: the database keeps
    /// its own index (a GiST index on PostGIS).
    ///
    /// Each annotation table's rows of the checked classes are held in memory, grouped by
    /// feature, while its origin table is read, and so are the fids each class's where clause
    /// selects (one read of the origin table per class with a clause). Suited to the data sets
    /// the tests and a county's edits use, not to a million-row audit (the GeoPackage passes
    /// stream).
    func checkThroughStore(table: String?, progress: (Int, Int) -> Void, report: (Problem) throws -> Void) throws -> CheckSummary {
        var summary = CheckSummary()
        let plan = try makePlan(table: table)
        summary.annotationTables = plan.annotationTables.map(\.name)
        summary.originTables = plan.originTables.map(\.name)
        summary.classes = plan.groups.reduce(0) { $0 + $1.classes.count }
        guard !plan.annotationTables.isEmpty else { return summary }
        let unfollowed = try unfollowedRows(plan)
        func emit(_ problem: Problem) throws {
            guard codes.contains(problem.code), !unfollowed.hides(problem) else { return }
            summary.count(problem)
            try report(problem)
        }
        for problem in unfollowed.problems { try emit(problem) }
        // The review pass reads the annotation tables on its own (`checkPlacedAnnotation`).
        guard !codes.isDisjoint(with: Self.annotationPassCodes.union([.unknownClass])) else {
            summary.annotationRows = try checkPlacedAnnotation(inScope: plan.annotationTables, report: emit, tick: {})
            return summary
        }

        // Every row of each annotation table in scope: the rows of each group's classes by
        // feature, and rows of classes not registered for the table.
        var rowsByGroup: [[Int64: [StoredAnnotation]]] = Array(repeating: [:], count: plan.groups.count)
        for annotation in plan.annotationTables {
            let registered = plan.registeredClasses[annotation.name.lowercased()] ?? []
            try store.forEachFeature(annotation, matching: nil, fields: nil) { feature in
                summary.annotationRows += 1
                let stored = Self.storedAnnotation(feature, table: annotation)
                let classID = feature.attributes.first { $0.key.lowercased() == "annotationclassid" }?.value.integerValue
                guard let classID, registered.contains(classID) else {
                    try emit(Problem(
                        code: .unknownClass, annotationTable: annotation.name, annotationFid: feature.fid, classID: classID,
                        originFid: stored.row.featureID,
                        message: classID.map { "class \($0) is not registered for \(annotation.name)" } ?? "it has no AnnotationClassID"))
                    return
                }
                guard let featureID = stored.row.featureID else { return }
                for (i, g) in plan.groups.enumerated() where g.annotation.name == annotation.name && g.classIndex[classID] != nil {
                    rowsByGroup[i][featureID, default: []].append(stored)
                }
            }
        }

        // The features each class with a where clause selects, by group and class.
        var selectedByGroup: [[Int: Set<Int64>]] = Array(repeating: [:], count: plan.groups.count)
        for (i, g) in plan.groups.enumerated() {
            for (bit, c) in g.classes.enumerated() {
                guard let condition = c.condition else { continue }
                var selected = Set<Int64>()
                try store.forEachFeature(g.origin, matching: condition, fields: []) { selected.insert($0.fid) }
                selectedByGroup[i][bit] = selected
            }
        }

        let geometryEngine = try GeometryEngine()
        var done = 0
        for origin in plan.originTables {
            let groups = plan.groups.enumerated().filter { $0.element.origin.name == origin.name }
            var seen = Set<Int64>()
            let fields = Set(Self.fieldColumns(origin, groups.flatMap(\.element.classes)).map(\.name))
            try store.forEachFeature(origin, matching: nil, fields: fields) { feature in
                summary.originFeatures += 1
                done += 1
                if done % 4096 == 0 { progress(done, done) }
                let fid = feature.fid
                seen.insert(fid)
                var state: Origin
                if let geometry = feature.geometry, !geometry.isEmpty {
                    if let reason = try Self.invalidityReason(geometry, engine: geometryEngine) {
                        try emit(Problem(code: .invalidGeometry, originTable: origin.name, originFid: fid, message: reason))
                        state = .reported
                    } else {
                        state = .present(feature, selection: 0)
                    }
                } else {
                    state = .withoutGeometry
                }
                for (i, g) in groups {
                    var origin = state
                    if case .present(let f, _) = state {
                        var mask: Int64 = 0
                        for bit in g.classes.indices where selectedByGroup[i][bit]?.contains(fid) ?? true {
                            mask |= 1 << Int64(bit)
                        }
                        // A class that selects the feature but cannot place it: reported once, as the GeoPackage pass does.
                        if let c = g.classes.enumerated().first(where: { mask & (1 << Int64($0.offset)) != 0 && Self.placementRefusal(f.geometry!, $0.element) != nil }) {
                            try emit(Problem(
                                code: .invalidGeometry, annotationTable: g.annotation.name, classID: c.element.definition.classID, originTable: g.origin.name,
                                originFid: fid,
                                message: "class \(c.element.definition.classID) '\(c.element.definition.name)' cannot place it: \(Self.placementRefusal(f.geometry!, c.element)!)"))
                            state = .reported
                            origin = .reported
                        } else {
                            origin = .present(f, selection: mask)
                        }
                    }
                    let rows = rowsByGroup[i][fid] ?? []
                    if rows.isEmpty {
                        // No annotation in this table: missing where a selecting class has text
                        // (the GeoPackage origin pass's report).
                        guard case .present(let f, let mask) = origin else { continue }
                        for (bit, c) in g.classes.enumerated() where mask & (1 << Int64(bit)) != 0 {
                            guard !(try engine.text(of: f, c)).isEmpty else { continue }
                            try emit(Problem(
                                code: .missing, annotationTable: g.annotation.name, classID: c.definition.classID, originTable: g.origin.name,
                                originFid: fid,
                                message: "class \(c.definition.classID) '\(c.definition.name)' selects it, and it has no annotation in \(g.annotation.name)"))
                        }
                    } else {
                        try judge(rows, featureID: fid, origin: origin, group: g, report: emit)
                    }
                }
            }
            // Rows whose feature is gone.
            for (i, _) in groups {
                for (featureID, rows) in rowsByGroup[i].sorted(by: { $0.key < $1.key }) where !seen.contains(featureID) {
                    try judge(rows, featureID: featureID, origin: .gone, group: plan.groups[i], report: emit)
                }
            }
        }
        _ = try checkPlacedAnnotation(inScope: plan.annotationTables, report: emit, tick: {})
        progress(done, done)
        return summary
    }

    /// An annotation row read as a feature of its table (the footprint its geometry).
    static func storedAnnotation(_ feature: Feature, table: FeatureTable) -> StoredAnnotation {
        func value(_ name: String) -> SQLValue { feature.attributes.first { $0.key.lowercased() == name.lowercased() }?.value ?? .null }
        var footprint: Polygon?, footprintError: String?
        switch feature.geometry {
        case .polygon(let p)?: footprint = p
        case nil: break
        case let other?:
            footprintError = StoreError.wrongGeometryKind(table: table.name, expected: "POLYGON", got: other.kind.rawValue).description
        }
        let x = value("AnchorX").doubleValue, y = value("AnchorY").doubleValue
        let row = AnnotationRow(
            fid: feature.fid, featureID: value("FeatureID").integerValue, classID: value("AnnotationClassID").integerValue ?? 0,
            text: value("TextString").textValue ?? "", fontName: value("FontName").textValue ?? "", fontSize: value("FontSize").doubleValue ?? 0,
            horizontalAlignment: Int(value("HorizontalAlignment").integerValue ?? 0), verticalAlignment: Int(value("VerticalAlignment").integerValue ?? 0),
            anchor: x.flatMap { x in y.map { Point(x: x, y: $0) } }, angle: value("Angle").doubleValue ?? 0,
            xOffset: value("XOffset").doubleValue ?? 0, yOffset: value("YOffset").doubleValue ?? 0, status: Int(value("Status").integerValue ?? 0),
            override: AnnotationOverride(rawValue: value("Override").integerValue ?? 0), footprint: footprint,
            placedFrom: value(GeoPackage.placedFromColumn).textValue.flatMap(PlacementBasis.init(text:)))
        return StoredAnnotation(row: row, footprintError: footprintError)
    }
}
