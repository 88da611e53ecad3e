@testable import AnnoLinkCLI
import AnnoLinkEditing
import AnnoLinkGeometry
import Testing

/// `TABLE FID` and `TABLE --at X,Y [--crs CRS]`, parsed in process for every command that takes
/// them, and `identify`'s arguments.
@Suite("feature operand and identify parsing")
struct FeatureOperandTests {
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

    @Test("--at instead of FID, on show, set, move, move-vertex and delete")
    func at() throws {
        let show = try ShowCommand.parse(["f.gpkg", "points", "--at", "-77.4,39.01", "--crs", "EPSG:4326", "--json"])
        #expect(show.feature.fid == nil && show.feature.location == Point(x: -77.4, y: 39.01) && show.feature.crs == "EPSG:4326" && show.json)
        let set = try SetCommand.parse(["f.gpkg", "points", "--at", "11790000,7056000", "ST_STR_NAM=ELM"])
        #expect(set.feature?.fid == nil && set.feature?.location == Point(x: 11_790_000, y: 7_056_000) && set.feature?.crs == nil)
        #expect(set.values.map(\.field) == ["ST_STR_NAM"])
        let delete = try DeleteCommand.parse(["--at=1,2", "f.gpkg", "points"])
        #expect(delete.feature?.location == Point(x: 1, y: 2) && delete.feature?.table == "points")
        // move: --at picks the point, --to is where it goes, --crs is the CRS of both.
        let move = try MoveCommand.parse(["f.gpkg", "points", "--at", "1,2", "--to", "3,4", "--crs", "EPSG:4326"])
        #expect(move.feature.location == Point(x: 1, y: 2) && move.point == Point(x: 3, y: 4))
        #expect(move.crs == "EPSG:4326" && move.feature.crs == "EPSG:4326")
        let vertex = try MoveVertexCommand.parse(["f.gpkg", "lines", "--to", "3,4", "--at", "1,2", "--vertex", "nearest"])
        #expect(vertex.feature.location == Point(x: 1, y: 2) && vertex.point == Point(x: 3, y: 4) && vertex.feature.crs == nil)
        // A FID still works, and is read as before.
        let byFid = try SetCommand.parse(["f.gpkg", "points", "12", "A=b"])
        #expect(byFid.feature?.fid == 12 && byFid.feature?.location == nil)
    }

    @Test("FID and --at together, a malformed --at, neither: usage errors")
    func refusals() {
        #expect(usageError(ShowCommand.self, ["f.gpkg", "t", "12", "--at", "1,2"]) == "give FID or --at X,Y, not both")
        #expect(usageError(SetCommand.self, ["f.gpkg", "t", "12", "--at", "1,2", "A=b"]) == "give FID or --at X,Y, not both")
        #expect(usageError(DeleteCommand.self, ["f.gpkg", "t", "--at", "1"]) == "--at expects X,Y (two numbers separated by a comma), not '1'")
        #expect(usageError(ShowCommand.self, ["f.gpkg", "t"]) == "missing FID")
        #expect(usageError(SetCommand.self, ["f.gpkg", "t", "--at", "1,2"]) == "missing FIELD=VALUE")
        #expect(usageError(MoveCommand.self, ["f.gpkg", "t", "--at", "1,2"]) == "missing --to X,Y")
        // move and move-vertex have one --crs, for --to and --at.
        #expect(usageError(MoveCommand.self, ["f.gpkg", "t", "--at", "1,2", "--to", "3,4", "--crs", "A", "--crs", "B"]) == "unknown option --crs")
    }

    @Test("identify: a location with a minus sign is a positional, not an option")
    func identify() throws {
        let c = try IdentifyCommand.parse(["f.gpkg", "-77.4012,39.0101", "--crs", "EPSG:4326", "--tolerance", "2.5", "--table", "points", "--json"])
        #expect(c.point == Point(x: -77.4012, y: 39.0101) && c.crs == "EPSG:4326" && c.toleranceValue == 2.5 && c.table == "points" && c.json)
        #expect(try IdentifyCommand.parse(["f.gpkg", "1,2"]).toleranceValue == nil)
        #expect(usageError(IdentifyCommand.self, ["f.gpkg"]) == "missing X,Y")
        #expect(usageError(IdentifyCommand.self, ["f.gpkg", "1,2", "--tolerance", "-1"]) == "--tolerance expects a distance of at least 0 in map units, not '-1'")
        #expect(usageError(IdentifyCommand.self, ["f.gpkg", "1,2", "--tolerance", "nan"]) == "--tolerance expects a distance of at least 0 in map units, not 'nan'")
        #expect(usageError(IdentifyCommand.self, ["f.gpkg", "1,2,3"]) == "the location expects X,Y (two numbers separated by a comma), not '1,2,3'")
        #expect(usageError(IdentifyCommand.self, ["f.gpkg", "1,2", "--bogus"]) == "unknown option --bogus")
    }

    @Test("an ambiguous or empty location: one error line, then the candidates indented; other errors have no details")
    func details() {
        let error = EditError.ambiguousLocation(table: "lines", location: "1,2", tolerance: 13.8889,
            candidates: [.init(fid: 7, distance: 0), .init(fid: 9, distance: 1e-7), .init(fid: 3, distance: 4.25)], more: 2)
        let (message, status) = AnnoLinkCommand.describe(error)
        #expect(status == .dataError)
        #expect(message == "1,2 is ambiguous: the nearest of the 5 features of lines within 13.889 (map units) are equally near (0.000); give the FID")
        #expect(AnnoLinkCommand.details(error) == ["fid 7 at 0.000", "fid 9 at 0.000", "fid 3 at 4.250", "and 2 more"])
        let nothing = EditError.nothingAtLocation(table: "lines", location: "1,2", tolerance: 1, nearest: [.init(fid: 4, distance: 2.5)])
        #expect(AnnoLinkCommand.describe(nothing).0 == "nothing in lines within 1.000 (map units) of 1,2; the nearest beyond it:")
        #expect(AnnoLinkCommand.details(nothing) == ["fid 4 at 2.500"])
        let none = EditError.nothingAtLocation(table: "lines", location: "1,2", tolerance: 1, nearest: [])
        #expect(AnnoLinkCommand.describe(none).0 == "nothing in lines within 1.000 (map units) of 1,2, nor within 1000.000")
        #expect(AnnoLinkCommand.details(none).isEmpty)
        #expect(AnnoLinkCommand.details(CommandError.usage("x")).isEmpty)
    }
}
