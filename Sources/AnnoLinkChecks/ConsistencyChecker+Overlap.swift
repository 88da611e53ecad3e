import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

extension ConsistencyChecker {
    /// The codes of the review pass: what a reviewer sees on the map rather than a row out of
    /// step with its rules.
    static let reviewCodes: Set<ProblemCode> = [.overlappingAnnotation, .unplacedAnnotation]

    /// The annotation rows the review pass reads, across every annotation table: the placed ones
    /// (`Status` 0, with a footprint) with their footprint and envelope, in (table name, fid)
    /// order, so that a label's index orders the labels as the pass reports them.
    struct PlacedLabels {
        /// The annotation tables, sorted by name; `table[i]` indexes this.
        var tables: [FeatureTable] = []
        var table: [Int32] = []
        var fid: [Int64] = []
        var text: [String] = []
        var classID: [Int64] = []
        var featureID: [Int64?] = []
        var footprint: [Geometry] = []
        var envelope: [Envelope] = []

        var count: Int { fid.count }

        mutating func append(table: Int32, row: ReviewedRow, footprint: Geometry, envelope: Envelope) {
            self.table.append(table)
            fid.append(row.fid)
            text.append(row.text)
            classID.append(row.classID)
            featureID.append(row.featureID)
            self.footprint.append(footprint)
            self.envelope.append(envelope)
        }

        /// The row `label` names, as a problem names another row.
        func reference(_ label: Int) -> AnnotationReference {
            AnnotationReference(annotationTable: tables[Int(table[label])].name, annotationFid: fid[label], text: text[label])
        }
    }

    /// The columns of an annotation row the review pass reads, as the table spells them.
    struct ReviewedColumns {
        var text, status, classID, featureID: String?

        init(_ table: FeatureTable) {
            text = table.column("TextString")?.name
            status = table.column("Status")?.name
            classID = table.column("AnnotationClassID")?.name
            featureID = table.column("FeatureID")?.name
        }

        var names: Set<String> { Set([text, status, classID, featureID].compactMap { $0 }) }

        /// What the pass needs of `feature`: a missing or NULL `Status` counts as placed, as
        /// the annotation pass reads it.
        func row(_ feature: Feature) -> ReviewedRow {
            func value(_ name: String?) -> SQLValue? { name.flatMap { feature.attributes[$0] } }
            return ReviewedRow(
                fid: feature.fid, text: value(text)?.textValue ?? "", status: value(status)?.integerValue ?? 0,
                classID: value(classID)?.integerValue ?? 0, featureID: value(featureID)?.integerValue)
        }
    }

    /// One annotation row as the review pass reads it.
    struct ReviewedRow {
        var fid: Int64
        var text: String
        var status: Int64
        var classID: Int64
        var featureID: Int64?
    }

    /// Two placed labels whose footprints intersect: `first` before `second` in
    /// `PlacedLabels` order. What a repair that re-places one of them would start from.
    struct OverlappingPair: Hashable {
        var first: Int
        var second: Int
        /// Why GEOS could not test the footprints exactly (only their envelopes were seen to
        /// meet); nil when it did.
        var undecided: String?
    }

