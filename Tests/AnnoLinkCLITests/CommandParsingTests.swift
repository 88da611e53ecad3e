@testable import AnnoLinkCLI
import AnnoLinkChecks
import AnnoLinkEditing
import AnnoLinkGeometry
import Testing

/// Every command's arguments parsed in process, as `annolink` parses them, without spawning
/// a process or opening a file: good command lines give the declared values, bad ones the
/// usage error the user sees.
@Suite("command parsing")
struct CommandParsingTests {
    /// The usage error `parse` throws for `words`, or nil when it parses.
    func usageError<C: ParsableCommand>(_ command: C.Type, _ words: [String]) -> String? {
        do {
            _ = try C.parse(words)
            return nil
        } catch let error as CommandError {
            #expect(error.status == .usage, "\(words): \(error.message) is not a usage error")
            return error.message
        } catch {
            Issue.record("\(words): \(error)")
            return "\(error)"
        }
    }

    /// The exit status of the error `parse` throws for `words`, or nil when it parses.
    func status<C: ParsableCommand>(_ command: C.Type, _ words: [String]) -> AnnoLinkCLI.ExitStatus? {
        do {
            _ = try C.parse(words)
            return nil
        } catch let error as CommandError {
            return error.status
        } catch {
            return .software
        }
    }

    // MARK: Good command lines

    @Test func set() throws {
        let c = try SetCommand.parse(["f.gpkg", "parcels", "12", "Name=Elm Tree", "Length=NULL", "--json"])
        let feature = try #require(c.feature)
        #expect(feature.path == "f.gpkg" && feature.table == "parcels" && feature.fid == 12 && c.json && c.selection == nil)
        #expect(c.values == [FieldAssignment(field: "Name", text: "Elm Tree"), FieldAssignment(field: "Length", text: "NULL")])
        #expect(try SetCommand.parse(["f.gpkg", "t", "1", "A=b=c"]).values == [FieldAssignment(field: "A", text: "b=c")])
        #expect(try !SetCommand.parse(["f.gpkg", "t", "1", "A=b"]).dryRun && !SetCommand.parse(["f.gpkg", "t", "1", "A=b"]).allowEmpty)
        let flags = try SetCommand.parse(["f.gpkg", "t", "1", "A=", "--dry-run", "--allow-empty"])
        #expect(flags.dryRun && flags.allowEmpty && flags.values == [FieldAssignment(field: "A", text: "")])
    }

    @Test func bulkSet() throws {
        let c = try SetCommand.parse(["f.gpkg", "points", "--where", "ST_STR_NAM = 'WOODLAND'", "ST_STR_NAM=WOODLAND CT", "--dry-run"])
        guard case .condition(let clause)? = c.selection else { Issue.record("not a condition: \(String(describing: c.selection))"); return }
        #expect(clause == "ST_STR_NAM = 'WOODLAND'" && c.feature == nil && c.path == "f.gpkg" && c.table == "points" && c.dryRun)
        #expect(c.values == [FieldAssignment(field: "ST_STR_NAM", text: "WOODLAND CT")])
        let fids = try SetCommand.parse(["f.gpkg", "points", "--fids", "3,4", "A=1", "B=2"])
        guard case .fids(let ids)? = fids.selection else { Issue.record("not fids"); return }
        #expect(ids == [3, 4] && fids.values.count == 2)
        let box = try SetCommand.parse(["f.gpkg", "points", "--bbox", "1,2,3,4", "A=1"])
        guard case .boundingBox(let envelope)? = box.selection else { Issue.record("not a box"); return }
        #expect(envelope == Envelope(minX: 1, minY: 2, maxX: 3, maxY: 4))
    }

    @Test func bulkDelete() throws {
        let c = try DeleteCommand.parse(["f.gpkg", "lines", "--bbox", "1,2,3,4", "--json", "--dry-run"])
        guard case .boundingBox? = c.selection else { Issue.record("not a box"); return }
        #expect(c.feature == nil && c.json && c.dryRun && c.table == "lines")
    }

    @Test func move() throws {
        let c = try MoveCommand.parse(["f.gpkg", "points", "7", "--to", "-77.4, 39.01", "--crs=EPSG:4326"])
        #expect(c.feature.fid == 7 && c.point == Point(x: -77.4, y: 39.01) && c.crs == "EPSG:4326" && !c.json)
        #expect(try MoveCommand.parse(["--to", "1,2", "f.gpkg", "points", "7"]).crs == nil)
    }

