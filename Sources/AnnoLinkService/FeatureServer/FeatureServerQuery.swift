import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// A layer's `query` operation, parsed: the parameters turned into a `FeatureQuery` in the
/// layer's CRS, and what to answer (features, a count, ids or an extent) in which CRS.
struct FeatureServerQuery {
    enum Answer { case features, count, ids, extent, extentAndCount, aggregate, aggregateCount }

    let layer: FeatureServerLayer
    var query: FeatureQuery
    var answer = Answer.features
    /// The attribute columns asked for (`outFields`), as the table spells them.
    var outColumns: [String]
    var outSR: EsriSpatialReference?
    let layerSR: EsriSpatialReference?
    /// Distinct values or statistics (`returnDistinctValues`, `outStatistics`), when asked for.
    var aggregate: FeatureServerAggregate?

    /// Esri's distance units, in metres.
    static let unitMetres: [String: Double] = [
        "esrisrunit_meter": 1, "esrisrunit_kilometer": 1000, "esrisrunit_foot": 0.3048,
        "esrisrunit_surveyfoot": 1200.0 / 3937.0, "esrisrunit_statutemile": 1609.344,
        "esrisrunit_nauticalmile": 1852, "esrisrunit_usnauticalmile": 1853.248,
    ]

    /// Parses the parameters of a query on `layer`; with `sublayer`, on that annotation class's
    /// rows of it only (`FeatureServerSublayer.classCondition`, ANDed with `where`).
    ///
    /// - Throws: `FeatureServerError.invalidParameter` naming the parameter and what was wrong.
    init(parameters p: [String: String], layer: FeatureServerLayer, sublayer: FeatureServerSublayer? = nil,
         package: any FeatureStore, maxRecordCount: Int) throws {
        self.layer = layer
        let table = layer.table
        layerSR = layer.srs.map(EsriSpatialReference.init)
        query = FeatureQuery(table: table)

        func flag(_ name: String) throws -> Bool {
            guard let text = p[name]?.lowercased(), !text.isEmpty else { return false }
            switch text {
            case "true": return true
            case "false": return false
            default: throw FeatureServerError.invalidParameter(name, "'\(text)' is not true or false")
            }
        }
        func column(_ name: String, for parameter: String) throws -> String {
            guard let c = table.column(name.trimmingCharacters(in: .whitespaces)), c.name.lowercased() != table.geometryColumn.lowercased() else {
                throw FeatureServerError.invalidParameter(parameter, "'\(name)' is not a field of \(table.name)")
            }
            return c.name
        }

        // Attribute filters.
        if let text = p["where"], !text.allSatisfy(\.isWhitespace), text.trimmingCharacters(in: .whitespaces) != "1=1" {
            do {
                // The guard of `translate --where`: one expression, reading this table only.
                query.condition = try package.checkedCondition(text, on: table.name)
            } catch let refusal as SQLCondition.Refusal {
                throw FeatureServerError.invalidParameter("where", "'\(text)' \(refusal.description)")
            }
        }
        if let sublayer {
            // The caller's condition was checked alone above, so its refusals name its own text.
            let own = query.condition.map { " AND \($0.sql)" } ?? ""
            query.condition = try package.checkedCondition(sublayer.classCondition + own, on: table.name)
        }
        if let text = p["objectIds"], !text.allSatisfy(\.isWhitespace) {
            query.featureIDs = try text.split(separator: ",").map {
                guard let id = Int64($0.trimmingCharacters(in: .whitespaces)) else {
                    throw FeatureServerError.invalidParameter("objectIds", "'\($0)' is not an object id")
                }
                return id
            }
        }

        // The spatial filter, in the layer's CRS.
        if let text = p["geometry"], !text.allSatisfy(\.isWhitespace) {
            var (shape, ownSR) = try Self.geometry(text, type: p["geometryType"])
            var inSR = ownSR
            if let text = p["inSR"], !text.isEmpty { inSR = try EsriSpatialReference(parameter: text, name: "inSR") }
            if let inSR, let layerSR, !inSR.isSame(as: layerSR) {
                shape = try Self.transform(shape, from: inSR, to: layerSR, parameter: "inSR")
            }
            var distance = 0.0
            if let text = p["distance"], !text.isEmpty {
                guard let d = Double(text), d.isFinite, d >= 0 else {
                    throw FeatureServerError.invalidParameter("distance", "'\(text)' is not a distance")
                }
                distance = d
                if let units = p["units"], !units.isEmpty {
                    guard let metres = Self.unitMetres[units.lowercased()] else {
                        throw FeatureServerError.invalidParameter(
                            "units", "'\(units)' is not one of esriSRUnit_Meter, _Kilometer, _Foot, _SurveyFoot, _StatuteMile, _NauticalMile, _USNauticalMile")
                    }
                    guard let perUnit = layer.srs?.metresPerUnitFromDefinition else {
                        throw FeatureServerError.invalidParameter(
                            "units", "the layer's CRS is not projected, so a distance in \(units) cannot be measured in it")
                    }
                    distance = d * metres / perUnit
                }
            }
            guard var envelope = shape.envelope else { throw FeatureServerError.invalidParameter("geometry", "the geometry is empty") }
            envelope = Envelope(minX: envelope.minX - distance, minY: envelope.minY - distance, maxX: envelope.maxX + distance, maxY: envelope.maxY + distance)
            query.envelope = envelope
            switch (p["spatialRel"] ?? "esriSpatialRelIntersects").lowercased() {
            case "esrispatialrelintersects", "":
                query.spatialTest = distance > 0 ? .withinDistance(shape, distance) : .intersects(shape)
            case "esrispatialrelenvelopeintersects", "esrispatialrelindexintersects":
                break
            default:
                throw FeatureServerError.invalidParameter(
                    "spatialRel", "'\(p["spatialRel"]!)' is not supported: use esriSpatialRelIntersects or esriSpatialRelEnvelopeIntersects")
            }
        }

        // What to answer.
        let countOnly = try flag("returnCountOnly"), idsOnly = try flag("returnIdsOnly"), extentOnly = try flag("returnExtentOnly")
        answer = extentOnly ? (countOnly ? .extentAndCount : .extent) : countOnly ? .count : idsOnly ? .ids : .features
        let outFieldsText = p["outFields"]?.trimmingCharacters(in: .whitespaces) ?? ""
        if outFieldsText == "*" {
            outColumns = table.attributeColumns.map(\.name)
        } else {
            let named = try outFieldsText.split(separator: ",").map { try column(String($0), for: "outFields") }
            outColumns = named.filter { $0.lowercased() != table.primaryKey.lowercased() }
        }
        query.columns = outColumns
        query.readsGeometry = p["returnGeometry"].map { $0.lowercased() != "false" } ?? true
        if let text = p["outSR"], !text.isEmpty { outSR = try EsriSpatialReference(parameter: text, name: "outSR") }

        // Aggregates: statistics per group, or the distinct values of the out fields.
        if let text = p["having"], !text.allSatisfy(\.isWhitespace) {
            throw FeatureServerError.invalidParameter("having", "is not supported")
        }
        if let text = p["outStatistics"], !text.allSatisfy(\.isWhitespace) {
            let groupBy = try (p["groupByFieldsForStatistics"] ?? "").split(separator: ",").map {
                try column(String($0), for: "groupByFieldsForStatistics")
            }
            aggregate = FeatureServerAggregate(
                fields: groupBy, statistics: try FeatureServerAggregate.statistics(text) { try column($0, for: "outStatistics") })
        } else if try flag("returnDistinctValues") {
            guard !outColumns.isEmpty else {
                throw FeatureServerError.invalidParameter("outFields", "returnDistinctValues needs outFields naming the fields (not the object id)")
            }
            aggregate = FeatureServerAggregate(fields: outColumns, statistics: [])
        }
        if aggregate != nil {
            answer = countOnly ? .aggregateCount : .aggregate
            query.readsGeometry = false
        }

        if let text = p["orderByFields"], !text.allSatisfy(\.isWhitespace) {
            let terms = try Self.orderTerms(text)
            if aggregate != nil {
                try aggregate!.setOrder(terms)
            } else {
                query.order = try terms.map { FeatureQuery.Order(column: try column($0.name, for: "orderByFields"), descending: $0.descending) }
            }
        }
        func count(_ name: String) throws -> Int? {
            guard let text = p[name], !text.isEmpty else { return nil }
            guard let n = Int(text), n >= 0 else { throw FeatureServerError.invalidParameter(name, "'\(text)' is not a whole number ≥ 0") }
            return n
        }
        query.offset = try count("resultOffset") ?? 0
        query.limit = min(try count("resultRecordCount") ?? maxRecordCount, maxRecordCount)
    }

