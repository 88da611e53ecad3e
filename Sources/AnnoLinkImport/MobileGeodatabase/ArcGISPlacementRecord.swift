import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// Records that imported labels are where ArcGIS placed them (`PlacedFrom` = `arcgis …`),
/// with the rule placement annolink's rules give their features now: a later `check` or
/// `annotate --regenerate` then leaves them where they are until their feature or class changes,
/// however far ArcGIS's label engine slid them from the rule position (docs/placement.md).
enum ArcGISPlacementRecord {
    /// Writes `PlacedFrom` of every linked, anchored row of the registered classes of `package`;
    /// returns a message for each class that could not be (its expression or CRS), which keeps
    /// its rows' `PlacedFrom` NULL.
    static func write(into package: GeoPackage) throws -> [String] {
        let engine = AnnotationEngine(package: package)
        var messages: [String] = []
        let origins = Set(try package.annotationClasses().map(\.originTable)).sorted()
        for origin in origins {
            let compiled: [CompiledClass]
            do {
                compiled = try engine.classes(labelling: origin)
            } catch {
                messages.append("the labels of \(origin) keep no placement record: \(error)")
                continue
            }
            let originTable = try package.featureTable(origin)
            for c in compiled {
                let table = try package.featureTable(c.definition.annotationTable)
                guard table.column(GeoPackage.placedFromColumn) != nil else { continue }
                let t = quoteIdentifier(table.name)
                let rows = try package.connection.rows(
                    "SELECT fid, FeatureID, AnchorX, AnchorY, Angle FROM \(t) WHERE AnnotationClassID = ? AND FeatureID IS NOT NULL "
                        + "AND AnchorX IS NOT NULL AND AnchorY IS NOT NULL ORDER BY fid", [.integer(c.definition.classID)])
                let update = try package.connection.prepare("UPDATE \(t) SET \(quoteIdentifier(GeoPackage.placedFromColumn)) = ? WHERE fid = ?")
                for row in rows {
                    guard let fid = row[0].integerValue, let featureID = row[1].integerValue,
                          let x = row[2].doubleValue, let y = row[3].doubleValue, let angle = row[4].doubleValue,
                          let feature = try? package.feature(originTable, fid: featureID),
                          let rule = try? engine.placement(of: feature, c)
                    else { continue }
                    let basis = PlacementBasis(
                        source: .arcgis, anchor: Point(x: x, y: y), angle: angle, ruleAnchor: rule.anchor, ruleAngle: rule.angle)
                    update.reset()
                    try update.bind([.text(basis.text), .integer(fid)])
                    _ = try update.step()
                }
            }
        }
        return messages
    }
}
