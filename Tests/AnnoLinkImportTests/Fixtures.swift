import AnnoLinkImport
import AnnoLinkTestSupport
import Foundation
import Testing

/// Test inputs extracted from the Loudoun geodatabase (Tests/AnnoLinkImportTests/Fixtures); the
/// geodatabase itself is `Fixtures.loudoun`, in the repository's Fixtures/.
extension Fixtures {
    /// Tests/AnnoLinkImportTests/Fixtures.
    static let extractsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The text of a fixture file.
    static func text(_ name: String) throws -> String {
        try String(contentsOf: extractsDirectory.appendingPathComponent(name), encoding: .utf8)
    }

    /// The tab-separated rows of a fixture file, without comment lines.
    static func rows(_ name: String) throws -> [[String]] {
        try text(name).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    /// A parcel line row: its `Length` attribute and `Shape` blob.
    struct ParcelLine: Sendable, CustomTestStringConvertible {
        var objectID: Int
        var length: Double
        var shape: [UInt8]
        var testDescription: String { "ParcelLines_1 #\(objectID)" }
    }

    static func parcelLines() throws -> [ParcelLine] {
        try rows("parcel_lines.tsv").map { ParcelLine(objectID: Int($0[0])!, length: Double($0[1])!, shape: hex($0[2])) }
    }

    /// An annotation row: its columns and blobs.
    struct AnnotationRow: Sendable, CustomTestStringConvertible {
        var table: String
        var objectID: Int
        var textString: String
        var angle: Double
        var wordSpacing: Double
        var shape: [UInt8]
        var element: [UInt8]
        var testDescription: String { "\(table) #\(objectID)" }
    }

    static func annotationRows() throws -> [AnnotationRow] {
        try rows("annotation_rows.tsv").map {
            AnnotationRow(table: $0[0], objectID: Int($0[1])!, textString: $0[2], angle: Double($0[3])!, wordSpacing: Double($0[4])!,
                          shape: hex($0[5]), element: hex($0[6]))
        }
    }

    /// A polygon blob by table and object id.
    static func polygon(_ table: String, _ objectID: Int) throws -> [UInt8] {
        let row = try rows("polygons.tsv").first { $0[0] == table && Int($0[1]) == objectID }
        return hex(row![2])
    }

    /// The coordinate grid of the Loudoun tables (from their definitions).
    static let loudounGrid = CoordinateGrid(xOrigin: -110_512_500, yOrigin: -88_858_000, xyScale: 3048.0060960121928)
}
