import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink translate`: a bulk move of features with all their annotation.
enum TranslateCommand: Command {
    static let name = "translate"
    static let summary = "move many features by dx, dy with all their annotation"
    static let help = """
        usage: annolink translate FILE.gpkg TABLE (--fids 1,2,3 | --bbox MINX,MINY,MAXX,MAXY | --where SQL)
                                  --by DX,DY [--dry-run] [--json]

        Moves every selected feature by DX, DY (in the table's CRS units) and regenerates its
        annotation (placement by the rules on the moved geometry; hand-placed annotation moves
        by the same vector), keeping the spatial indexes exact, as one transaction and one
        journal entry ('annolink undo' reverts it). SQLite streams the rows through the move,
        so memory stays flat for millions of features; progress is shown on a terminal. Killed
        part-way, the file is as it was.

        selection (exactly one):
          --fids 1,2,3               these feature ids
          --bbox MINX,MINY,MAXX,MAXY every feature whose envelope lies inside the box
          --where SQL                every feature an SQL condition on TABLE selects, e.g.
                                     "LEFT_FID = 12"; it must be one read-only condition

        options:
          --by DX,DY    the move, in the table's CRS units
          --dry-run     report what would move; write nothing
          --json        {"table", "dx", "dy", "features", "annotationRows", "dryRun", "journalEntry"}

        exit status: 0 done (also when nothing was selected), 64 bad usage, 65 unknown table or
        fid, invalid where clause, 66 no such file. On any error the file is unchanged.

        example:
          annolink translate big.gpkg parcel_lines --bbox 11880000,7020000,11890000,7030000 --by 0.5,-1.25
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let dryRun = arguments.flag("--dry-run")
        let fids = try arguments.option("--fids")
        let bbox = try arguments.option("--bbox")
        let whereClause = try arguments.option("--where")
        guard let by = try arguments.option("--by") else { throw CommandError.usage("missing --by DX,DY") }
        let path = try arguments.positional("FILE.gpkg")
        let table = try arguments.positional("TABLE")
        try arguments.finish()

        let offset = try EditOutput.coordinate(by, option: "--by")
        let selection: Selection
        switch (fids, bbox, whereClause) {
        case (let fids?, nil, nil):
            let parsed = fids.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else { throw CommandError.usage("--fids expects whole numbers separated by commas, not '\(fids)'") }
            selection = .fids(parsed.map { $0! })
        case (nil, let box?, nil):
            let numbers = box.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4, numbers.allSatisfy({ $0 != nil }) else {
                throw CommandError.usage("--bbox expects MINX,MINY,MAXX,MAXY, not '\(box)'")
            }
            let n = numbers.map { $0! }
            guard n.allSatisfy(\.isFinite) else { throw CommandError("--bbox: coordinates must be finite numbers, not '\(box)'", status: .dataError) }
            guard n[0] <= n[2], n[1] <= n[3] else { throw CommandError.usage("--bbox: MINX must not exceed MAXX, nor MINY MAXY") }
            selection = .boundingBox(Envelope(minX: n[0], minY: n[1], maxX: n[2], maxY: n[3]))
        case (nil, nil, let clause?):
            selection = .condition(clause)
        default:
            throw CommandError.usage("give exactly one of --fids, --bbox, --where")
        }

        let service = EditService(package: try GeoPackage(path: path))
        let progress = Progress("features")
        let request = Translate(table: table, selection: selection, dx: offset.x, dy: offset.y, dryRun: dryRun, command: EditOutput.commandLine)
        let result = try request.run(in: service, progress: { done, _ in progress.update(done) })
        if result.features > 0 && !dryRun { progress.finish(result.features) }
        for warning in service.annotation.warnings { Output.diagnostic("warning: \(warning)") }
        if json {
            Output.line(try Output.json(result))
        } else if dryRun {
            Output.line("would move \(result.features) features of \(result.table) and \(result.annotationRows) annotation rows by \(result.dx), \(result.dy) (dry run: nothing written)")
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
