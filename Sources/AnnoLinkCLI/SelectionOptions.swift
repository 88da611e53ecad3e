import AnnoLinkEditing
import AnnoLinkGeometry

/// `--fids 1,2,3 | --bbox MINX,MINY,MAXX,MAXY | --where SQL`: the features a bulk edit takes,
/// parsed the same way by `translate`, `set` and `delete`.
struct SelectionOptions {
    static let section = "selection (exactly one)"
    static let fids = ArgumentDeclaration.option("--fids", value: "1,2,3", section: section, help: "these feature ids")
    static let bbox = ArgumentDeclaration.option("--bbox", value: "MINX,MINY,MAXX,MAXY", section: section, help: """
        every feature whose envelope lies inside the box
        """)
    static let whereClause = ArgumentDeclaration.option("--where", value: "SQL", section: section, help: """
        every feature an SQL condition on TABLE selects, e.g.
        "LEFT_FID = 12"; it must be one read-only condition
        """)
    static let arguments = [fids, bbox, whereClause]

    var fidsText: String?
    var bboxText: String?
    var whereText: String?

    /// Takes the three options (absent ones stay nil).
    init(parsing arguments: inout Arguments) throws {
        fidsText = try arguments.option(Self.fids)
        bboxText = try arguments.option(Self.bbox)
        whereText = try arguments.option(Self.whereClause)
    }

    /// Whether any of the options was given.
    var isGiven: Bool { fidsText != nil || bboxText != nil || whereText != nil }

    /// The selection, with a usage error unless exactly one option was given and it parses.
    func selection() throws -> Selection {
        switch (fidsText, bboxText, whereText) {
        case (let fids?, nil, nil):
            let parsed = fids.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else {
                throw CommandError.usage("--fids expects whole numbers separated by commas, not '\(fids)'")
            }
            return .fids(parsed.map { $0! })
        case (nil, let box?, nil):
            let numbers = box.split(separator: ",").map { decimalNumber($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4, numbers.allSatisfy({ $0 != nil }) else {
                throw CommandError.usage("--bbox expects MINX,MINY,MAXX,MAXY, not '\(box)'")
            }
            let n = numbers.map { $0! }
            guard n.allSatisfy(\.isFinite) else { throw CommandError("--bbox: coordinates must be finite numbers, not '\(box)'", status: .dataError) }
            guard n[0] <= n[2], n[1] <= n[3] else { throw CommandError.usage("--bbox: MINX must not exceed MAXX, nor MINY MAXY") }
            return .boundingBox(Envelope(minX: n[0], minY: n[1], maxX: n[2], maxY: n[3]))
        case (nil, nil, let clause?):
            return .condition(clause)
        default:
            throw CommandError.usage("give exactly one of --fids, --bbox, --where")
        }
    }
}