    /// The terms of `orderByFields`: `FIELD [ASC|DESC], …`, each name as written.
    static func orderTerms(_ text: String) throws -> [(name: String, descending: Bool)] {
        try text.split(separator: ",").map { term in
            let words = term.split(separator: " ", omittingEmptySubsequences: true)
            let direction = words.count == 2 ? words[1].uppercased() : "ASC"
            guard let first = words.first, words.count <= 2, direction == "ASC" || direction == "DESC" else {
                throw FeatureServerError.invalidParameter("orderByFields", "'\(term)' is not FIELD [ASC|DESC]")
            }
            return (String(first), direction == "DESC")
        }
    }

    /// The query geometry: Esri JSON (with `xmin`… an envelope) or the short forms
    /// `xmin,ymin,xmax,ymax` and `x,y`; and the spatial reference it names.
    static func geometry(_ text: String, type: String?) throws -> (Geometry, EsriSpatialReference?) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{") {
            guard let json = try? JSONInput(parsing: trimmed) else { throw FeatureServerError.invalidParameter("geometry", "it is not JSON") }
            var reference: EsriSpatialReference?
            if let sr = json["spatialReference"], sr != .null {
                reference = try EsriSpatialReference(parameter: sr.json.rendered(), name: "geometry.spatialReference")
            }
            if json["xmin"] != nil {
                guard let minX = json["xmin"]?.doubleValue, let minY = json["ymin"]?.doubleValue, let maxX = json["xmax"]?.doubleValue,
                      let maxY = json["ymax"]?.doubleValue, minX <= maxX, minY <= maxY else {
                    throw FeatureServerError.invalidParameter("geometry", "an envelope needs numbers xmin ≤ xmax and ymin ≤ ymax")
                }
                return (rectangle(Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)), reference)
            }
            do {
                return (try EsriJSONGeometry(esriJSON: trimmed).geometry, reference)
            } catch {
                throw FeatureServerError.invalidParameter("geometry", "\(error)")
            }
        }
        let numbers = trimmed.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.allSatisfy({ $0?.isFinite == true }) else {
            throw FeatureServerError.invalidParameter("geometry", "'\(text)' is not x,y or xmin,ymin,xmax,ymax")
        }
        let n = numbers.map { $0! }
        switch n.count {
        case 2: return (.point(Point(x: n[0], y: n[1])), nil)
        case 4 where n[0] <= n[2] && n[1] <= n[3]: return (rectangle(Envelope(minX: n[0], minY: n[1], maxX: n[2], maxY: n[3])), nil)
        default: throw FeatureServerError.invalidParameter("geometry", "'\(text)' is not x,y or xmin,ymin,xmax,ymax (with xmin ≤ xmax, ymin ≤ ymax)")
        }
    }

    /// An envelope as a polygon, its edges divided so that a transformation bends them as
    /// the CRS does.
    static func rectangle(_ e: Envelope, steps: Int = 8) -> Geometry {
        if e.width == 0 || e.height == 0 { return .point(Point(x: e.minX, y: e.minY)) }
        return .polygon(e.densifiedPolygon(stepsPerEdge: steps))
    }

    /// `geometry` from one spatial reference to another, through PROJ.
    static func transform(_ geometry: Geometry, from source: EsriSpatialReference, to target: EsriSpatialReference, parameter: String) throws -> Geometry {
        do {
            return try TransformerPool.shared.with { try $0.transform(geometry, from: source.projName, to: target.projName) }
        } catch {
            let (from, to) = (source.projName.prefix(60), target.projName.prefix(60))
            throw FeatureServerError.invalidParameter(parameter, "cannot transform from \(from) to \(to): \(error)")
        }
    }

    // MARK: Answers

    /// An Esri envelope object.
    static func envelopeJSON(_ e: Envelope, _ reference: EsriSpatialReference) -> JSONText {
        .object([("xmin", .number(e.minX)), ("ymin", .number(e.minY)), ("xmax", .number(e.maxX)), ("ymax", .number(e.maxY)),
                 ("spatialReference", reference.json)])
    }

    /// Runs the query and writes the answer (Esri JSON, or GeoJSON when `geoJSON`; indented
    /// when `pretty`). A page of features is written straight through `JSONWriter` as the
    /// whole document (`raw` at the top), not built as a tree first.
    func run(in package: any FeatureStore, geoJSON: Bool, pretty: Bool = false) throws -> JSONText {
        let table = layer.table
        switch answer {
        case .count:
            return .object([("count", .integer(Int64(try query.count(in: package))))])
        case .ids:
            return .object([("objectIdFieldName", .string(table.primaryKey)),
                            ("objectIds", .array(try query.matchingIDs(in: package).map { .integer($0) }))])
        case .extent, .extentAndCount:
            let (envelope, n) = try query.extent(in: package)
            let target = outSR ?? layerSR
            var extentJSON: JSONText = .null
            if var e = envelope, let target {
                if let layerSR, !target.isSame(as: layerSR),
                   let moved = try Self.transform(Self.rectangle(e), from: layerSR, to: target, parameter: "outSR").envelope {
                    e = moved
                }
                extentJSON = Self.envelopeJSON(e, target)
            }
            var members: [(String, JSONText)] = [("extent", extentJSON)]
            if answer == .extentAndCount { members.append(("count", .integer(Int64(n)))) }
            return .object(members)
        case .aggregate, .aggregateCount:
            return try aggregateAnswer(in: package, geoJSON: geoJSON)
        case .features:
            break
        }
        let page = try query.page(in: package)
        // GeoJSON is WGS 84 unless the caller asks otherwise (RFC 7946; ArcGIS does the same).
        let target = outSR ?? (geoJSON ? EsriSpatialReference(wkid: 4326) : layerSR)
        let transforms = target.map { target in layerSR.map { !target.isSame(as: $0) } ?? false } ?? false
        var out = JSONWriter(pretty: pretty)
        try TransformerPool.shared.with { transformer in
            try features(page, target: target, transformer: query.readsGeometry && transforms ? transformer : nil,
                         geoJSON: geoJSON, to: &out)
        }
        return .raw(out.output)
    }

    /// The answer of a query with `aggregate`: its rows as features without geometry (a page of
    /// them, as a query's features are paged), or with `returnCountOnly` how many rows there are.
    private func aggregateAnswer(in package: any FeatureStore, geoJSON: Bool) throws -> JSONText {
        guard let aggregate else { preconditionFailure("an aggregate answer without an aggregate") }
        let rows = try aggregate.rows(of: query, in: package)
        if answer == .aggregateCount { return .object([("count", .integer(Int64(rows.count)))]) }
        let page = rows.dropFirst(query.offset).prefix(query.limit ?? rows.count)
        let hasMore = rows.count > query.offset + page.count
        let table = layer.table
        // Each answer column: its name, whether its values are dates, its field description.
        var columns: [(name: String, isDate: Bool, field: JSONText)] = aggregate.fields.map { name in
            (name, layer.isDate(name), Self.queryField(layer.field(table.column(name)!, editable: false)))
        }
        for s in aggregate.statistics {
            let keepsType = s.kind == .min || s.kind == .max
            let type = s.kind == .count ? "esriFieldTypeInteger" : keepsType ? layer.esriFieldType(table.column(s.field)!) : "esriFieldTypeDouble"
            columns.append((s.name, keepsType && layer.isDate(s.field), .object([("name", .string(s.name)), ("type", .string(type)), ("alias", .string(s.name))])))
        }
        let features: [JSONText] = page.map { row in
            let values = JSONText.object(zip(columns, row).map { column, value in (column.name, Self.json(value, isDate: column.isDate)) })
            return geoJSON ? .object([("type", .string("Feature")), ("geometry", .null), ("properties", values)]) : .object([("attributes", values)])
        }
        if geoJSON {
            var members: [(String, JSONText)] = [("type", .string("FeatureCollection")), ("features", .array(features))]
            if hasMore { members.append(("properties", .object([("exceededTransferLimit", .bool(true))]))) }
            return .object(members)
        }
        var members: [(String, JSONText)] = [("fields", .array(columns.map(\.field))), ("features", .array(features))]
        if hasMore { members.append(("exceededTransferLimit", .bool(true))) }
        return .object(members)
    }

    /// Writes the FeatureSet (or GeoJSON feature collection) of `page` to `out`, its
    /// geometries transformed by `transformer` to `target` when given.
    private func features(_ page: FeatureQuery.Page, target: EsriSpatialReference?, transformer: CoordinateTransformer?,
                          geoJSON: Bool, to out: inout JSONWriter) throws {
        let table = layer.table
        let dateColumns = Set(outColumns.filter(layer.isDate))
        func attributes(_ row: FeatureQuery.Row, _ out: inout JSONWriter) {
            out.object {
                $0.member(table.primaryKey) { $0.integer(row.fid) }
                for (column, value) in row.values {
                    $0.member(column) { Self.json(value, isDate: dateColumns.contains(column)).write(to: &$0) }
                }
            }
        }
        func geometry(_ row: FeatureQuery.Row) throws -> String? {
            guard query.readsGeometry, var shape = row.geometry else { return nil }
            if let transformer, let target, let layerSR {
                do {
                    shape = try transformer.transform(shape, from: layerSR.projName, to: target.projName)
                } catch {
                    throw FeatureServerError.invalidParameter("outSR", "cannot transform \(table.name) fid \(row.fid): \(error)")
                }
            }
            return geoJSON ? try shape.geoJSON() : try shape.esriJSON()
        }
        func featureList(_ out: inout JSONWriter) throws {
            try out.array {
                for row in page.rows {
                    let shape = try geometry(row)
                    $0.object {
                        if geoJSON {
                            $0.member("type") { $0.string("Feature") }
                            $0.member("id") { $0.integer(row.fid) }
                            $0.member("geometry") { if let shape { $0.raw(shape) } else { $0.null() } }
                            $0.member("properties") { attributes(row, &$0) }
                        } else {
                            $0.member("attributes") { attributes(row, &$0) }
                            if query.readsGeometry { $0.member("geometry") { if let shape { $0.raw(shape) } else { $0.null() } } }
                        }
                    }
                }
            }
        }
        try out.object {
            if geoJSON {
                $0.member("type") { $0.string("FeatureCollection") }
                try $0.member("features") { try featureList(&$0) }
                if page.hasMore { $0.member("properties") { $0.object { $0.member("exceededTransferLimit") { $0.bool(true) } } } }
                return
            }
            $0.member("objectIdFieldName") { $0.string(table.primaryKey) }
            $0.member("globalIdFieldName") { $0.string(layer.globalIDColumn?.name ?? "") }
            if let type = layer.geometryType { $0.member("geometryType") { $0.string(type) } }
            if let target { $0.member("spatialReference") { target.json.write(to: &$0) } }
            $0.member("fields") { JSONText.array(layer.fields(editable: false, only: outColumns).map(Self.queryField)).write(to: &$0) }
            if page.hasMore { $0.member("exceededTransferLimit") { $0.bool(true) } }
            try $0.member("features") { try featureList(&$0) }
        }
    }

    /// A field as a FeatureSet lists it: name, type, alias, length.
    static func queryField(_ field: JSONText) -> JSONText {
        guard case .object(let members) = field else { return field }
        return .object(members.filter { ["name", "type", "alias", "length"].contains($0.0) })
    }

    /// A value as Esri JSON: numbers and text as they are, dates as epoch milliseconds,
    /// blobs as base64 text.
    static func json(_ value: SQLValue, isDate: Bool) -> JSONText {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .number(d)
        case .text(let s):
            if isDate, let ms = EsriDate.milliseconds(from: s) { return .integer(ms) }
            return .string(s)
        case .blob(let bytes): return .string(Data(bytes).base64EncodedString())
        }
    }
}

