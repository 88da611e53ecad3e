import AnnoLinkEditing
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

    @Test func aReadInsideAReadJoinsItAndManyThreadsReadAtOnce() throws {
        let scratch = try ScratchDirectory()
        let dataset = try Dataset(path: try sample(in: scratch), readerLimit: 1)
        // With one reader, a nested read that borrowed another would wait for ever.
        let count = try dataset.read { outer in
            try dataset.read { inner in
                #expect(inner === outer)
                return try inner.connection.scalarInt("SELECT count(*) FROM address_points")
            }
        }
        #expect(count == 8)
        let wide = try Dataset(path: dataset.path, readerLimit: 4)
        let lines = try wide.read { try $0.connection.scalarInt("SELECT count(*) FROM parcel_lines") }
        #expect((lines ?? 0) > 8)
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            #expect((try? wide.read { try $0.connection.scalarInt("SELECT count(*) FROM parcel_lines") }) == lines)
        }
    }

    @Test func aReadOverTheTimeLimitThrowsAndTheReaderStaysUsable() throws {
        let scratch = try ScratchDirectory()
        let dataset = try Dataset(path: try sample(in: scratch), queryTimeLimit: 0.2, readerLimit: 1)
        let started = Date()
        #expect(throws: ServiceError.queryTimeLimitExceeded(seconds: 0.2)) {
            try dataset.read { try $0.connection.scalarInt("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c") }
        }
        #expect(Date().timeIntervalSince(started) < 30, "interrupted, not run to the end")
        #expect(try dataset.read { try $0.connection.scalarInt("SELECT count(*) FROM address_points") } == 8)
    }

    @Test func nestedWritesKeepTheOuterUser() throws {
        let scratch = try ScratchDirectory()
        let dataset = try Dataset(path: try sample(in: scratch))
        try dataset.write(user: "alice") { outer in
            try dataset.write(user: "alice") { _ in }
            _ = try outer.run(SetFields(table: "address_points", fid: 1, values: [FieldAssignment(field: "ST_STR_NAM", text: "OAK")], command: "test"))
        }
        let entries = try dataset.read { try Journal(package: $0).entries() }
        #expect(entries.map(\.user) == ["alice"])
    }
}