    @Test func moveVertex() throws {
        #expect(try MoveVertexCommand.parse(["f.gpkg", "lines", "3", "--to", "1,2"]).vertex == .last)
        let c = try MoveVertexCommand.parse(["f.gpkg", "lines", "3", "--to", "1,2", "--vertex", "nearest", "--json"])
        #expect(c.vertex == .nearest && c.json && c.point == Point(x: 1, y: 2))
    }

    @Test func add() throws {
        let c = try AddCommand.parse(["f.gpkg", "lines", "--geometry", "LINESTRING (0 0, 1 1)", "Name=x"])
        #expect(c.shape == .lineString(LineString([Point(x: 0, y: 0), Point(x: 1, y: 1)])))
        #expect(c.values == [FieldAssignment(field: "Name", text: "x")])
        let geoJSON = try AddCommand.parse(["f.gpkg", "points", "--geometry", #"{"type": "Point", "coordinates": [3, 4]}"#])
        #expect(geoJSON.shape == .point(Point(x: 3, y: 4)) && geoJSON.values.isEmpty)
    }

    @Test func delete() throws {
        let c = try DeleteCommand.parse(["f.gpkg", "lines", "9"])
        #expect(c.feature?.fid == 9 && c.feature?.table == "lines" && !c.dryRun)
    }

    @Test func translate() throws {
        let fids = try TranslateCommand.parse(["f.gpkg", "lines", "--fids", "1, 2,3", "--by", "0.5,-1.25"])
        guard case .fids(let ids) = fids.selection else { Issue.record("not fids: \(fids.selection)"); return }
        #expect(ids == [1, 2, 3] && fids.offset == Point(x: 0.5, y: -1.25) && !fids.dryRun)
        let box = try TranslateCommand.parse(["f.gpkg", "lines", "--bbox", "1,2,3,4", "--by", "1,1", "--dry-run", "--json"])
        guard case .boundingBox(let envelope) = box.selection else { Issue.record("not a box: \(box.selection)"); return }
        #expect(envelope == Envelope(minX: 1, minY: 2, maxX: 3, maxY: 4) && box.dryRun && box.json)
        let condition = try TranslateCommand.parse(["f.gpkg", "lines", "--where", "LEFT_FID = 12", "--by", "1,1"])
        guard case .condition(let clause) = condition.selection else { Issue.record("not a condition"); return }
        #expect(clause == "LEFT_FID = 12")
    }

    @Test func journal() throws {
        #expect(try UndoCommand.parse(["f.gpkg", "--json"]).json)
        #expect(try !RedoCommand.parse(["f.gpkg"]).json)
        #expect(try LogCommand.parse(["f.gpkg", "--limit", "5"]).limit == 5)
        #expect(try LogCommand.parse(["f.gpkg"]).limit == nil)
    }

    @Test func readers() throws {
        let info = try InfoCommand.parse(["f.gpkg", "--table", "parcels", "--json"])
        #expect(info.only == "parcels" && info.json)
        let show = try ShowCommand.parse(["f.gpkg", "parcels", "4"])
        #expect(show.feature.fid == 4 && show.feature.table == "parcels")
    }

    @Test func importAndSample() throws {
        let i = try ImportCommand.parse(["in.geodatabase", "out.gpkg", "--json"])
        #expect(i.sourcePath == "in.geodatabase" && i.destination == "out.gpkg" && i.json)
        let defaults = try SampleCommand.parse(["s.gpkg"])
        #expect(defaults.parcels == 1000 && defaults.seed == 1)
        let s = try SampleCommand.parse(["s.gpkg", "--parcels", "2000", "--seed", "7"])
        #expect(s.parcels == 2000 && s.seed == 7)
    }

    @Test func annotate() throws {
        let c = try AnnotateCommand.parse([
            "f.gpkg", "--origin", "points", "--into", "points_anno", "--expression", "$feature.A", "--placement", "line",
            "--size", "8", "--no-auto-create", "--where", "A > 1",
        ])
        #expect(c.origin == "points" && c.into == "points_anno" && c.expression == "$feature.A" && c.placement == .line)
        #expect(c.size == 8 && c.scale == 1200 && c.font == "Tahoma" && c.name == "Default" && !c.autoCreate && c.updateOnShapeChange)
        #expect(c.whereClause == "A > 1" && c.offset == nil && c.classID == nil)
        let regenerate = try AnnotateCommand.parse(["f.gpkg", "--regenerate", "--into", "points_anno"])
        #expect(regenerate.regenerate && regenerate.into == "points_anno")
    }

    @Test func check() throws {
        let defaults = try CheckCommand.parse(["f.gpkg"])
        #expect(defaults.tolerances == CheckTolerances() && !defaults.fix && !defaults.all && defaults.table == nil)
        let c = try CheckCommand.parse(["f.gpkg", "--fix", "--all", "--table", "anno", "--position-tolerance", "2", "--angle-tolerance=0"])
        #expect(c.fix && c.all && c.table == "anno" && c.tolerances == CheckTolerances(position: 2, angle: 0))
    }

    @Test func sketch() throws {
        let defaults = try SketchCommand.parse(["f.gpkg"])
        #expect(defaults.size == Point(x: 800, y: 600) && defaults.script == nil)
        let c = try SketchCommand.parse(["f.gpkg", "--script", "s.txt", "--size", "400,300"])
        #expect(c.size == Point(x: 400, y: 300) && c.script == "s.txt")
    }

    @Test("-- ends the options: a value that looks like one is a positional")
    func doubleDash() throws {
        let c = try SetCommand.parse(["f.gpkg", "t", "1", "--", "--A=1"])
        #expect(c.values == [FieldAssignment(field: "--A", text: "1")])
    }

    @Test func serveSketchSessionBounds() throws {
        let defaults = try ServeCommand.parse(["f.gpkg"])
        #expect(defaults.sketchSessionLimit == 16 && defaults.sketchIdleSeconds == 1800)
        let c = try ServeCommand.parse(["f.gpkg", "--sketch-sessions", "3", "--sketch-idle=90.5"])
        #expect(c.sketchSessionLimit == 3 && c.sketchIdleSeconds == 90.5 && c.path == "f.gpkg")
        #expect(usageError(ServeCommand.self, ["f.gpkg", "--sketch-sessions", "0"])
            == "--sketch-sessions expects a whole number from 1 to 1024, not '0'")
        #expect(usageError(ServeCommand.self, ["f.gpkg", "--sketch-sessions", "many"])
            == "--sketch-sessions expects a whole number from 1 to 1024, not 'many'")
        #expect(usageError(ServeCommand.self, ["f.gpkg", "--sketch-idle", "0.5"])
            == "--sketch-idle expects a number of seconds from 1 to 604800 (a week), not '0.5'")
        #expect(usageError(ServeCommand.self, ["f.gpkg", "--sketch-idle", "nan"])
            == "--sketch-idle expects a number of seconds from 1 to 604800 (a week), not 'nan'")
        #expect(usageError(ServeCommand.self, ["f.gpkg", "--sketch-idle"]) == "--sketch-idle needs a value")
        #expect(ServeCommand.help.contains("\n  --sketch-sessions N ") && ServeCommand.help.contains("\n  --sketch-idle SECONDS "))
        #expect(ServeCommand.help.contains("/sketch/sessions") && ServeCommand.help.contains("docs/editor.md"))
    }

    // MARK: Bad command lines

    @Test("a missing positional argument names it", arguments: [
        (["f.gpkg", "t"], "missing FID"),
        (["f.gpkg"], "missing TABLE"),
        ([], "missing FILE.gpkg"),
        (["f.gpkg", "t", "1"], "missing FIELD=VALUE"),
    ] as [([String], String)])
    func missingPositional(words: [String], message: String) {
        #expect(usageError(SetCommand.self, words) == message)
    }

    @Test func missingOptionsAndPositionals() {
        #expect(usageError(MoveCommand.self, ["f.gpkg", "t", "1"]) == "missing --to X,Y")
        #expect(usageError(MoveVertexCommand.self, ["f.gpkg", "t", "1"]) == "missing --to X,Y")
        #expect(usageError(AddCommand.self, ["f.gpkg", "t"]) == "missing --geometry WKT|GEOJSON|ESRIJSON")
        #expect(usageError(TranslateCommand.self, ["f.gpkg", "t", "--fids", "1"]) == "missing --by DX,DY")
        #expect(usageError(TranslateCommand.self, ["f.gpkg", "t", "--by", "1,1"]) == "give exactly one of --fids, --bbox, --where")
        #expect(usageError(DeleteCommand.self, ["f.gpkg", "t"]) == "missing FID")
        #expect(usageError(SetCommand.self, ["f.gpkg", "t", "--fids", "1", "--where", "x = 1", "A=1"]) == "give exactly one of --fids, --bbox, --where")
        #expect(usageError(SetCommand.self, ["f.gpkg", "t", "--where", "x = 1"]) == "missing FIELD=VALUE")
        #expect(usageError(DeleteCommand.self, ["f.gpkg", "t", "--bbox", "1,2,3"]) == "--bbox expects MINX,MINY,MAXX,MAXY, not '1,2,3'")
        #expect(usageError(DeleteCommand.self, ["f.gpkg", "t", "--fids", "a"]) == "--fids expects whole numbers separated by commas, not 'a'")
        #expect(usageError(CheckCommand.self, ["f.gpkg", "--dry-run"]) == "--dry-run goes with --fix (a check alone writes nothing)")
        #expect(usageError(AnnotateCommand.self, ["f.gpkg", "--origin", "p", "--into", "a", "--expression", "x", "--placement", "point", "--dry-run"])
            == "--dry-run goes with --regenerate")
        #expect(usageError(ShowCommand.self, ["f.gpkg"]) == "missing TABLE")
        #expect(usageError(UndoCommand.self, []) == "missing FILE.gpkg")
        #expect(usageError(RedoCommand.self, []) == "missing FILE.gpkg")
        #expect(usageError(LogCommand.self, []) == "missing FILE.gpkg")
        #expect(usageError(InfoCommand.self, []) == "missing FILE.gpkg")
        #expect(usageError(ImportCommand.self, ["in.geodatabase"]) == "missing DEST.gpkg")
        #expect(usageError(SampleCommand.self, []) == "missing DEST.gpkg")
        #expect(usageError(CheckCommand.self, []) == "missing FILE.gpkg")
        #expect(usageError(SketchCommand.self, []) == "missing FILE.gpkg")
        #expect(usageError(AnnotateCommand.self, ["f.gpkg", "--origin", "p"]) == "missing --into ANNO_TABLE")
        #expect(usageError(AnnotateCommand.self, ["f.gpkg", "--origin", "p", "--into", "a", "--expression", "x"]) == "missing --placement point|line")
        #expect(usageError(AnnotateCommand.self, ["f.gpkg", "--regenerate", "--origin", "p"])
            == "--regenerate takes only --into; the classes are already registered")
    }

    @Test func unknownOptionsAndStrayArguments() {
        #expect(usageError(SetCommand.self, ["f.gpkg", "t", "1", "A=1", "--jsn"]) == "unknown option --jsn")
        #expect(usageError(InfoCommand.self, ["f.gpkg", "--tables", "x"]) == "unknown option --tables")
        #expect(usageError(CheckCommand.self, ["f.gpkg", "extra"]) == "unexpected argument 'extra'")
        #expect(usageError(UndoCommand.self, ["f.gpkg", "--limit", "3"]) == "unknown option --limit")
        #expect(usageError(SampleCommand.self, ["s.gpkg", "t.gpkg"]) == "unexpected argument 't.gpkg'")
        #expect(usageError(SketchCommand.self, ["f.gpkg", "--json"]) == "unknown option --json")
        #expect(usageError(MoveCommand.self, ["f.gpkg", "t", "1", "--to"]) == "--to needs a value")
    }

    @Test func badNumbers() {
        #expect(usageError(SetCommand.self, ["f.gpkg", "t", "one", "A=1"]) == "FID must be a whole number, not 'one'")
        #expect(usageError(SetCommand.self, ["f.gpkg", "t", "1", "=1"]) == "expected FIELD=VALUE, not '=1'")
        #expect(usageError(MoveCommand.self, ["f.gpkg", "t", "1", "--to", "abc"]) == "--to expects X,Y (two numbers separated by a comma), not 'abc'")
        #expect(status(MoveCommand.self, ["f.gpkg", "t", "1", "--to", "nan,1"]) == .dataError)
        #expect(usageError(MoveVertexCommand.self, ["f.gpkg", "t", "1", "--to", "1,1", "--vertex", "first"]) == "--vertex expects last or nearest, not 'first'")
        #expect(usageError(SampleCommand.self, ["s.gpkg", "--parcels", "0"]) == "--parcels expects a whole number from 1 to 50,000,000, not '0'")
        #expect(usageError(SampleCommand.self, ["s.gpkg", "--seed", "-1"]) == "--seed expects an unsigned integer, not '-1'")
        #expect(usageError(LogCommand.self, ["f.gpkg", "--limit", "0"]) == "--limit expects a positive whole number, not '0'")
        #expect(usageError(CheckCommand.self, ["f.gpkg", "--angle-tolerance", "-1"]) == "--angle-tolerance expects a number of degrees, 0 or more, not '-1'")
        #expect(usageError(AnnotateCommand.self, ["f.gpkg", "--regenerate", "--size", "0"]) == "--size expects a positive number, not '0'")
        #expect(usageError(AnnotateCommand.self, ["f.gpkg", "--regenerate", "--placement", "area"]) == "--placement expects point or line, not 'area'")
        #expect(usageError(TranslateCommand.self, ["f.gpkg", "t", "--fids", "a,b", "--by", "1,1"])
            == "--fids expects whole numbers separated by commas, not 'a,b'")
        #expect(usageError(TranslateCommand.self, ["f.gpkg", "t", "--bbox", "1,2,3", "--by", "1,1"]) == "--bbox expects MINX,MINY,MAXX,MAXY, not '1,2,3'")
        #expect(usageError(TranslateCommand.self, ["f.gpkg", "t", "--bbox", "3,2,1,4", "--by", "1,1"]) == "--bbox: MINX must not exceed MAXX, nor MINY MAXY")
        #expect(status(TranslateCommand.self, ["f.gpkg", "t", "--bbox", "1,2,3,nan", "--by", "1,1"]) == .dataError)
        #expect(usageError(SketchCommand.self, ["f.gpkg", "--size", "0,10"]) == "--size expects two positive numbers of points, not 0.0,10.0")
        #expect(usageError(AddCommand.self, ["f.gpkg", "t", "--geometry", "LINESTRING (1 2"])?.hasPrefix("--geometry: ") == true)
    }

    @Test("--help anywhere asks for help, for every command")
    func help() {
        for command in AnnoLinkCommand.commands {
            for words in [["--help"], ["f.gpkg", "-h"], ["f.gpkg", "t", "--help", "--unknown"]] {
                #expect(throws: HelpRequest.self, "\(command.name) \(words)") { _ = try command.parse(words) }
            }
        }
    }

    // MARK: Generated help

    @Test("every command's help starts with its usage and lists each option once")
    func generatedHelp() {
        for command in AnnoLinkCommand.commands {
            let help = command.help
            #expect(help.hasPrefix("usage: annolink \(command.name)"), "\(command.name)")
            #expect(help.contains("\nexit status: "), "\(command.name)")
            #expect(!help.hasSuffix("\n") && !help.contains(" \n"), "\(command.name): trailing white space")
            let listed = help.split(separator: "\n").filter { $0.hasPrefix("  --") }.map { String($0.dropFirst(2).prefix { $0 != " " }) }
            let declared = command.arguments.filter { $0.kind == .option || $0.kind == .flag }.map(\.name)
            #expect(listed == declared, "\(command.name)")
            for argument in command.arguments where argument.inUsage && command.configuration.usage == nil {
                #expect(help.split(separator: "\n\n")[0].contains(argument.label), "\(command.name): \(argument.label) not in the usage")
            }
        }
    }

    @Test func usageLines() {
        #expect(SetCommand.help.hasPrefix("""
            usage: annolink set FILE.gpkg TABLE (FID | --at X,Y [--crs CRS]) FIELD=VALUE... [options]
                   annolink set FILE.gpkg TABLE (--fids 1,2,3 | --bbox MINX,MINY,MAXX,MAXY | --where SQL)
                                FIELD=VALUE... [options]

            """))
        #expect(SetCommand.help.contains("\nselection (exactly one):\n  --fids 1,2,3 "))
        #expect(SetCommand.help.contains("\n  --dry-run ") && SetCommand.help.contains("\n  --allow-empty "))
        #expect(MoveCommand.help.hasPrefix("""
            usage: annolink move FILE.gpkg TABLE (FID | --at X,Y) --to X,Y [--crs CRS] [--force] [--dry-run]
                                 [--json]

            """))
        #expect(IdentifyCommand.help.hasPrefix(
            "usage: annolink identify FILE.gpkg X,Y [--crs CRS] [--tolerance D] [--table T] [--json]\n"))
        #expect(AddCommand.help.hasPrefix("""
            usage: annolink add FILE.gpkg TABLE --geometry WKT|GEOJSON|ESRIJSON [--crs CRS] [FIELD=VALUE...]
                                [--allow-empty] [--force] [--dry-run] [--json]

            """))
        for help in [MoveCommand.help, MoveVertexCommand.help, DeleteCommand.help, CheckCommand.help, AnnotateCommand.help] {
            #expect(help.contains("\n  --dry-run "))
        }
        #expect(TranslateCommand.help.hasPrefix("""
            usage: annolink translate FILE.gpkg TABLE (--fids 1,2,3 | --bbox MINX,MINY,MAXX,MAXY | --where SQL)
                                      --by DX,DY [--dry-run] [--json]

            """))
        #expect(TranslateCommand.help.contains("\nselection (exactly one):\n  --fids 1,2,3 "))
    }

    @Test("the top-level main answers help and unknown commands without running anything")
    func main() {
        #expect(AnnoLinkCommand.main(["set", "--help"]) == 0)
        #expect(AnnoLinkCommand.main(["no-such-command"]) == 64)
        #expect(AnnoLinkCommand.main(["set", "f.gpkg"]) == 64)
    }
}
