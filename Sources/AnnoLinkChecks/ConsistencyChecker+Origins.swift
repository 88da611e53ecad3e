import AnnoLinkAnnotation
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

extension ConsistencyChecker {
    /// Reads every feature of `origin` once, in fid order, and reports
    /// - `invalid-geometry`: a geometry GEOS finds invalid (with its reason), that cannot be read,
    ///   or that a class selecting it cannot place (a polygon under point placement);
    /// - `missing`: a feature a class selects, with text to show, that has no annotation at all
    ///   in that class's table (features with some annotation there are judged by the
    ///   annotation pass, which sees which of their rows can move to another class).
    ///
    /// One statement: the selection of each class and whether the feature has annotation in each
    /// table are columns of it (a where clause per class, an index probe per table).
    ///
    /// - Returns: the features read, and the fids of those whose geometry was reported, which
    ///   the annotation pass then leaves alone.
    func checkOrigin(
        _ origin: FeatureTable, groups: [Group], report: (Problem) throws -> Void, tick: () -> Void
    ) throws -> (features: Int, invalid: Set<Int64>) {
        let pk = quoteIdentifier(origin.primaryKey)
        let fields = Self.fieldColumns(origin, groups.flatMap(\.classes))
        var columns = ["o.\(pk)", "o.\(quoteIdentifier(origin.geometryColumn))"] + fields.map { "o.\(quoteIdentifier($0.name))" }
        for g in groups {
            columns.append(Self.selectionMask(g.classes) ?? String(g.allSelected))
            columns.append(
                "EXISTS (SELECT 1 FROM \(quoteIdentifier(g.annotation.name)) AS a "
                    + "WHERE a.FeatureID = o.\(pk) AND a.AnnotationClassID IN (\(g.classIDs)))")
        }
        let statement = try connection.prepareUncached("SELECT \(columns.joined(separator: ", ")) FROM \(quoteIdentifier(origin.name)) AS o ORDER BY o.\(pk)")
        let firstGroupColumn = 2 + fields.count
        var invalid: Set<Int64> = []
        var features = 0
        let geometryEngine = try GeometryEngine()

        while try statement.step() {
            features += 1
            tick()
            let fid = statement.int64(0)
            guard !statement.isNull(1) else { continue }
            let geometry: Geometry
            switch statement.withBlob(1, Self.decode) {
            case .success(let g): geometry = g
            case .failure(let error):
                invalid.insert(fid)
                try report(Problem(code: .invalidGeometry, originTable: origin.name, originFid: fid, message: "its geometry cannot be read: \(error)"))
                continue
            }
            // A feature without geometry has nothing to label: no annotation is expected.
            if geometry.isEmpty { continue }
            if let reason = try Self.invalidityReason(geometry, engine: geometryEngine) {
                invalid.insert(fid)
                try report(Problem(code: .invalidGeometry, originTable: origin.name, originFid: fid, message: reason))
                continue
            }

            var attributes: [String: SQLValue]?
            var unplaceable = false
            for (index, g) in groups.enumerated() where !unplaceable {
                let mask = statement.int64(firstGroupColumn + 2 * index)
                let hasAnnotation = statement.int64(firstGroupColumn + 2 * index + 1) != 0
                for (bit, c) in g.classes.enumerated() where mask & (1 << Int64(bit)) != 0 {
                    if let reason = Self.placementRefusal(geometry, c) {
                        invalid.insert(fid)
                        unplaceable = true
                        try report(Problem(
                            code: .invalidGeometry, annotationTable: g.annotation.name, classID: c.definition.classID, originTable: origin.name,
                            originFid: fid, message: "class \(c.definition.classID) '\(c.definition.name)' cannot place it: \(reason)"))
                        break
                    }
                    guard !hasAnnotation else { continue }
                    if attributes == nil {
                        attributes = [:]
                        for (i, column) in fields.enumerated() { attributes![column.name] = statement.value(2 + i) }
                    }
                    let text = try engine.text(of: Feature(fid: fid, geometry: geometry, attributes: attributes!), c)
                    guard !text.isEmpty else { continue }
                    try report(Problem(
                        code: .missing, annotationTable: g.annotation.name, classID: c.definition.classID, originTable: origin.name, originFid: fid,
                        message: "class \(c.definition.classID) '\(c.definition.name)' selects it, and it has no annotation in \(g.annotation.name)"))
                }
            }
        }
        return (features, invalid)
    }

    /// Why `geometry` (not empty) is invalid, in GEOS's words, or nil when it is valid: the
    /// rule annolink refuses geometries by before writing them
    /// (`GeometryEngine.validateForWriting`).
    ///
    /// Points, multipoints and lines are judged in Swift first by GEOS's own rules (finite
    /// coordinates; a line needs two distinct points), so that a million lines cost no GEOS
    /// call; GEOS is asked only for polygons, and for the wording when something is wrong.
    static func invalidityReason(_ geometry: Geometry, engine: GeometryEngine) throws -> String? {
        func lineIsValid(_ line: LineString) -> Bool {
            guard let first = line.points.first, line.points.allSatisfy(\.isFinite) else { return false }
            return line.points.contains { $0 != first }
        }
        switch geometry {
        case .point(let p) where p.isFinite: return nil
        case .multiPoint(let m) where m.points.allSatisfy({ $0.isFinite || $0.isEmpty }): return nil
        case .lineString(let l) where lineIsValid(l): return nil
        case .multiLineString(let m) where m.lines.allSatisfy(lineIsValid): return nil
        default: break
        }
        do {
            try engine.validateForWriting(geometry, allowEmpty: true)
            return nil
        } catch let error as GeometryValidationError {
            return error.description
        }
    }

    /// Why `c`'s placement rules cannot place `geometry` (a valid, non-empty geometry), or nil:
    /// point placement needs points, line placement lines.
    static func placementRefusal(_ geometry: Geometry, _ c: CompiledClass) -> String? {
        let fits: Bool
        switch c.definition.placement {
        case .point: fits = geometry.kind == .point || geometry.kind == .multiPoint
        case .line: fits = geometry.kind == .lineString || geometry.kind == .multiLineString
        }
        guard !fits else { return nil }
        return PlacementError.wrongGeometryKind(expected: c.definition.placement.rawValue, got: geometry.kind.rawValue.lowercased()).description
    }
}
