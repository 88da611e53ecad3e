import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink annotate`: register an annotation class for a feature table and generate its
/// annotation, or regenerate the annotation of the classes already registered.
struct AnnotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "annotate",
        abstract: "register an annotation class and generate its annotation, or regenerate all",
        // Two forms, so the usage is written out rather than generated.
        usage: [
            "annolink annotate FILE.gpkg --origin TABLE --into ANNO_TABLE --expression EXPR",
            "                  --placement point|line [options] [--json]",
            "annolink annotate FILE.gpkg --regenerate [--replace] [--into ANNO_TABLE] [--dry-run] [--json]",
        ],
        discussion: """
            The first form registers an annotation class that labels the features of TABLE and
            writes their annotation into ANNO_TABLE (created, in TABLE's CRS, when it does not
            exist). The second regenerates the annotation of every registered class (or those of
            ANNO_TABLE) from the stored classes: text, placement and footprint; missing rows are
            created, rows whose class no longer selects their feature are moved or removed; what
            Override marks as set by hand is kept.

            Labels are placed conflict-aware: the rule position, else another candidate of the
            class (around the point; along the line, the other side), else the rule position
            with Status 1 (unplaced). --regenerate keeps every label whose feature and class are
            unchanged since it was placed (ArcGIS's and hand placement included; PlacedFrom
            records it) and places only the others, against the labels around them; with
            --replace it places every label again, all of them together. docs/placement.md.

            Each form is one transaction. --regenerate is one journal entry ('annolink undo'
            reverts it exactly); the first form is none (it may create a table).

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md). A new ANNO_TABLE is made there as 'annolink copy' makes one, the
            class goes to annolink.annotation_classes and its QGIS style to annolink.layer_styles.
            """,
        exitStatus: """
            0 done, 64 bad usage, 65 unknown table, a bad expression or where clause,
            a class id in use, 66 no such file or database.
            """,
        example: """
            annolink annotate helsinki.gpkg --origin address_points --into address_anno \\
              --expression '$feature.street + " " + $feature.house_number' --placement point
            """)

    static let expression = ArgumentDeclaration.option("--expression", value: "EXPR", help: """
        label expression, the Arcade subset of docs/expressions.md,
        e.g. '$feature.house_number + " " + $feature.street'
        """)
    static let placement = ArgumentDeclaration.option("--placement", value: "point|line", help: """
        point: horizontal text above the point; line: text along the
        middle of the line, upright, offset to its upper side
        """)
    static let classID = ArgumentDeclaration.option("--class-id", value: "N", help: "class id within ANNO_TABLE (default: the next free one)")
    static let name = ArgumentDeclaration.option("--name", value: "NAME", help: "class name (default 'Default')")
    static let whereClause = ArgumentDeclaration.option("--where", value: "SQL", help: "condition on TABLE selecting the features to label")
    static let font = ArgumentDeclaration.option("--font", value: "FAMILY", help: "font family (default Tahoma)")
    static let size = ArgumentDeclaration.option("--size", value: "PT", help: "font size in points at the reference scale (default 10)")
    static let scale = ArgumentDeclaration.option("--reference-scale", value: "S", help: "scale denominator (default 1200, i.e. 1:1200)")
    static let offset = ArgumentDeclaration.option("--offset", value: "PT", help: """
        distance from feature to baseline in points (default 3.35
        for point placement, 1.5 for line placement, as ArcGIS
        placed the Loudoun labels)
        """)
    static let removeDuplicates = ArgumentDeclaration.option("--remove-duplicates", value: "PT", help: """
        label one feature of each group with the same text within PT
        points (at the reference scale); the others get Status 1
        (ArcGIS's remove duplicate labels: one entrance per address)
        """)
    static let preferences = ArgumentDeclaration.option("--placement-parameters", value: "JSON", help: """
        placement preferences as a JSON object: aroundPoint,
        slideTolerance, slideSteps, otherSide, removeDuplicates,
        clearance (docs/format.md, "Placement preferences")
        """)
    static let noAutoCreate = ArgumentDeclaration.flag("--no-auto-create", help: "do not create annotation for features added later")
    static let noUpdateOnShapeChange = ArgumentDeclaration.flag("--no-update-on-shape-change", help: "keep the placement when a feature's shape changes")
    static let json = ArgumentDeclaration.flag("--json", help: """
        the counts: {"features", "created", "updated", "deleted",
        "reclassified", "unplaceable", "unplaced", "dryRun"}; with --dry-run also
        "changes": [{"change", "annotationTable", "annotationFid",
        "classID", "oldText", "newText", "oldAnchor", "newAnchor",
        "oldAngle", "newAngle"}]
        """)
    static let dryRun = ArgumentDeclaration.flag("--dry-run", usage: false, help: """
        with --regenerate: list every annotation row that would
        change (text, anchor, angle before -> after); write nothing
        """)
    static let replace = ArgumentDeclaration.flag("--replace", usage: false, help: """
        with --regenerate: place every label again, the whole file
        solved together, instead of keeping those whose inputs are
        unchanged
        """)
    // Listed in the usage lines above, not under options.
    static let regenerate = ArgumentDeclaration.flag("--regenerate", usage: false, help: "regenerate the annotation of the registered classes")
    static let origin = ArgumentDeclaration.option("--origin", value: "TABLE", help: "the feature table to label")
    static let into = ArgumentDeclaration.option("--into", value: "ANNO_TABLE", help: "the annotation table to write (created when missing)")
    static let arguments = [
        SetCommand.file, origin, into, regenerate, replace, dryRun, expression, placement, classID, name, whereClause, font, size, scale, offset,
        removeDuplicates, preferences, noAutoCreate,
        noUpdateOnShapeChange, json,
    ]

    var json: Bool
    var regenerate: Bool
    var dryRun: Bool
    var replace: Bool
    var into: String?
    var origin: String?
    var expression: String?
    var placement: PlacementStyle?
    var classID: Int64?
    var name: String
    var whereClause: String?
    var font: String
    var size: Double
    var scale: Double
    var offset: Double?
    var placementParameters: String?
    var autoCreate: Bool
    var updateOnShapeChange: Bool
    var path: String

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        regenerate = arguments.flag(Self.regenerate)
        dryRun = arguments.flag(Self.dryRun)
        replace = arguments.flag(Self.replace)
        into = try arguments.option(Self.into)
        origin = try arguments.option(Self.origin)
        expression = try arguments.option(Self.expression)
        placement = try arguments.option(Self.placement, as: "point or line") { PlacementStyle(rawValue: $0) }
        classID = try arguments.option(Self.classID, as: "a whole number") { Int64($0) }
        name = try arguments.option(Self.name) ?? "Default"
        whereClause = try arguments.option(Self.whereClause)
        font = try arguments.option(Self.font) ?? "Tahoma"
        size = try arguments.option(Self.size, as: "a positive number") { decimalNumber($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } } ?? 10
        scale = try arguments.option(Self.scale, as: "a positive number") { decimalNumber($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } } ?? 1200
        offset = try arguments.option(Self.offset, as: "a number") { decimalNumber($0).flatMap { $0.isFinite ? $0 : nil } }
        let duplicates = try arguments.option(Self.removeDuplicates, as: "a number of points, 0 or more") {
            decimalNumber($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
        }
        placementParameters = try Self.placementParameters(arguments.option(Self.preferences), removeDuplicates: duplicates)
        autoCreate = !arguments.flag(Self.noAutoCreate)
        updateOnShapeChange = !arguments.flag(Self.noUpdateOnShapeChange)
        path = try arguments.positional(SetCommand.file)
    }

    /// The class's `placement_parameters`: `json` (which must be an object whose preferences
    /// read without complaint) with `removeDuplicates` set when given; nil when neither is.
    static func placementParameters(_ json: String?, removeDuplicates: Double?) throws -> String? {
        guard json != nil || removeDuplicates != nil else { return nil }
        var object: [String: Any] = [:]
        if let json {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
                throw CommandError.usage("--placement-parameters must be a JSON object, e.g. '{\"slideTolerance\": 12}'")
            }
            object = parsed
        }
        if let removeDuplicates { object["removeDuplicates"] = removeDuplicates }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        if let problem = PlacementPreferences.parse(text).messages.first { throw CommandError.usage("--placement-parameters: \(problem)") }
        return text
    }

    mutating func validate() throws {
        if regenerate {
            guard origin == nil, expression == nil, placement == nil, placementParameters == nil else {
                throw CommandError.usage("--regenerate takes only --into; the classes are already registered")
            }
            return
        }
        if dryRun { throw CommandError.usage("--dry-run goes with --regenerate") }
        if replace { throw CommandError.usage("--replace goes with --regenerate") }
        guard origin != nil else { throw CommandError.usage("missing \(Self.origin.label)") }
        guard into != nil else { throw CommandError.usage("missing \(Self.into.label)") }
        guard expression != nil else { throw CommandError.usage("missing \(Self.expression.label)") }
        guard placement != nil else { throw CommandError.usage("missing \(Self.placement.label)") }
    }

    func run() throws -> ExitStatus {
        let store = try StoreTarget.open(path)
        let engine = AnnotationEngine(store: store)
        let started = Date()
        if regenerate {
            guard try !store.annotationClasses().isEmpty else {
                throw CommandError("\(store.location) has no annotation classes to regenerate", status: .dataError)
            }
            if let into { _ = try store.featureTable(into) }
            let progress = Progress("features")
            var changes: [AnnotationChange]?
            let summary: RegenerationSummary
            var entry: Int64?
            if dryRun {
                // The same regeneration, rolled back: what it lists is what a real run does.
                changes = []
                summary = try store.withoutCommitting {
                    try engine.regenerateAll(annotationTable: into, replace: replace, progress: progress.update) { changes?.append($0) }
                }
            } else {
                (summary, entry) = try store.recordRegeneration(
                    command: EditOutput.commandLine,
                    summary: "annotate --regenerate" + (replace ? " --replace" : "") + (into.map { " --into \($0)" } ?? "")
                ) { try engine.regenerateAll(annotationTable: into, replace: replace, progress: progress.update) }
            }
            let output = RegenerationOutput(summary: summary, dryRun: dryRun, changes: changes)
            progress.finish(summary.features)
            for warning in engine.warnings { Output.diagnostic("warning: \(warning)") }
            if json {
                Output.line(try Output.json(output))
                return .success
            }
            Output.line("\(dryRun ? "would regenerate" : "regenerated") the annotation of \(summary.features) features: \(summary.created) created, " +
                "\(summary.updated) updated, \(summary.reclassified) moved to another class, \(summary.deleted) removed " +
                (dryRun ? "(dry run: nothing written)" : "(\(String(format: "%.1f", Date().timeIntervalSince(started))) s" +
                    (entry.map { "; journal entry \($0), undo with 'annolink undo'" } ?? "") + ")"))
            if summary.unplaced > 0 { Output.line("  \(summary.unplaced) labels have no room and are unplaced (Status 1; 'annolink check' lists them)") }
            for change in output.changes ?? [] { Output.line(EditOutput.line(of: change, dryRun: true, indent: "")) }
            return .success
        }

        // validate() saw that the first form has all four.
        guard let origin, let into, let expression, let placement else { return .usage }
        let originTable = try store.featureTable(origin)
        let isNewTable = (try? store.featureTable(into)) == nil
        if !isNewTable, !(try store.annotationTableNames().contains { $0.lowercased() == into.lowercased() }) {
            throw CommandError("\(into) exists and is not an annotation table", status: .dataError)
        }
        let progress = Progress("features")
        let summary = try store.registeringAnnotation(
            in: into, creatingIn: isNewTable ? originTable.srsID : nil, description: "annotation of \(originTable.name)"
        ) { annotationTable in
            // Read inside the transaction, so that the id is still free when the class is saved.
            let existing = try store.annotationClasses().filter { $0.annotationTable.lowercased() == into.lowercased() }
            let id = classID ?? ((existing.map(\.classID).max() ?? -1) + 1)
            if existing.contains(where: { $0.classID == id }) {
                throw CommandError("\(into) already has class \(id); choose another --class-id", status: .dataError)
            }
            let definition = AnnotationClass(
                annotationTable: annotationTable.name, classID: id, name: name, originTable: originTable.name, whereClause: whereClause,
                expression: expression, fontName: font, fontSize: size, horizontalAlignment: 1, verticalAlignment: 2,
                referenceScale: scale, placement: placement, placementOffset: offset ?? (placement == .point ? 3.35 : 1.5),
                placementParameters: placementParameters, autoCreate: autoCreate, updateOnShapeChange: updateOnShapeChange)
            try store.saveAnnotationClass(definition)
            let compiled = try engine.classes(labelling: originTable.name).first {
                $0.definition.annotationTable == annotationTable.name && $0.definition.classID == id
            }!
            return try engine.generate(compiled, progress: progress.update)
        }
        // The new class's tables are followed when other programs edit them (docs/follow.md).
        try store.captureOutsideEditsOfLinkedTables()
        progress.finish(summary.features)
        for warning in engine.warnings { Output.diagnostic("warning: \(warning)") }
        if json {
            Output.line(try Output.json(summary))
            return .success
        }
        Output.line("annotated \(summary.features) features of \(originTable.name) into \(into): " +
            "\(summary.created) annotation rows (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
        if summary.unplaceable > 0 {
            Output.line("  \(summary.unplaceable) features have no geometry and got no annotation")
        }
        if summary.unplaced > 0 { Output.line("  \(summary.unplaced) labels have no room and are unplaced (Status 1)") }
        return .success
    }
}

/// `annotate --regenerate --json`: the counts, whether it was a dry run, and with a dry run
/// every change.
struct RegenerationOutput: Encodable {
    var summary: RegenerationSummary
    var dryRun: Bool
    var changes: [AnnotationChange]?

    enum CodingKeys: String, CodingKey { case dryRun, changes }

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(dryRun, forKey: .dryRun)
        if let changes { try c.encode(changes, forKey: .changes) }
    }
}
