import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkTestSupport
import Foundation
import Testing

/// PROJJSON of a projected CRS whose `base_crs` is itself a projected CRS, `levels` deep: what
/// overflowed a thread's stack inside PROJ's recursive parser at 70,000 levels (issue 25).
func nestedPROJJSON(levels: Int) -> String {
    let open = #"{"type":"ProjectedCRS","name":"nested","base_crs":"#
    let close = #","conversion":{"name":"c","method":{"name":"m"}}}"#
    return String(repeating: open, count: levels) + #"{"type":"GeographicCRS","name":"g"}"# + String(repeating: close, count: levels)
}

/// `CRSDefinitionGate`: what CRS text reaches PROJ (docs/engine.md, "What CRS text is accepted").
@Suite struct CRSDefinitionGateTests {
    /// The reason the gate gives for `definition`, nil when it accepts it.
    func refusal(_ definition: String, acceptingPROJStrings: Bool = false) -> String? {
        do {
            try CRSDefinitionGate.check(definition, acceptingPROJStrings: acceptingPROJStrings)
            return nil
        } catch {
            guard case .refusedCRS(let crs, let reason) = error else { return "unexpected \(error)" }
            #expect(crs == definition)
            return reason
        }
    }

    @Test func the70000DeepPROJJSONIsRefusedBeforePROJSeesIt() throws {
        let deep = nestedPROJJSON(levels: 70_000)
        #expect(deep.utf8.count > 5_000_000)
        #expect(refusal(deep) == "it is \(deep.utf8.count) bytes long; at most 65536 are accepted")
        // Through the transformer: an error, not a crash of this test process.
        let transformer = try CoordinateTransformer()
        let error = try #require(throws: EngineError.self) { try transformer.referenceSystem(deep) }
        #expect(error.description == "coordinate reference system '\(deep.prefix(60))… (\(deep.utf8.count) bytes)' refused: "
                + "it is \(deep.utf8.count) bytes long; at most 65536 are accepted")
    }

    @Test func nestingIsBoundedWithinTheLengthLimit() throws {
        // 40 levels are 3 KB, far under the length limit.
        let deep = nestedPROJJSON(levels: 40)
        #expect(deep.utf8.count < CRSDefinitionGate.maximumLength)
        #expect(refusal(deep) == "it nests 42 levels deep; at most 32 are accepted")
        let wkt = String(repeating: "COMPOUNDCRS[\"c\",", count: 40) + "GEOGCRS[\"g\"]" + String(repeating: "]", count: 40)
        #expect(refusal(wkt) == "it nests 41 levels deep; at most 32 are accepted")
        // Parentheses are WKT's other brackets.
        #expect(refusal(String(repeating: "PROJCS(", count: 33) + String(repeating: ")", count: 33)) == "it nests 33 levels deep; at most 32 are accepted")
        #expect(refusal(nestedPROJJSON(levels: 29)) == nil)
        let transformer = try CoordinateTransformer()
        let error = try #require(throws: EngineError.self) { try transformer.referenceSystem(deep) }
        guard case .refusedCRS = error else { Issue.record("unexpected \(error)"); return }
    }

    @Test func quotedTextNeitherCountsNorHidesNesting() {
        // Brackets inside a WKT name are not nesting.
        #expect(refusal(#"GEOGCS["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",DATUM["d",SPHEROID["s",6378137,298.257223563]]]"#) == nil)
        // A JSON escape read as WKT closes the string early and would hide what follows; the
        // gate counts under both readings.
        let hiding = #"{"name":"\"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "x":"# + nestedPROJJSON(levels: 40) + "}"
        #expect(refusal(hiding)?.hasPrefix("it nests ") == true)
        // And a backslash ending a WKT string, read as a JSON escape.
        let backslash = #"PROJCS["a\""# + String(repeating: "[", count: 40) + "]"
        #expect(refusal(backslash) == "it nests 41 levels deep; at most 32 are accepted")
    }

    static let fileReferences: [(definition: String, reference: String)] = [
        ("+init=/etc/passwd:root", "init="),
        ("+proj=longlat +init = epsg:4326", "init="),
        ("init=epsg:4326", "init="),
        ("+proj=longlat +ellps=GRS80 +nadgrids=/tmp/conus", "nadgrids="),
        ("+proj=longlat +ellps=GRS80 +nadgrids=@null,@conus", "nadgrids="),
        ("+proj=longlat +datum=WGS84 +geoidgrids=egm96_15.gtx", "geoidgrids="),
        ("+proj=hgridshift +grids=ca_nrc_ntv2_0.tif", "grids="),
        ("+proj=tinshift +file=./triangles.json", "file="),
        ("+proj=defmodel +model=model.json", "model="),
        (#"GEOGCS["x",DATUM["d",SPHEROID["s",6378137,298.257223563]],EXTENSION["PROJ4","+proj=longlat +INIT=/etc/passwd:root"]]"#, "init="),
        (#"GEOGCS["x",DATUM["d",SPHEROID["s",6378137,298.257223563]],EXTENSION["PROJ4_GRIDS","@conus"]]"#, "proj4_grids"),
        (#"BOUNDCRS[SOURCECRS[GEOGCRS["x"]],TARGETCRS[GEOGCRS["y"]],ABRIDGEDTRANSFORMATION["t",METHOD["NTv2"],PARAMETERFILE["Latitude and longitude difference file","/dev/zero"]]]"#, "parameterfile["),
        (#"VERTCRS["h",VDATUM["v"],CS[vertical,1],AXIS["up",up],GEOIDMODEL["/tmp/geoid"]]"#, "geoidmodel["),
        (#"{"type":"BoundCRS","transformation":{"parameters":[{"name":"f","parameter_file":"/dev/zero"}]}}"#, "parameter_file"),
        (#"GEOGTRAN["t",GEOGCS["a"],GEOGCS["b"],METHOD["NTv2"],PARAMETER["Dataset_/etc/passwd",0.0]]"#, "dataset_"),
    ]

    @Test("each file or grid reference is refused, from any source", arguments: fileReferences)
    func fileReferenceIsRefused(definition: String, reference: String) throws {
        let reason = "it refers to a file or grid (\(reference)); only EPSG or ESRI codes, WKT and PROJJSON without file references are accepted"
        #expect(refusal(definition, acceptingPROJStrings: false) == reason)
        #expect(refusal(definition, acceptingPROJStrings: true) == reason)
    }

    /// A FIFO would block PROJ's read forever; the gate answers before PROJ opens anything.
    @Test func initOfAFIFOIsRefusedAtOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crs-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let transformer = try CoordinateTransformer()
        let error = try #require(throws: EngineError.self) { try transformer.referenceSystem("+init=\(fifo):x") }
        #expect(error.description.hasPrefix("coordinate reference system '+init=\(fifo):x' refused: it refers to a file or grid (init=)"))
    }

    @Test func projStringsOnlyWhereAccepted() throws {
        let projString = "+proj=longlat +datum=WGS84 +no_defs"
        #expect(refusal(projString, acceptingPROJStrings: false) == "PROJ strings are not accepted here; give an EPSG or ESRI code (EPSG:2924), WKT or PROJJSON")
        #expect(refusal("proj=longlat +datum=WGS84", acceptingPROJStrings: false)?.hasPrefix("PROJ strings are not accepted") == true)
        #expect(refusal(projString, acceptingPROJStrings: true) == nil)
        #expect(refusal("/etc/passwd") == "it is not an authority code (EPSG:2924), WKT or PROJJSON")
        #expect(refusal("") == "it is empty")
        #expect(refusal("EPSG:4326\u{0}+init=/etc/passwd") == "it contains a NUL character")

        let strict = try CoordinateTransformer(acceptsPROJStrings: false)
        #expect(throws: EngineError.self) { try strict.referenceSystem(projString) }
        #expect(try CoordinateTransformer().referenceSystem(projString).isGeographic)
    }

    /// WKT of Esri's ESRI:102747 as `projinfo -o WKT1_ESRI` writes it.
    static let esriWKT = #"PROJCS["NAD_1983_StatePlane_Virginia_South_FIPS_4502_Feet",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],PARAMETER["False_Easting",11482916.6666667],PARAMETER["False_Northing",3280833.33333333],PARAMETER["Central_Meridian",-78.5],PARAMETER["Standard_Parallel_1",36.7666666666667],PARAMETER["Standard_Parallel_2",37.9666666666667],PARAMETER["Latitude_Of_Origin",36.3333333333333],UNIT["US survey foot",0.304800609601219]]"#

    @Test("codes, WKT and PROJJSON are accepted and name the CRS PROJ knows", arguments: ["EPSG:2924", "EPSG:5514", "EPSG:3067", "EPSG:3857"])
    func legitimateDefinitions(code: String) throws {
        let strict = try CoordinateTransformer(acceptsPROJStrings: false)
        let byCode = try strict.referenceSystem(code)
        let wkt1 = try #require(byCode.wkt1), wkt2 = try #require(byCode.wkt2)
        let number = String(code.dropFirst("EPSG:".count))
        let projJSON = try ExternalTool.require("projinfo", package: "proj-bin").run(["-o", "PROJJSON", "-q", code]).stdout
        for definition in [number, "urn:ogc:def:crs:EPSG::\(number)", "http://www.opengis.net/def/crs/EPSG/0/\(number)", wkt1, wkt2, projJSON] {
            #expect(refusal(definition) == nil, "\(definition.prefix(80))")
            #expect(try strict.referenceSystem(definition).name == byCode.name)
        }
        if code == "EPSG:3857" {
            // GDAL's WKT 1 of Web Mercator carries PROJ's null grid, which names no file.
            #expect(wkt1.contains("+nadgrids=@null"))
        }
    }

    @Test func esriCodesAndWKTAreAccepted() throws {
        let strict = try CoordinateTransformer(acceptsPROJStrings: false)
        #expect(try strict.referenceSystem("ESRI:102747").name == "NAD_1983_StatePlane_Virginia_South_FIPS_4502_Feet")
        // PROJ reads Esri's WKT as the EPSG CRS it is.
        #expect(try strict.referenceSystem(Self.esriWKT).name == "NAD83 / Virginia South (ftUS)")
        #expect(try strict.referenceSystem("OGC:CRS84").isGeographic)
        // The projection's origin; `cs2cs ESRI:102747 EPSG:4326` answers 36.3333333333 -78.5 (within 1e-8°, 1 mm).
        let point = try strict.transform(Point(x: 11482916.6666667, y: 3280833.33333333), from: Self.esriWKT, to: "EPSG:4326")
        #expect(abs(point.x - -78.5) < 1e-8 && abs(point.y - 36.3333333333) < 1e-8, "\(point)")
    }
}
