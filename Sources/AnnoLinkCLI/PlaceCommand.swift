import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink place`: one label moved, turned or retyped by hand, marked placed or unplaced, or
/// reset to the rules (`PlaceAnnotation`).
struct PlaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "place",
        abstract: "move, turn or retype one label by hand, or reset it to the rules",
        usage: [
            "annolink place FILE.gpkg TABLE (FID | --at X,Y) [--to X,Y [--crs CRS] | --by DX,DY]",
            "               [--angle DEGREES] [--text TEXT] [--unplaced | --placed] [options]",
            "annolink place FILE.gpkg TABLE (FID | --at X,Y) --reset [options]",
        ],
        discussion: """
            Edits one row of an annotation table TABLE as a person does in ArcGIS Pro's
            annotation tools: --to or --by moves its anchor, --angle turns it, --text gives it
            another text, --unplaced or --placed sets its Status. Each sets the Override bit of
            what it changed (1 position, 2 angle, 4 text) as 'annolink set' does, so that
            'annotate --regenerate' and 'check --fix' keep it; the footprint is recomputed from
            the font, and PlacedFrom says 'person'. --reset clears those three bits and places
            the label by the rules, conflict-aware, as a new label is placed (its text from the
            label expression). Several options but --reset may be given together: one edit.
            One transaction with a journal entry ('annolink undo' reverts it).

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done, 64 bad usage (nothing asked, --to with --by, --reset with another
            option, --unplaced with --placed), 65 unknown table or fid, a feature
            table, a value that does not fit (an anchor beyond the CRS, an angle beyond
            ±720, an empty text, a non-finite number), a reset of a row without a
            feature or class, 66 no such file. On any error the file is unchanged.
            """,
        example: """
            annolink place loudoun.gpkg Loudoun_Address_PointsAnno_1 1 --by 20,0 --angle 15 --text "45763 ELMWOOD CT"
            annolink place loudoun.gpkg Loudoun_Address_PointsAnno_1 1 --reset
            """)

    static let to = ArgumentDeclaration.option("--to", value: "X,Y", help: """
        the label's new anchor (x east or longitude, y north or latitude)
        """)
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: """
        the CRS of --to and of --at: EPSG:n, an authority code, WKT or a PROJ
        string (default: the table's own CRS); projected with PROJ
        """)
    static let by = ArgumentDeclaration.option("--by", value: "DX,DY", help: """
        move the anchor by this vector, in the table's CRS units
        """)
    static let angle = ArgumentDeclaration.option("--angle", value: "DEGREES", help: """
        the new angle, degrees counter-clockwise from east (-720 to 720,
        stored in [0, 360))
        """)
    static let text = ArgumentDeclaration.option("--text", value: "TEXT", help: "the new text (not empty)")
    static let reset = ArgumentDeclaration.flag("--reset", help: """
        clear the hand-set Override bits and place the label by the rules
        """)
    static let unplaced = ArgumentDeclaration.flag("--unplaced", help: "set Status 1: unplaced (ArcGIS does not draw it)")
    static let placed = ArgumentDeclaration.flag("--placed", help: "set Status 0: placed")
    static let json = ArgumentDeclaration.flag("--json", help: """
        what changed, as 'annolink set --help' says, with "edit": "place"
        """)
    static let arguments = FeatureOperand.arguments + [to, crs, by, angle, text, reset, unplaced, placed, EditOutput.dryRun, json]

    var json: Bool
    var dryRun: Bool
    var feature: FeatureOperand
    var crs: String?
    var toText: String?
    var byText: String?
    var angleText: String?
    var text: String?
    var reset: Bool
    var unplaced: Bool
    var placed: Bool
    var request = PlaceAnnotation(table: "", fid: 0, command: "")

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        dryRun = arguments.flag(EditOutput.dryRun)
        reset = arguments.flag(Self.reset)
        unplaced = arguments.flag(Self.unplaced)
        placed = arguments.flag(Self.placed)
        toText = try arguments.option(Self.to)
        byText = try arguments.option(Self.by)
        angleText = try arguments.option(Self.angle)
        text = try arguments.option(Self.text)
        crs = try arguments.option(Self.crs)
        feature = try FeatureOperand(parsing: &arguments, crs: crs)
    }

    mutating func validate() throws {
        try feature.validate()
        let moves = [toText, byText].compactMap { $0 }.count
        guard moves < 2 else { throw CommandError.usage("give --to X,Y (the new anchor) or --by DX,DY (a move), not both") }
        guard !(unplaced && placed) else { throw CommandError.usage("give --unplaced or --placed, not both") }
        let asked = moves + [angleText, text].compactMap { $0 }.count + (unplaced || placed ? 1 : 0)
        if reset, asked > 0 {
            throw CommandError.usage("--reset places the label by the rules: give it alone, without --to, --by, --angle, --text, --unplaced or --placed")
        }
        guard reset || asked > 0 else { throw CommandError.usage("nothing to change: give --to, --by, --angle, --text, --unplaced, --placed or --reset") }
        if byText != nil, crs != nil, feature.location == nil {
            throw CommandError.usage("--crs is the CRS of --to and --at; --by is in the table's CRS units")
        }
        request = PlaceAnnotation(table: feature.table, fid: 0, crs: crs, text: text, reset: reset,
                                  status: unplaced ? .unplaced : placed ? .placed : nil, command: EditOutput.commandLine)
        if let toText { request.to = try EditOutput.coordinate(toText, option: Self.to.name) }
        if let byText {
            let v = try EditOutput.coordinate(byText, option: Self.by.name)
            request.by = (v.x, v.y)
        }
        if let angleText {
            guard let angle = decimalNumber(angleText.trimmingCharacters(in: .whitespaces)) else {
                throw CommandError.usage("--angle expects a number of degrees, not '\(angleText)'")
            }
            guard angle.isFinite else { throw CommandError("--angle: the angle must be a finite number, not '\(angleText)'", status: .dataError) }
            request.angle = angle
        }
    }

    func run() throws -> ExitStatus {
        let service = EditService(store: try StoreTarget.open(feature.path))
        var request = self.request
        request.fid = try feature.resolve(with: service)
        let result = try EditOutput.run(request, in: service, dryRun: dryRun)
        try EditOutput.print(result, json: json, warnings: service.annotation.warnings)
        return .success
    }
}
