import AnnoLinkChecks
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// A synthetic sample (`annolink sample`) in its own temporary directory, with helpers to
/// corrupt it through the store and check it; removed when the value goes away.
final class CheckScratch {
    private let scratch: ScratchDirectory
    let path: String
    let package: GeoPackage

    init(parcels: Int = 10) throws {
        scratch = try ScratchDirectory(prefix: "check")
        path = scratch.path("sample.gpkg")
        package = try GeoPackage.create(path: path)
        try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
        _ = try SampleWriter.write(SampleGenerator(parcels: parcels, seed: 3), into: package)
    }

    func table(_ name: String) throws -> FeatureTable { try package.featureTable(name) }

    /// Every code but the review pass's: the sample's labels overlap (its generator does not
    /// deconflict them), and these tests are about annotation out of step with its rules.
    static let consistencyCodes = ProblemCode.checkedByDefault.subtracting([.overlappingAnnotation, .unplacedAnnotation])

    /// A checker of the sample for `codes` (the consistency checks unless told).
    func checker(_ tolerances: CheckTolerances = CheckTolerances(), codes: Set<ProblemCode> = consistencyCodes) -> ConsistencyChecker {
        let checker = ConsistencyChecker(package: package, tolerances: tolerances)
        checker.codes = codes
        return checker
    }

    /// Every problem a check with `tolerances` reports, in order.
    func problems(_ tolerances: CheckTolerances = CheckTolerances(), table: String? = nil) throws -> [Problem] {
        var found: [Problem] = []
        _ = try checker(tolerances).check(table: table) { found.append($0) }
        return found
    }

    /// The problems as (code, annotation table, annotation fid, origin fid), for exact comparisons.
    func keys(_ tolerances: CheckTolerances = CheckTolerances()) throws -> [Key] {
        try problems(tolerances).map { Key($0.code, $0.annotationTable, $0.annotationFid, $0.originFid) }
    }

    /// Checks, repairs what was found, and returns the repair.
    @discardableResult
    func repair() throws -> RepairResult {
        let checker = checker()
        var plan = RepairPlan()
        _ = try checker.check { plan.add($0) }
        return try checker.repair(plan, command: "annolink check sample.gpkg --fix")
    }

    /// The annotation row of origin feature `fid` in `table`.
    func annotation(_ table: String, feature fid: Int64) throws -> AnnotationRow {
        try #require(try package.annotationRows(self.table(table), featureID: fid).first)
    }

    /// Writes `row` back as it is (footprint included).
    func update(_ row: AnnotationRow, in table: String) throws {
        try package.updateAnnotation(row, in: self.table(table))
    }

    struct Key: Hashable, CustomStringConvertible {
        var code: ProblemCode
        var annotationTable: String?
        var annotationFid: Int64?
        var originFid: Int64?
        init(_ code: ProblemCode, _ annotationTable: String?, _ annotationFid: Int64?, _ originFid: Int64?) {
            self.code = code
            self.annotationTable = annotationTable
            self.annotationFid = annotationFid
            self.originFid = originFid
        }
        var description: String { "\(code.rawValue) \(annotationTable ?? "-") \(annotationFid.map(String.init) ?? "-") \(originFid.map(String.init) ?? "-")" }
    }
}

extension Polygon {
    /// The polygon moved by `dx`, `dy`.
    func translated(dx: Double, dy: Double) -> Polygon {
        Polygon(rings: rings.map { LineString($0.points.map { $0.translated(dx: dx, dy: dy) }) })
    }
}
