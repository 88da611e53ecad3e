import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// One label edited by hand, as QA staff do after `check` (`annolink place`, the map editor's
/// label tools; docs/cli.md, "`place`"): moved to a point or by a vector, turned to an angle,
/// given another text, marked placed or unplaced — or reset to the rules.
///
/// Moving, turning and retexting set the fields as `annolink set` does on an annotation row
/// (`EditService.annotationEditedByHand`): the `Override` bits of what changed (1 position,
/// 2 angle, 4 text), so that regeneration and `check --fix` keep it; the footprint recomputed
/// from the font; `PlacedFrom` `person`. A reset clears those three bits and places the label
/// by the rules, conflict-aware, as regeneration would place a new one. One transaction, one
/// journal entry.
public struct PlaceAnnotation: EditRequest {
    /// What `Status` to set.
    public enum Status: Int, Sendable, Hashable {
        case placed = 0
        case unplaced = 1
    }

    /// The annotation table.
    public var table: String
    public var fid: Int64
    /// The new anchor, in `crs`.
    public var to: Point?
    /// The CRS of `to`; nil: the table's own.
    public var crs: String?
    /// A move of the anchor by this vector, in the table's CRS units.
    public var by: (dx: Double, dy: Double)?
    /// The new angle, degrees counter-clockwise from east (stored normalized to [0, 360)).
    public var angle: Double?
    /// The new text.
    public var text: String?
    /// Clear the hand-set bits of `Override` and place the label by the rules; nothing else may
    /// be asked with it.
    public var reset: Bool
    public var status: Status?
    public var command: String

    public init(table: String, fid: Int64, to: Point? = nil, crs: String? = nil, by: (dx: Double, dy: Double)? = nil, angle: Double? = nil,
                text: String? = nil, reset: Bool = false, status: Status? = nil, command: String) {
        self.table = table
        self.fid = fid
        self.to = to
        self.crs = crs
        self.by = by
        self.angle = angle
        self.text = text
        self.reset = reset
        self.status = status
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.placeAnnotation(self)
    }
}

extension EditService {
    /// The `Override` bits annolink gives meaning to; a reset clears these and keeps Esri's own
    /// (1024 word spacing, …), which annolink neither sets nor undoes.
    static let handSetBits: AnnotationOverride = [.position, .angle, .text]

    /// Runs a `PlaceAnnotation`: see there.
    ///
    /// - Throws: `StoreError.unknownTable`, `.unknownFeature`; `EditError.notAnAnnotationTable`,
    ///   `.invalidPlacement` for a request asking nothing or both `to` and `by` (or a reset with
    ///   anything else), `.invalidValue` for a value outside what the field can mean (a
    ///   non-finite or out-of-range anchor or angle, an empty text), `.annotationNotPlaceable`.
    public func placeAnnotation(_ request: PlaceAnnotation) throws -> EditResult {
        let table = try store.featureTable(request.table)
        guard try store.annotationTableNames().contains(where: { $0.lowercased() == table.name.lowercased() }) else {
            throw EditError.notAnAnnotationTable(table: table.name)
        }
        let asked = [request.to != nil || request.by != nil, request.angle != nil, request.text != nil, request.status != nil]
        if request.reset {
            guard !asked.contains(true) else {
                throw EditError.invalidPlacement("a reset places the label by the rules: it takes no new anchor, angle, text or status")
            }
            return try perform(command: request.command, summary: "reset \(table.name) fid \(request.fid) to the rules") {
                try resetToRules(table, fid: request.fid)
            }
        }
        guard asked.contains(true) else {
            throw EditError.invalidPlacement("nothing to change: give a new anchor (to or by), angle, text or status, or a reset")
        }
        guard request.to == nil || request.by == nil else {
            throw EditError.invalidPlacement("give the new anchor (to) or the move (by), not both")
        }
        if let by = request.by, !(by.dx.isFinite && by.dy.isFinite) { throw EditError.nonFiniteCoordinate("\(by.dx), \(by.dy)") }
        let anchorTo = try request.to.map { try location($0, crs: request.crs, for: table) }
        let what = [request.to != nil || request.by != nil ? "move" : nil, request.angle != nil ? "turn" : nil,
                    request.text != nil ? "retext" : nil, request.status.map { $0 == .placed ? "mark placed" : "mark unplaced" }]
            .compactMap { $0 }.joined(separator: ", ")
        return try perform(command: request.command, summary: "\(what) \(table.name) fid \(request.fid)") {
            let before = try store.annotationRow(table, fid: request.fid, footprintProblem: { _ in })
            var anchor = anchorTo
            if let by = request.by {
                guard let old = before.anchor else {
                    throw EditError.annotationNotPlaceable(table: table.name, fid: request.fid, reason: "has no anchor to move by a vector (give the new anchor instead)")
                }
                anchor = Point(x: old.x + by.dx, y: old.y + by.dy)
            }
            // The values go through the checks of every field edit (`parse`): an anchor beyond
            // the CRS, an angle beyond two turns, a text too long for its column.
            var texts: [(field: String, text: String)] = []
            if let anchor { texts += [("AnchorX", "\(anchor.x)"), ("AnchorY", "\(anchor.y)")] }
            if let angle = request.angle { texts.append(("Angle", "\(angle)")) }
            if let status = request.status { texts.append(("Status", "\(status.rawValue)")) }
            var parsed = try parse(texts, for: table)
            if let text = request.text {
                guard !text.allSatisfy(\.isWhitespace) else {
                    throw EditError.invalidValue(table: table.name, field: "TextString", value: text, reason: "a label's text may not be empty or blank")
                }
                // Read as text whatever it says ("NULL" is a text here, not a missing value).
                guard let column = table.column("TextString") else { throw StoreError.unknownColumn(table: table.name, column: "TextString") }
                if text != FieldValue.nullText { _ = try FieldValue.parse(text, for: column, table: table.name) }
                parsed[column.name] = .text(text)
            }
            var result = EditResult(kind: .place, table: table.name, fid: request.fid)
            result.fields = parsed.keys.sorted().map { name in
                EditResult.FieldChange(name: name, old: Self.value(of: name, in: before), new: parsed[name]!)
            }
            try store.updateFeature(table, fid: request.fid, geometry: nil, attributes: parsed)
            try annotationEditedByHand(table, fid: request.fid, fields: Set(parsed.keys))
            let after = try store.annotationRow(table, fid: request.fid, footprintProblem: nil)
            result.annotation = [Self.change(table, before, after)]
            return result
        }
    }

