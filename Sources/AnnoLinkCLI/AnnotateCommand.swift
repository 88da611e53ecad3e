import AnnoLinkAnnotation
import AnnoLinkStore
import Foundation

/// `annolink annotate`: register an annotation class for a feature table and generate its
/// annotation, or regenerate the annotation of the classes already registered.
enum AnnotateCommand: Command {
    static let name = "annotate"
    static let summary = "register an annotation class and generate its annotation, or regenerate all"
    static let help = """
        usage: annolink annotate FILE.gpkg --origin TABLE --into ANNO_TABLE --expression EXPR
                                 --placement point|line [options] [--json]
               annolink annotate FILE.gpkg --regenerate [--into ANNO_TABLE] [--json]

        The first form registers an annotation class that labels the features of TABLE and
        writes their annotation into ANNO_TABLE (created, in TABLE's CRS, when it does not
        exist). The second regenerates the annotation of every registered class (or those of
        ANNO_TABLE) from the stored classes: text, placement and footprint; missing rows are
        created, rows whose class no longer selects their feature are moved or removed; what
        Override marks as set by hand is kept. Each form is one transaction.

        options:
          --expression EXPR       label expression, the Arcade subset of docs/expressions.md,
                                  e.g. '$feature.house_number + " " + $feature.street'
          --placement point|line  point: horizontal text above the point; line: text along the
                                  middle of the line, upright, offset to its upper side
          --class-id N            class id within ANNO_TABLE (default: the next free one)
          --name NAME             class name (default 'Default')
          --where SQL             condition on TABLE selecting the features to label
          --font FAMILY           font family (default Tahoma)
          --size PT               font size in points at the reference scale (default 10)
          --reference-scale S     scale denominator (default 1200, i.e. 1:1200)
          --offset PT             distance from feature to baseline in points (default 3.35
                                  for point placement, 1.5 for line placement, as ArcGIS
                                  placed the Loudoun labels)
          --no-auto-create        do not create annotation for features added later
          --no-update-on-shape-change
                                  keep the placement when a feature's shape changes
          --json                  the counts: {"features", "created", "updated", "deleted",
                                  "reclassified", "unplaceable"}

        exit status: 0 done, 64 bad usage, 65 unknown table, a bad expression or where clause,
        a class id in use, 66 no such file.

        example:
          annolink annotate helsinki.gpkg --origin address_points --into address_anno \\
            --expression '$feature.street + " " + $feature.house_number' --placement point
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let regenerate = arguments.flag("--regenerate")
        let into = try arguments.option("--into")
        let origin = try arguments.option("--origin")
        let expression = try arguments.option("--expression")
        let placement = try arguments.option("--placement", as: "point or line") { PlacementStyle(rawValue: $0) }
        let classID = try arguments.option("--class-id", as: "a whole number") { Int64($0) }
        let name = try arguments.option("--name") ?? "Default"
        let whereClause = try arguments.option("--where")
        let font = try arguments.option("--font") ?? "Tahoma"
        let size = try arguments.option("--size", as: "a positive number") { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } } ?? 10
        let scale = try arguments.option("--reference-scale", as: "a positive number") { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } } ?? 1200
        let offset = try arguments.option("--offset", as: "a number") { Double($0).flatMap { $0.isFinite ? $0 : nil } }
        let autoCreate = !arguments.flag("--no-auto-create")
        let updateOnShapeChange = !arguments.flag("--no-update-on-shape-change")
        let path = try arguments.positional("FILE.gpkg")
        try arguments.finish()

        let package = try GeoPackage(path: path)
        let engine = AnnotationEngine(package: package)
        let started = Date()
        if regenerate {
            guard origin == nil, expression == nil, placement == nil else {
                throw CommandError.usage("--regenerate takes only --into; the classes are already registered")
            }
            guard try !package.annotationClasses().isEmpty else {
                throw CommandError("\(path) has no annotation classes to regenerate", status: .dataError)
            }
            if let into { _ = try package.featureTable(into) }
            let progress = Progress("features")
            let summary = try package.connection.write { try engine.regenerateAll(annotationTable: into, progress: progress.update) }
            progress.finish(summary.features)
            for warning in engine.warnings { Output.diagnostic("warning: \(warning)") }
            if json {
                Output.line(try Output.json(summary))
                return .success
            }
            Output.line("regenerated the annotation of \(summary.features) features: \(summary.created) created, \(summary.updated) updated, \(summary.reclassified) moved to another class, \(summary.deleted) removed (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
            return .success
        }

        guard let origin else { throw CommandError.usage("missing --origin TABLE") }
        guard let into else { throw CommandError.usage("missing --into ANNO_TABLE") }
        guard let expression else { throw CommandError.usage("missing --expression EXPR") }
        guard let placement else { throw CommandError.usage("missing --placement point|line") }
        let originTable = try package.featureTable(origin)

        let summary: RegenerationSummary = try package.connection.write {
            let existing = try package.annotationClasses().filter { $0.annotationTable.lowercased() == into.lowercased() }
            let isNewTable = (try? package.featureTable(into)) == nil
            if isNewTable {
                // The spatial index is built once the rows are in: one pass instead of one
                // trigger call per row.
                try package.createAnnotationTable(name: into, srsID: originTable.srsID, description: "annotation of \(originTable.name)", spatialIndex: false)
            } else if !(try package.annotationTableNames().contains { $0.lowercased() == into.lowercased() }) {
                throw CommandError("\(into) exists and is not an annotation table", status: .dataError)
            }
            let id = classID ?? ((existing.map(\.classID).max() ?? -1) + 1)
            if existing.contains(where: { $0.classID == id }) {
                throw CommandError("\(into) already has class \(id); choose another --class-id", status: .dataError)
            }
            let annotationTable = try package.featureTable(into)
            let definition = AnnotationClass(
                annotationTable: annotationTable.name, classID: id, name: name, originTable: originTable.name, whereClause: whereClause,
                expression: expression, fontName: font, fontSize: size, horizontalAlignment: 1, verticalAlignment: 2,
                referenceScale: scale, placement: placement, placementOffset: offset ?? (placement == .point ? 3.35 : 1.5),
                autoCreate: autoCreate, updateOnShapeChange: updateOnShapeChange)
            try package.saveAnnotationClass(definition)
            let compiled = try engine.classes(labelling: originTable.name).first { $0.definition.annotationTable == annotationTable.name && $0.definition.classID == id }!
            let progress = Progress("features")
            let generate = { try engine.generate(compiled, progress: progress.update) }
            let summary = isNewTable ? try generate() : try package.withSpatialIndexSuspended(table: annotationTable.name, generate)
            progress.finish(summary.features)
            if isNewTable { try package.createSpatialIndex(table: annotationTable.name, column: annotationTable.geometryColumn) }
            try package.refreshContents(of: package.featureTable(annotationTable.name))
            return summary
        }
        for warning in engine.warnings { Output.diagnostic("warning: \(warning)") }
        if json {
            Output.line(try Output.json(summary))
            return .success
        }
        Output.line("annotated \(summary.features) features of \(originTable.name) into \(into): \(summary.created) annotation rows (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
        if summary.unplaceable > 0 {
            Output.line("  \(summary.unplaceable) features have no geometry and got no annotation")
        }
        return .success
    }
}
