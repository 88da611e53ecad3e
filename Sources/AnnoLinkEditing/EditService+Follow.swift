import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// What following the outside edits did (`annolink follow`; docs/follow.md).
public struct FollowResult: Encodable, Sendable {
    /// One row another program inserted, updated or deleted.
    public struct Edit: Encodable, Sendable {
        public var table: String
        public var fid: Int64
        /// `insert`, `update` or `delete`: how the row differs, before the outside edits and now;
        /// `unjournaled` for a row that could not be written again (`OutsideEdit.unreadable`).
        public var operation: String
    }

    public var edits: [Edit] = []
    /// The annotation regenerated for them.
    public var annotation: [AnnotationChange] = []
    /// Rows whose annotation could not be made (a geometry that cannot be read, or that its
    /// classes cannot place): followed without it, for `check` to report.
    public var warnings: [String] = []
    /// The journal entry that holds the outside edits and the follow-up; nil when there was
    /// nothing to follow.
    public var journalEntry: Int64?

    public init() {}
}

extension EditService {
    /// Follows the edits other programs made (QGIS, GDAL, `sqlite3`, psql), recorded by the
    /// store's change capture, as annolink would have followed the same edits of its own: a
    /// changed field regenerates the text, a moved point carries its labels, another shape change
    /// places them again, a new feature gets its labels and a deleted one loses them; an outside
    /// edit of an annotation row marks in `Override` what was set by hand (a moved footprint
    /// moves the anchor with it). One journal entry, naming the outside edits, holds both the
    /// outside edits and the follow-up, so that `undo` reverts the two.
    ///
    /// Every edit of the service catches up first (`run`); nothing pending costs one read.
    ///
    /// - Returns: nil when nothing was pending.
    @discardableResult
    public func followOutsideEdits(command: String = "annolink follow") throws -> FollowResult? {
        let pending = try store.pendingOutsideEdits()
        guard !pending.isEmpty else { return nil }
        let summary = "outside edit: " + pending.keys.sorted().map { "\($0) \(Self.fidList(pending[$0]!))" }.joined(separator: "; ")
        let recorded = try journal().recordEdit(command: command, summary: summary) { () throws -> FollowResult in
            var result = FollowResult()
            let annotationTables = Set(try store.annotationTableNames().map { $0.lowercased() })
            var reshaped: [String: FeatureTable] = [:]
            for edit in try store.takeOutsideEdits() {
                let table = try store.featureTable(edit.table)
                let operation = edit.before == nil && edit.after == nil ? "unjournaled"
                    : edit.before == nil ? "insert" : edit.after == nil ? "delete" : "update"
                result.edits.append(FollowResult.Edit(table: table.name, fid: edit.fid, operation: operation))
                if edit.before?.geometry != edit.after?.geometry { reshaped[table.name.lowercased()] = table }
                if let reason = edit.unreadable {
                    result.warnings.append("\(table.name) fid \(edit.fid) followed without its annotation: \(reason)")
                    continue
                }
                // A row its classes cannot label is followed without its annotation (as `check`
                // will say), in a savepoint of its own, so that it holds no later edit up.
                do {
                    try store.inTransaction {
                        if annotationTables.contains(table.name.lowercased()) {
                            if let before = edit.before, let after = edit.after { try annotationEditedOutside(table, before: before, after: after) }
                            return
                        }
                        switch (edit.before, edit.after) {
                        case (nil, _):
                            result.annotation += try regenerate(table, fid: edit.fid, previousGeometry: nil, isNew: true)
                        case (let before?, nil):
                            result.annotation += try regenerate(table, fid: edit.fid, previousGeometry: before.geometry, deleted: true)
                        case (let before?, let after?):
                            let moved = before.geometry != after.geometry
                            let translation = moved ? Self.pointMove(before.geometry, after.geometry) : nil
                            let previous = moved ? before.geometry : nil
                            result.annotation += try regenerate(table, fid: edit.fid, previousGeometry: previous, translation: translation)
                        }
                    }
                } catch let error as AnnotationError {
                    result.warnings.append("\(table.name) fid \(edit.fid) followed without its annotation: \(error)")
                }
            }
            for table in reshaped.values { try geometryChanged(table) }
            return result
        }
        var result = recorded.value
        result.journalEntry = recorded.entry
        return result
    }

    /// After another program changed an annotation row: what changed is marked as set by hand
    /// (`annotationEditedByHand`). A footprint moved without its anchor (QGIS moves the
    /// geometry) moves the anchor by as much.
    private func annotationEditedOutside(_ table: FeatureTable, before: Feature, after: Feature) throws {
        var fields = after.attributes.keys.filter { before.attributes[$0] != after.attributes[$0] }
        let anchorSet = fields.contains { ["anchorx", "anchory"].contains($0.lowercased()) }
        if !anchorSet, let old = before.geometry?.envelope, let new = after.geometry?.envelope, old != new {
            var row = try store.annotationRow(table, fid: after.fid, footprintProblem: nil)
            if let anchor = row.anchor {
                row.anchor = Point(x: anchor.x + (new.minX - old.minX), y: anchor.y + (new.minY - old.minY))
                try store.updateAnnotation(row, in: table)
                fields += ["AnchorX", "AnchorY"]
            }
        }
        guard !fields.isEmpty else { return }
        try annotationEditedByHand(table, fid: after.fid, fields: Set(fields))
    }

    /// The vector a point moved by, by which `movePoint` and following carry its labels; nil for
    /// other shapes, a point that had no finite location, or a vector too long to be finite.
    static func pointMove(_ before: Geometry?, _ after: Geometry?) -> (dx: Double, dy: Double)? {
        guard case .point(let old)? = before, case .point(let new)? = after, old.isFinite, new.isFinite else { return nil }
        let vector = (dx: new.x - old.x, dy: new.y - old.y)
        return vector.dx.isFinite && vector.dy.isFinite ? vector : nil
    }

    /// `fid 1`, `fids 1, 2, 3` or, for many, the first five and a count: how journal summaries
    /// and `annolink follow` name the rows of a table.
    public static func fidList(_ fids: [Int64]) -> String {
        let shown = fids.prefix(5).map(String.init).joined(separator: ", ")
        return (fids.count == 1 ? "fid " : "fids ") + shown + (fids.count > 5 ? " and \(fids.count - 5) more" : "")
    }
}
