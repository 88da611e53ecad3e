import AnnoLinkImport
import AnnoLinkService
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

@Suite struct DatasetTests {
    /// A small sample file (`annolink sample`'s tables) in `scratch`.
    func sample(in scratch: ScratchDirectory) throws -> String {
        let path = scratch.path("sample.gpkg")
        let package = try GeoPackage.create(path: path)
        try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
        _ = try SampleWriter.write(SampleGenerator(parcels: 8, seed: 3), into: package)
        return path
    }

    @Test func nameIsTheFileStemAndReadsWork() throws {
        let scratch = try ScratchDirectory()
        let dataset = try Dataset(path: try sample(in: scratch))
        #expect(dataset.name == "sample")
        let count = try dataset.read { try $0.connection.scalarInt("SELECT count(*) FROM address_points") }
        #expect(count == 8)
    }

    @Test func readOnlyDatasetRefusesWrites() throws {
        let scratch = try ScratchDirectory()
        let dataset = try Dataset(path: try sample(in: scratch), readOnly: true)
        #expect(throws: ServiceError.readOnly) { try dataset.write { _ in 0 } }
    }
}
