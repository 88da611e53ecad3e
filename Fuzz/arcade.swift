// libFuzzer entry point (scripts/fuzz arcade): text → LabelExpression (the Arcade parser) →
// evaluate and render as label text against feature rows with typed fields (the evaluator).
import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// Feature rows the expression is evaluated against: every SQL type, a NULL, names that differ
/// only in case, non-ASCII names and text, a line geometry in US feet, a point in a geographic
/// CRS, and no geometry at all.
private let rows: [ExpressionContext] = {
    let attributes: [String: SQLValue] = [
        "AD_ADDRESS": .integer(21505), "ST_STR_NAM": .text("ELMWOOD"), "ST_TYPE": .null,
        "Length": .real(178.004), "house_number": .integer(-7), "street": .text("Pohjoisesplanadi"),
        "ÄÖ": .text("Ünïcode\u{0}\n"), "big": .integer(Int64.max), "tiny": .real(-0.0), "nan": .real(.nan),
        "inf": .real(.infinity), "blob": .blob([0, 1, 2]), "empty": .text(""), "Name": .text("upper"), "name": .text("lower"),
    ]
    let line = Geometry.lineString(LineString([Point(x: 11_880_000.5, y: 7_020_000.25), Point(x: 11_880_178.5, y: 7_020_010)]))
    return [
        ExpressionContext(attributes: attributes, geometry: line, metresPerUnit: 1200.0 / 3937.0),
        ExpressionContext(attributes: attributes, geometry: .point(Point(x: 24.94, y: 60.17)), metresPerUnit: nil),
        ExpressionContext(attributes: [:]),
    ]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let source = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let expression = try? LabelExpression(source) else { return 0 }
    _ = try? expression.checkFields(rows[0].attributes.keys)
    for row in rows {
        _ = try? expression.evaluate(row)
        _ = try? expression.text(for: row)
    }
    return 0
}