    /// Clears the hand-set bits of row `fid`'s `Override` and places it by its class's rules,
    /// conflict-aware, as a label whose inputs changed is placed (`AnnotationEngine.regenerated`
    /// with `replace`): the text from the label expression, anchor and angle from the rules (or
    /// a candidate clear of the other labels; `Status` 1 when none is), `PlacedFrom` `rules`.
    func resetToRules(_ table: FeatureTable, fid: Int64) throws -> EditResult {
        let before = try store.annotationRow(table, fid: fid, footprintProblem: { _ in })
        func refuse(_ reason: String) -> EditError { .annotationNotPlaceable(table: table.name, fid: fid, reason: reason) }
        guard let featureID = before.featureID else { throw refuse("is not linked to a feature (FeatureID is NULL): there are no rules to place it by") }
        guard let compiled = try annotation.allClasses().first(where: {
            $0.definition.annotationTable.lowercased() == table.name.lowercased() && $0.definition.classID == before.classID
        }) else { throw refuse("is in class \(before.classID), which no registered annotation class is: there are no rules to place it by") }
        let origin = try store.featureTable(compiled.definition.originTable)
        let feature: Feature
        do {
            feature = try store.feature(origin, fid: featureID)
        } catch StoreError.unknownFeature {
            throw refuse("labels \(origin.name) fid \(featureID), which does not exist")
        }
        guard let geometry = feature.geometry, !geometry.isEmpty else { throw refuse("labels \(origin.name) fid \(featureID), which has no geometry") }
        var row = before
        row.override.subtract(Self.handSetBits)
        let placed = try annotation.regenerated(row, for: feature, previousGeometry: nil, compiled, replace: true)
        try store.updateAnnotation(placed, in: table)
        try store.refreshExtent(of: table)
        var result = EditResult(kind: .place, table: table.name, fid: fid)
        result.fields = ["AnchorX", "AnchorY", "Angle", "TextString", "Status", "Override"].compactMap { name in
            let old = Self.value(of: name, in: before), new = Self.value(of: name, in: placed)
            return old == new ? nil : EditResult.FieldChange(name: table.column(name)?.name ?? name, old: old, new: new)
        }
        result.annotation = [Self.change(table, before, placed)]
        return result
    }

    /// The value of the annotation column `name` in `row`, as the table stores it.
    static func value(of name: String, in row: AnnotationRow) -> SQLValue {
        switch name.lowercased() {
        case "anchorx": row.anchor.map { .real($0.x) } ?? .null
        case "anchory": row.anchor.map { .real($0.y) } ?? .null
        case "angle": .real(row.angle)
        case "textstring": .text(row.text)
        case "status": .integer(Int64(row.status))
        case "override": .integer(row.override.rawValue)
        default: .null
        }
    }

    static func change(_ table: FeatureTable, _ old: AnnotationRow, _ new: AnnotationRow) -> AnnotationChange {
        AnnotationChange(kind: old == new ? .unchanged : .updated, annotationTable: table.name, annotationFid: new.fid ?? 0, classID: new.classID,
                         oldText: old.text, newText: new.text, oldAnchor: old.anchor, newAnchor: new.anchor, oldAngle: old.angle, newAngle: new.angle)
    }
}
