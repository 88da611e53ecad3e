import AnnoLinkService
import AnnoLinkStore
import Foundation
import Testing

/// `returnDistinctValues` and `outStatistics` of a layer query on Loudoun, checked against
/// SQLite's own DISTINCT and aggregates over the same rows of the file.
@Suite struct FeatureServerAggregateTests {
    typealias Served = FeatureServerTests.Served
    static let points = FeatureServerTests.points

    /// A number as text, whole numbers without a fraction: the same however JSON or SQLite typed it.
    static func text(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    /// The features of an answer as rows of `names`' values, as text (`NULL` for null).
    func rows(_ answer: [String: Any], _ names: [String]) throws -> [[String]] {
        let features = try #require(answer["features"] as? [[String: Any]], "\(answer)")
        return features.map { feature in
            let attributes = feature["attributes"] as? [String: Any] ?? [:]
            return names.map { name in
                switch attributes[name] {
                case nil, is NSNull: "NULL"
                case let n as NSNumber: Self.text(n.doubleValue)
                case let s as String: s
                case let other?: "\(other)"
                }
            }
        }
    }

    /// The rows SQLite answers for `sql` on the file, as text.
    func sqlRows(_ served: Served, _ sql: String) throws -> [[String]] {
        try served.package().connection.rows(sql).map { row in
            row.map { value in
                switch value {
                case .null: "NULL"
                case .integer(let i): String(i)
                case .real(let d): Self.text(d)
                case .text(let s): s
                case .blob: "blob"
                }
            }
        }
    }

    @Test func distinctValuesAreSQLitesDistinctInOrderAndPaged() throws {
        let served = try Served()
        let all = try served.get("/0/query", ["where": "1=1", "outFields": "ST_STR_NAM", "returnDistinctValues": "true",
                                               "returnGeometry": "false", "f": "json"])
        let expected = try sqlRows(served, "SELECT DISTINCT ST_STR_NAM FROM \(Self.points) ORDER BY ST_STR_NAM")
        #expect(try rows(all, ["ST_STR_NAM"]) == expected)
        #expect(expected.count > 3)
        #expect((all["fields"] as? [[String: Any]])?.map { $0["name"] as? String } == ["ST_STR_NAM"])
        // Without the object id: only the distinct fields are answered.
        #expect(((all["features"] as? [[String: Any]])?.first?["attributes"] as? [String: Any])?.keys.sorted() == ["ST_STR_NAM"])
        #expect(all["exceededTransferLimit"] == nil)

        let count = try served.get("/0/query", ["where": "1=1", "outFields": "ST_STR_NAM", "returnDistinctValues": "true",
                                                 "returnCountOnly": "true", "f": "json"])
        #expect(count["count"] as? Int == expected.count)

        // Two fields, a where clause, a descending order, a page in the middle.
        let page = try served.get("/0/query", ["where": "AD_ADDRESS > 20000", "outFields": "ST_STR_NAM, ST_STR_TYP",
                                                "returnDistinctValues": "true", "orderByFields": "ST_STR_NAM DESC, ST_STR_TYP",
                                                "resultOffset": "1", "resultRecordCount": "2", "f": "json"])
        let sql = "SELECT DISTINCT ST_STR_NAM, ST_STR_TYP FROM \(Self.points) WHERE AD_ADDRESS > 20000 ORDER BY ST_STR_NAM DESC, ST_STR_TYP"
        let both = try sqlRows(served, sql)
        try #require(both.count > 3, "\(both)")
        #expect(try rows(page, ["ST_STR_NAM", "ST_STR_TYP"]) == Array(both[1..<3]))
        #expect(page["exceededTransferLimit"] as? Bool == true)
    }

    @Test func statisticsPerGroupAreSQLitesAggregates() throws {
        let served = try Served()
        let statistics = """
            [{"statisticType":"count","onStatisticField":"fid","outStatisticFieldName":"n"},
             {"statisticType":"sum","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"total"},
             {"statisticType":"min","onStatisticField":"AD_ADDRESS"},
             {"statisticType":"MAX","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"highest"},
             {"statisticType":"avg","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"mean"},
             {"statisticType":"var","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"v"},
             {"statisticType":"stddev","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"s"}]
            """
        let answer = try served.get("/0/query", ["where": "1=1", "outStatistics": statistics, "groupByFieldsForStatistics": "ST_STR_NAM",
                                                  "orderByFields": "n DESC, ST_STR_NAM", "f": "json"])
        let names = ["ST_STR_NAM", "n", "total", "MIN_AD_ADDRESS", "highest", "mean"]
        let expected = try sqlRows(served, """
            SELECT ST_STR_NAM, count(fid) AS n, sum(AD_ADDRESS) * 1.0, min(AD_ADDRESS), max(AD_ADDRESS), avg(AD_ADDRESS)
            FROM \(Self.points) GROUP BY ST_STR_NAM ORDER BY n DESC, ST_STR_NAM
            """)
        let got = try rows(answer, names)
        #expect(got == expected, "\(got) vs \(expected)")
        // The sample variance and deviation, within rounding of the two ways of summing.
        let spread = try sqlRows(served, """
            SELECT (sum(AD_ADDRESS * AD_ADDRESS * 1.0) - sum(AD_ADDRESS) * sum(AD_ADDRESS) * 1.0 / count(AD_ADDRESS)) / (count(AD_ADDRESS) - 1)
            FROM \(Self.points) GROUP BY ST_STR_NAM ORDER BY count(fid) DESC, ST_STR_NAM
            """).map { $0[0] }
        let answered = try rows(answer, ["v", "s"])
        #expect(answered.count == spread.count)
        for (row, sql) in zip(answered, spread) {
            if sql == "NULL" {
                #expect(row == ["NULL", "NULL"])
            } else {
                let v = try #require(Double(row[0])), s = try #require(Double(row[1])), oracle = try #require(Double(sql))
                #expect(abs(v - oracle) <= 1e-9 * max(1, abs(oracle)), "\(row) vs \(sql)")
                #expect(abs(s * s - oracle) <= 1e-9 * max(1, abs(oracle)), "\(row) vs \(sql)")
            }
        }
        let fields = try #require(answer["fields"] as? [[String: Any]])
        #expect(fields.map { $0["name"] as? String } == ["ST_STR_NAM", "n", "total", "MIN_AD_ADDRESS", "highest", "mean", "v", "s"])
        #expect(fields.map { $0["type"] as? String } == ["esriFieldTypeString", "esriFieldTypeInteger", "esriFieldTypeDouble", "esriFieldTypeInteger",
                                                         "esriFieldTypeInteger", "esriFieldTypeDouble", "esriFieldTypeDouble", "esriFieldTypeDouble"])
    }

    @Test func statisticsWithoutGroupsAnswerOneRowAlsoOverNothing() throws {
        let served = try Served()
        let statistics = #"[{"statisticType":"count","onStatisticField":"fid","outStatisticFieldName":"n"},"# +
            #"{"statisticType":"sum","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"total"}]"#
        let none = try served.get("/0/query", ["where": "fid < 0", "outStatistics": statistics, "f": "json"])
        #expect(try rows(none, ["n", "total"]) == [["0", "NULL"]])
        // A spatial filter applies with its exact test, as for features.
        let near = try served.get("/0/query", ["geometry": "11790668.63,7056461.09", "geometryType": "esriGeometryPoint", "distance": "200",
                                                "outStatistics": statistics, "f": "json"])
        let ids = try served.get("/0/query", ["geometry": "11790668.63,7056461.09", "geometryType": "esriGeometryPoint", "distance": "200",
                                               "returnIdsOnly": "true", "f": "json"])
        let matched = try #require(ids["objectIds"] as? [Int])
        #expect(!matched.isEmpty)
        let sum = try sqlRows(served, "SELECT sum(AD_ADDRESS) * 1.0 FROM \(Self.points) WHERE fid IN (\(matched.map(String.init).joined(separator: ",")))")
        let nearRows = try rows(near, ["n", "total"])
        #expect(nearRows == [[String(matched.count), sum[0][0]]], "\(nearRows) vs \(sum)")
        // Dates keep their type for min and max: epoch milliseconds.
        let package = try GeoPackage(path: served.path)
        try package.connection.execute("UPDATE \(Self.points) SET created_date = '2019-06-14T13:45:10.250Z' WHERE fid = 831")
        try package.connection.execute("UPDATE \(Self.points) SET created_date = '2021-01-02T00:00:00.000Z' WHERE fid = 834")
        let dates = try served.get("/0/query", ["outStatistics": #"[{"statisticType":"min","onStatisticField":"created_date","outStatisticFieldName":"first"},"# +
                                                 #"{"statisticType":"max","onStatisticField":"created_date","outStatisticFieldName":"last"}]"#, "f": "json"])
        #expect(try rows(dates, ["first", "last"]) == [["1560519910250", "1609545600000"]])
        #expect((dates["fields"] as? [[String: Any]])?.map { $0["type"] as? String } == ["esriFieldTypeDate", "esriFieldTypeDate"])
    }

    @Test func badAggregatesAreRefusedNamingTheParameter() throws {
        let served = try Served()
        let cases: [([String: String], String)] = [
            (["outStatistics": "not json"], "outStatistics"),
            (["outStatistics": #"[{"statisticType":"median","onStatisticField":"AD_ADDRESS"}]"#], "statisticType must be one of"),
            (["outStatistics": #"[{"statisticType":"sum","onStatisticField":"NoSuchField"}]"#], "'NoSuchField' is not a field"),
            (["outStatistics": #"[{"statisticType":"sum","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"a b"}]"#], "is not a field name"),
            (["outStatistics": #"[{"statisticType":"sum","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"x"},{"statisticType":"max","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"X"}]"#],
             "two statistics are named"),
            (["outStatistics": #"[{"statisticType":"count","onStatisticField":"fid"}]"#, "groupByFieldsForStatistics": "Nope"], "'Nope' is not a field"),
            (["outStatistics": #"[{"statisticType":"count","onStatisticField":"fid"}]"#, "orderByFields": "AD_ADDRESS"], "not one of the answer's fields"),
            (["outStatistics": #"[{"statisticType":"count","onStatisticField":"fid"}]"#, "having": "count(fid) > 1"], "having"),
            (["returnDistinctValues": "true"], "returnDistinctValues needs outFields"),
            (["returnDistinctValues": "true", "outFields": "fid"], "returnDistinctValues needs outFields"),
        ]
        for (parameters, message) in cases {
            let answer = try served.get("/0/query", parameters.merging(["f": "json"]) { a, _ in a })
            let error = try #require(answer["error"] as? [String: Any], "\(parameters): \(answer)")
            #expect(error["code"] as? Int == 400, "\(parameters)")
            let text = ([error["message"] as? String ?? ""] + (error["details"] as? [String] ?? [])).joined(separator: " ")
            #expect(text.contains(message), "\(parameters): \(text)")
        }
    }

    @Test func theLayerSaysItCanAnswerThem() throws {
        let served = try Served()
        let layer = try served.get("/0", ["f": "json"])
        #expect(layer["supportsStatistics"] as? Bool == true)
        let advanced = try #require(layer["advancedQueryCapabilities"] as? [String: Any])
        #expect(advanced["supportsDistinct"] as? Bool == true)
        #expect(advanced["supportsStatistics"] as? Bool == true)
    }
}
