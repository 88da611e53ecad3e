import AnnoLinkEngine
import AnnoLinkStore
import Foundation

/// A spatial reference as Esri names it: a `wkid` (with `latestWkid`) or WKT, and the PROJ
/// name of the same CRS.
struct EsriSpatialReference: Equatable {
    /// What PROJ is given: `EPSG:n`, or the WKT.
    var projName: String
    var wkid: Int64?
    var latestWkid: Int64?
    var wkt: String?

    /// Esri's own ids for Web Mercator, which EPSG calls 3857.
    static let webMercatorIDs: Set<Int64> = [102100, 102113, 900913]

    init(projName: String, wkid: Int64?, latestWkid: Int64?, wkt: String?) {
        self.projName = projName
        self.wkid = wkid
        self.latestWkid = latestWkid
        self.wkt = wkt
    }

    /// The spatial reference with id `wkid` (Esri's or EPSG's).
    init(wkid: Int64) {
        let epsg = Self.webMercatorIDs.contains(wkid) ? 3857 : wkid
        projName = "EPSG:\(epsg)"
        self.wkid = wkid
        latestWkid = epsg
    }

    /// The spatial reference of a table's CRS: its EPSG code when it has one, else its WKT.
    init(_ srs: SpatialReferenceSystem) {
        if srs.organization.uppercased() == "EPSG" {
            self.init(wkid: srs.organizationCoordsysID)
        } else {
            self.init(projName: srs.definition, wkid: nil, latestWkid: nil, wkt: srs.definition)
        }
    }

    /// Reads an `inSR` or `outSR` parameter: a number, or Esri JSON `{"wkid": n}`,
    /// `{"latestWkid": n}` or `{"wkt": "…"}`.
    ///
    /// - Throws: `FeatureServerError.invalidParameter` for anything else, and for WKT that
    ///   `CRSDefinitionGate` refuses (a PROJ string, a file reference, too long or too deep).
    init(parameter text: String, name: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let n = Int64(trimmed), n > 0 {
            self.init(wkid: n)
            return
        }
        guard let json = try? JSONInput(parsing: trimmed) else {
            throw FeatureServerError.invalidParameter(name, "'\(Self.quoted(text))' is not a wkid or a spatial reference object")
        }
        if let n = json["latestWkid"]?.integerValue ?? json["wkid"]?.integerValue, n > 0 {
            self.init(wkid: json["wkid"]?.integerValue ?? n)
            if let latest = json["latestWkid"]?.integerValue, !Self.webMercatorIDs.contains(latest) { projName = "EPSG:\(latest)"; latestWkid = latest }
        } else if case .string(let wkt)? = json["wkt"] {
            // A client's text is data, never a path: refused here, in the parameter's words,
            // before any transformation is looked for (docs/serve.md, "CRS text").
            do {
                try CRSDefinitionGate.check(wkt, acceptingPROJStrings: false)
            } catch {
                throw FeatureServerError.invalidParameter(name, error.description)
            }
            self.init(projName: wkt, wkid: nil, latestWkid: nil, wkt: wkt)
        } else {
            throw FeatureServerError.invalidParameter(name, "'\(Self.quoted(text))' names no wkid, latestWkid or wkt")
        }
    }

    /// A parameter as an error message quotes it: whole up to 200 characters, else its start.
    static func quoted(_ text: String) -> String {
        text.count > 200 ? "\(text.prefix(60))… (\(text.utf8.count) bytes)" : text
    }

    /// The Esri JSON object.
    var json: JSONText {
        var members: [(String, JSONText)] = []
        if let wkid { members.append(("wkid", .integer(wkid))) }
        if let latestWkid { members.append(("latestWkid", .integer(latestWkid))) }
        if let wkt { members.append(("wkt", .string(wkt))) }
        return .object(members)
    }

    /// Whether both name the same CRS (without asking PROJ: same EPSG code or same text).
    func isSame(as other: EsriSpatialReference) -> Bool { projName == other.projName }
}
