import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink translate`: a bulk move of features with all their annotation.
struct TranslateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "translate",
        abstract: "move many features by dx, dy with all their annotation",
        discussion: """
            Moves every selected feature by DX, DY (in the table's CRS units) and carries its
            annotation rigidly: anchor and footprint move by exactly the same vector, text and
            angle stay (labels placed off the rules' position stay as far off; the rules run only
            on a shape change or 'annotate --regenerate'), keeping the spatial indexes exact, as one transaction and one
            journal entry ('annolink undo' reverts it). SQLite streams the rows through the move,
            so memory stays flat for millions of features; progress is shown on a terminal. Killed
            part-way, the file is as it was.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done (also when nothing was selected), 64 bad usage, 65 unknown table or
            fid, invalid where clause, 66 no such file. On any error the file is unchanged.
            """,
        example: "annolink translate big.gpkg parcel_lines --bbox 11880000,7020000,11890000,7030000 --by 0.5,-1.25")

    static let fids = ArgumentDeclaration.option("--fids", value: "1,2,3", required: true, section: SelectionOptions.section,
                                                 help: SelectionOptions.fids.help)
    static let bbox = ArgumentDeclaration.option("--bbox", value: "MINX,MINY,MAXX,MAXY", required: true, section: SelectionOptions.section,
                                                 help: SelectionOptions.bbox.help)
    static let whereClause = ArgumentDeclaration.option("--where", value: "SQL", required: true, section: SelectionOptions.section,
                                                        help: SelectionOptions.whereClause.help)
    static let by = ArgumentDeclaration.option("--by", value: "DX,DY", required: true, help: "the move, in the table's CRS units")
    static let dryRun = ArgumentDeclaration.flag("--dry-run", help: "report what would move; write nothing")
    static let json = ArgumentDeclaration.flag("--json", help: #"{"table", "dx", "dy", "features", "annotationRows", "dryRun", "journalEntry"}"#)
    static let arguments = [SetCommand.file, SetCommand.table, fids, bbox, whereClause, by, dryRun, json]

    var json: Bool
    var dryRun: Bool
    var selectionOptions: SelectionOptions
    var byText: String
    var path: String
    var table: String
    var offset = Point(x: 0, y: 0)
    var selection = Selection.fids([])

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        dryRun = arguments.flag(Self.dryRun)
        selectionOptions = try SelectionOptions(parsing: &arguments)
        byText = try arguments.required(Self.by)
        path = try arguments.positional(SetCommand.file)
        table = try arguments.positional(SetCommand.table)
    }

    mutating func validate() throws {
        offset = try EditOutput.coordinate(byText, option: Self.by.name)
        selection = try selectionOptions.selection()
    }

    func run() throws -> ExitStatus {
        let service = EditService(store: try StoreTarget.open(path))
        let progress = Progress("features")
        let request = Translate(table: table, selection: selection, dx: offset.x, dy: offset.y, dryRun: dryRun, command: EditOutput.commandLine)
        let result = try request.run(in: service, progress: { done, _ in progress.update(done) })
        if result.features > 0 && !dryRun { progress.finish(result.features) }
        for warning in service.annotation.warnings { Output.diagnostic("warning: \(warning)") }
        if json {
            Output.line(try Output.json(result))
        } else if dryRun {
            Output.line("would move \(result.features) features of \(result.table) and \(result.annotationRows) annotation rows " +
                "by \(result.dx), \(result.dy) (dry run: nothing written)")
        } else if result.features == 0 {
            Output.line("no feature of \(result.table) is selected; nothing moved")
        } else {
            var line = "moved \(result.features) features of \(result.table) and \(result.annotationRows) annotation rows by \(result.dx), \(result.dy)"
            if let entry = result.journalEntry { line += " (journal entry \(entry))" }
            Output.line(line)
        }
        return .success
    }
}
