import AnnoLinkImport
import AnnoLinkStore
import Foundation

/// `annolink sample`: synthetic Loudoun-like data at any size.
enum SampleCommand: Command {
    static let name = "sample"
    static let summary = "make synthetic Loudoun-like data (streets, parcels, addresses) at any size"
    static let help = """
        usage: annolink sample DEST.gpkg [--parcels N] [--seed S] [--json]

        Writes a new GeoPackage of synthetic, deterministic data in EPSG:2924 (NAD83(HARN) /
        Virginia North, US survey feet), shaped like Esri's Loudoun sample: a grid of blocks
        between named streets, two rows of parcels per block facing the streets, and
          address_points      one point per parcel: AD_ADDRESS (house number), ST_STR_NAM,
                              ST_STR_TYP, FULL_ADDRE, PARCEL_ID
          parcel_lines        the parcel boundaries as two-point segments (shared edges once):
                              LEFT_FID, RIGHT_FID, Length (US survey feet)
          address_points_anno, parcel_lines_anno
                              their annotation, by the two annotation classes of the
                              Loudoun data (Tahoma 10 pt at 1:1200)
        The same --parcels and --seed give the same file content on every machine. About 2.6
        parcel lines are made per parcel. Generation streams, so memory stays flat.

        options:
          --parcels N   number of parcels (default 1000; 1 to 50,000,000)
          --seed S      random seed, an unsigned integer (default 1)
          --json        what was written: {"addressPoints", "parcelLines", "annotationRows",
                        "warnings"}

        exit status: 0 done, 64 bad usage, 73 DEST exists or cannot be created.

        example:
          annolink sample data/sample.gpkg --parcels 2000 --seed 7
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let parcels = try arguments.option("--parcels", as: "a whole number from 1 to 50,000,000") { Int($0).flatMap { (1...50_000_000).contains($0) ? $0 : nil } } ?? 1000
        let seed = try arguments.option("--seed", as: "an unsigned integer") { UInt64($0) } ?? 1
        let destination = try arguments.positional("DEST.gpkg")
        try arguments.finish()

        let started = Date()
        let package = try createGeoPackage(at: destination)
        let progress = Progress("parcels", total: parcels)
        let summary = try removingOnFailure(destination) {
            try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
            return try SampleWriter.write(SampleGenerator(parcels: parcels, seed: seed), into: package, progress: progress.update)
        }
        progress.finish(summary.addressPoints)
        let seconds = Date().timeIntervalSince(started)
        for warning in summary.warnings { Output.diagnostic("warning: \(warning)") }
        if json {
            Output.line(try Output.json(summary))
            return .success
        }
        Output.line("wrote \(destination): \(summary.addressPoints) address points, \(summary.parcelLines) parcel lines, \(summary.annotationRows) annotation rows in 2 classes (EPSG:2924) in \(String(format: "%.1f", seconds)) s")
        return .success
    }
}

/// Creates a new GeoPackage at `path`, with a clear error when the folder is missing.
func createGeoPackage(at path: String) throws -> GeoPackage {
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
        throw CommandError("cannot create \(path): the folder \(folder) does not exist", status: .cannotCreate)
    }
    // Checked here, before removingOnFailure, so that a file already there is never removed.
    guard !FileManager.default.fileExists(atPath: path) else { throw StoreError.fileExists(path: path) }
    return try removingOnFailure(path) { try GeoPackage.create(path: path) }
}

/// Runs `body`, which fills the new file at `path`; when it throws, the half-made file (and its
/// WAL and shared-memory files) are removed, so that a failed run leaves nothing behind.
func removingOnFailure<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        throw error
    }
}