/// Dates as Esri sends them (milliseconds since 1970 UTC) and as GeoPackage stores them
/// (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS[.fff]Z`).
enum EsriDate {
    /// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count from 1970-01-01.
    static func civil(days z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Milliseconds since 1970 of a stored date or date-time; nil when the text is neither.
    static func milliseconds(from text: String) -> Int64? {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var n = 0
            for i in range {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                n = n * 10 + Int(b[i] - 48)
            }
            return n
        }
        guard b.count >= 10, b[4] == 45, b[7] == 45, let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10),
              (1...12).contains(mo), (1...31).contains(d) else { return nil }
        var ms = Int64(days(year: y, month: mo, day: d)) * 86_400_000
        if b.count == 10 { return ms }
        guard b.count >= 16, b[10] == 84 || b[10] == 32, let h = number(11..<13), b[13] == 58, let mi = number(14..<16) else { return nil }
        ms += Int64(h * 3_600_000 + mi * 60_000)
        if b.count >= 19, b[16] == 58, let s = number(17..<19) {
            ms += Int64(s * 1000)
            if b.count > 20, b[19] == 46 {
                var fraction = 0, digits = 0, i = 20
                while i < b.count, b[i] >= 48, b[i] <= 57 {
                    if digits < 3 { fraction = fraction * 10 + Int(b[i] - 48); digits += 1 }
                    i += 1
                }
                while digits < 3 { fraction *= 10; digits += 1 }
                ms += Int64(fraction)
            }
        }
        return ms
    }

    /// The text a DATE (`dateOnly`) or DATETIME column stores for `ms` since 1970.
    static func text(milliseconds ms: Int64, dateOnly: Bool) -> String {
        let dayCount = Int((Double(ms) / 86_400_000).rounded(.down))
        let (y, m, d) = civil(days: dayCount)
        let date = String(format: "%04d-%02d-%02d", y, m, d)
        if dateOnly { return date }
        let rest = Int(ms - Int64(dayCount) * 86_400_000)
        return date + String(format: "T%02d:%02d:%02d.%03dZ", rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000)
    }
}