    /// The review pass: reports every annotation row of `inScope` with `Status` 1 as
    /// `unplaced-annotation`, and every pair of placed labels whose footprints intersect
    /// (touching counts) as one `overlapping-annotation`, in any annotation table — a parcel
    /// label over an address label is one. The pair is reported on the row with the lower
    /// (table name, fid), or on the row in scope when only one is, naming the other.
    ///
    /// Reads every annotation table once through the store's protocol (the same on a GeoPackage
    /// and on PostGIS) and holds the placed labels' footprints in memory (about 300 bytes a
    /// label). Candidate pairs come from a uniform grid of the footprints' envelopes, with a
    /// cell about the size of a label, so that the work grows with the labels and their
    /// neighbours, not with the square of the labels; each candidate is then tested exactly
    /// with GEOS, the lower label prepared once for all its candidates.
    ///
    /// - Returns: the annotation rows of `inScope` read.
    func checkPlacedAnnotation(inScope: [FeatureTable], report: (Problem) throws -> Void, tick: () -> Void) throws -> Int {
        let reportsUnplaced = codes.contains(.unplacedAnnotation), reportsOverlap = codes.contains(.overlappingAnnotation)
        guard reportsUnplaced || reportsOverlap else { return 0 }
        var read = 0
        let scope = Set(inScope.map { $0.name.lowercased() })
        var origins: [String: String] = [:]
        for d in try store.annotationClasses() { origins[Self.classKey(d.annotationTable, d.classID)] = d.originTable }

        var labels = PlacedLabels()
        var tableNames = try store.annotationTableNames()
        for t in inScope where !tableNames.contains(where: { $0.lowercased() == t.name.lowercased() }) { tableNames.append(t.name) }
        labels.tables = try tableNames.map { try store.featureTable($0) }.sorted { $0.name < $1.name }
        for (index, table) in labels.tables.enumerated() {
            let isInScope = scope.contains(table.name.lowercased())
            // Other tables matter only as the second label of a pair.
            guard isInScope || reportsOverlap else { continue }
            let columns = ReviewedColumns(table)
            try store.forEachFeature(table, matching: nil, fields: columns.names) { feature in
                if isInScope {
                    read += 1
                    tick()
                }
                let row = columns.row(feature)
                if row.status == 1 {
                    guard isInScope, reportsUnplaced else { return }
                    let origin = origins[Self.classKey(table.name, row.classID)]
                    try report(Problem(
                        code: .unplacedAnnotation, annotationTable: table.name, annotationFid: feature.fid, classID: row.classID,
                        originTable: origin, originFid: row.featureID,
                        message: "'\(row.text)' is unplaced (Status 1): it is stored where it would go, and ArcGIS does not draw it until it is placed"))
                    return
                }
                guard reportsOverlap, row.status == 0, let geometry = feature.geometry, let envelope = geometry.envelope,
                      envelope.minX.isFinite, envelope.maxX.isFinite, envelope.minY.isFinite, envelope.maxY.isFinite
                else { return }
                labels.append(table: Int32(index), row: row, footprint: geometry, envelope: envelope)
            }
        }
        guard reportsOverlap else { return read }

        // Each pair on the row it is reported on (the lower one, or the one in scope), in that
        // row's order.
        let inScopeLabel = { (label: Int) in scope.contains(labels.tables[Int(labels.table[label])].name.lowercased()) }
        var reported: [(on: Int, other: Int, undecided: String?)] = []
        for pair in try Self.overlappingPairs(labels) {
            if inScopeLabel(pair.first) {
                reported.append((pair.first, pair.second, pair.undecided))
            } else if inScopeLabel(pair.second) {
                reported.append((pair.second, pair.first, pair.undecided))
            }
        }
        reported.sort { ($0.on, $0.other) < ($1.on, $1.other) }
        for (on, other, undecided) in reported {
            let subject = labels.reference(on), overlapped = labels.reference(other)
            var message = "'\(subject.text)' overlaps \(overlapped.annotationTable) fid \(overlapped.annotationFid) '\(overlapped.text)': their footprints intersect"
            if let undecided { message += " (their envelopes meet; GEOS could not test them exactly: \(undecided))" }
            let table = subject.annotationTable, classID = labels.classID[on]
            try report(Problem(
                code: .overlappingAnnotation, annotationTable: table, annotationFid: subject.annotationFid, classID: classID,
                originTable: origins[Self.classKey(table, classID)], originFid: labels.featureID[on], message: message,
                overlapped: overlapped))
        }
        return read
    }

