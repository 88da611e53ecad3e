import AnnoLinkImport
import AnnoLinkStore
import Foundation

/// `annolink sample`: synthetic Loudoun-like data at any size.
struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "make synthetic Loudoun-like data (streets, parcels, addresses) at any size",
        discussion: """
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
            parcel lines are made per parcel. The features are written as they are generated; on a
            terminal the progress (parcels written, features labelled, tables indexed) is shown on
            standard error.
            """,
        exitStatus: "0 done, 64 bad usage, 73 DEST exists or cannot be created.",
        example: "annolink sample data/sample.gpkg --parcels 2000 --seed 7")

    static let destination = ArgumentDeclaration.positional("DEST.gpkg")
    static let parcels = ArgumentDeclaration.option("--parcels", value: "N", help: "number of parcels (default 1000; 1 to 50,000,000)")
    static let seed = ArgumentDeclaration.option("--seed", value: "S", help: "random seed, an unsigned integer (default 1)")
    static let json = ArgumentDeclaration.flag("--json", help: """
        what was written: {"addressPoints", "parcelLines", "annotationRows",
        "warnings"}
        """)
    static let arguments = [destination, parcels, seed, json]

    var json: Bool
    var parcels: Int
    var seed: UInt64
    var destination: String

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        parcels = try arguments.option(Self.parcels, as: "a whole number from 1 to 50,000,000") {
            Int($0).flatMap { (1...50_000_000).contains($0) ? $0 : nil }
        } ?? 1000
        seed = try arguments.option(Self.seed, as: "an unsigned integer") { UInt64($0) } ?? 1
        destination = try arguments.positional(Self.destination)
    }

    func run() throws -> ExitStatus {
        let started = Date()
        let progress = StageProgress()
        let summary = try GeoPackage.build(at: destination) { package in
            try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
            return try SampleWriter.write(SampleGenerator(parcels: parcels, seed: seed), into: package) { progress.update($0, $1, of: $2) }
        }
        progress.finish()
        let seconds = Date().timeIntervalSince(started)
        for warning in summary.warnings { Output.diagnostic("warning: \(warning)") }
        if json {
            Output.line(try Output.json(summary))
            return .success
        }
        Output.line("wrote \(destination): \(summary.addressPoints) address points, \(summary.parcelLines) parcel lines, " +
            "\(summary.annotationRows) annotation rows in 2 classes (EPSG:2924) in \(String(format: "%.1f", seconds)) s")
        return .success
    }
}