    /// The pairs of `labels` whose footprints intersect, ordered by first label then second.
    ///
    /// Each label's envelope is entered in the cells of a uniform grid it covers; two labels are
    /// a candidate where their envelopes meet, found in the one cell holding the lower-left
    /// corner of the envelopes' intersection, so that no pair is found twice. A label covering
    /// more than `largeLabelCells` cells (a footprint far larger than the rest) stays out of the
    /// grid and is compared with every label instead.
    static func overlappingPairs(_ labels: PlacedLabels) throws -> [OverlappingPair] {
        let n = labels.count
        guard n > 1 else { return [] }
        // A cell about as large as a typical label: each label then covers a few cells, and a
        // cell holds a label and its neighbours.
        let meanSize = labels.envelope.reduce(0.0) { $0 + max($1.width, $1.height) } / Double(n)
        let cell = meanSize > 0 && meanSize.isFinite ? meanSize : 1
        let origin = labels.envelope.reduce(Point(x: .infinity, y: .infinity)) { Point(x: min($0.x, $1.minX), y: min($0.y, $1.minY)) }
        func cellIndex(_ value: Double, _ start: Double) -> Int64 { Int64(((value - start) / cell).rounded(.down)) }
        func key(_ x: Int64, _ y: Int64) -> UInt64 { UInt64(truncatingIfNeeded: x) << 32 | UInt64(truncatingIfNeeded: y) & 0xFFFF_FFFF }

        var entries: [GridEntry] = []
        entries.reserveCapacity(n * 4)
        var large: [Int] = []
        for i in 0..<n {
            let e = labels.envelope[i]
            let x0 = cellIndex(e.minX, origin.x), x1 = cellIndex(e.maxX, origin.x)
            let y0 = cellIndex(e.minY, origin.y), y1 = cellIndex(e.maxY, origin.y)
            guard (x1 - x0 + 1) * (y1 - y0 + 1) <= largeLabelCells, x1 < 1 << 31, y1 < 1 << 31 else {
                large.append(i)
                continue
            }
            for x in x0...x1 {
                for y in y0...y1 { entries.append(GridEntry(cell: key(x, y), label: Int32(i))) }
            }
        }
        entries.sort()

        // Each candidate as first << 32 | second, first < second: sorted as plain integers.
        var candidates: [UInt64] = []
        func candidate(_ a: Int, _ b: Int) { candidates.append(UInt64(min(a, b)) << 32 | UInt64(max(a, b))) }
        var start = 0
        while start < entries.count {
            var end = start + 1
            while end < entries.count, entries[end].cell == entries[start].cell { end += 1 }
            let here = entries[start].cell
            for p in start..<end {
                let a = Int(entries[p].label), ea = labels.envelope[a]
                for q in (p + 1)..<end {
                    let b = Int(entries[q].label), eb = labels.envelope[b]
                    guard ea.intersects(eb) else { continue }
                    let corner = key(cellIndex(max(ea.minX, eb.minX), origin.x), cellIndex(max(ea.minY, eb.minY), origin.y))
                    if corner == here { candidate(a, b) }
                }
            }
            start = end
        }
        let isLarge = Set(large)
        for a in large {
            for b in 0..<n where b != a && !(isLarge.contains(b) && b < a) && labels.envelope[a].intersects(labels.envelope[b]) {
                candidate(a, b)
            }
        }
        candidates.sort()

        let engine = try GeometryEngine()
        var pairs: [OverlappingPair] = []
        var prepared: (label: Int, geometry: GEOSPreparedGeometry?, reason: String?)?
        for c in candidates {
            let a = Int(c >> 32), b = Int(c & 0xFFFF_FFFF)
            if prepared?.label != a {
                do {
                    prepared = (a, try GEOSPreparedGeometry(engine.geos(labels.footprint[a])), nil)
                } catch let error as GEOSError {
                    prepared = (a, nil, error.description)
                }
            }
            do {
                guard let geometry = prepared?.geometry else {
                    pairs.append(OverlappingPair(first: a, second: b, undecided: prepared?.reason))
                    continue
                }
                if try geometry.intersects(engine.geos(labels.footprint[b])) { pairs.append(OverlappingPair(first: a, second: b)) }
            } catch let error as GEOSError {
                pairs.append(OverlappingPair(first: a, second: b, undecided: error.description))
            }
        }
        return pairs
    }

    /// A label entered in one cell of the overlap search's grid; ordered by cell, then label.
    struct GridEntry: Comparable {
        var cell: UInt64
        var label: Int32

        static func < (a: GridEntry, b: GridEntry) -> Bool { a.cell != b.cell ? a.cell < b.cell : a.label < b.label }
    }

    /// The most grid cells a label's envelope may cover before the overlap search compares it
    /// with every label instead (a footprint some 30 labels across each way).
    static let largeLabelCells: Int64 = 1024

    /// The key of class `classID` of annotation table `table`.
    static func classKey(_ table: String, _ classID: Int64) -> String { "\(table.lowercased())\u{0}\(classID)" }
}
