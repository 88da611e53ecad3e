import AnnoLinkGeometry
import AnnoLinkStore
internal import CCairo

extension ProblemPictures {
    static let overlapped = Colour(0.55, 0.1, 0.75)
    static let intersection = Colour(1, 0.85, 0)
    /// The legend's lines for an overlap's picture.
    static let overlapLegend: [(String, Colour)] = [("the label it overlaps", overlapped), ("where the footprints meet", intersection)]

    /// The other row of an overlapping pair, when the subject names one that can be read.
    func overlappedRow(of subject: ProblemSubject) -> (row: AnnotationRow, table: String)? {
        guard let table = subject.overlappedTable, let fid = subject.overlappedFid, renderer.isAnnotationTable(table),
              let row = try? store.annotationRow(try store.featureTable(table), fid: fid, footprintProblem: { _ in })
        else { return nil }
        return (row, table)
    }

    /// Draws the other label of an overlapping pair (its footprint outlined and its text), and
    /// fills where the two footprints meet: the stored footprint's path clipped to the other's,
    /// so that Cairo finds the intersection and no overlay is computed.
    func drawOverlap(stored: AnnotationRow?, _ other: (row: AnnotationRow, table: String), view: MapView, on canvas: CairoCanvas) throws {
        if let a = stored?.footprint, let b = other.row.footprint {
            let context = canvas.context
            cairo_save(context)
            defer { cairo_restore(context) }
            cairo_set_fill_rule(context, CAIRO_FILL_RULE_EVEN_ODD)
            cairo_new_path(context)
            addRings(of: b, view: view, on: canvas)
            cairo_clip(context)
            addRings(of: a, view: view, on: canvas)
            cairo_set_source_rgba(context, Self.intersection.red, Self.intersection.green, Self.intersection.blue, 0.6)
            cairo_fill(context)
        }
        try renderer.drawFootprint(of: other.row, table: other.table, view: view, on: canvas, colour: Self.overlapped, lineWidth: 1.5)
        try renderer.drawText(of: other.row, table: other.table, view: view, on: canvas, colour: Self.overlapped)
    }

    /// Adds the rings of `polygon` (in the picture's CRS, as the feature is drawn) to the path.
    private func addRings(of polygon: Polygon, view: MapView, on canvas: CairoCanvas) {
        for ring in polygon.rings {
            for (i, point) in ring.points.enumerated() {
                let p = view.pixel(of: point)
                if i == 0 { cairo_move_to(canvas.context, p.x, p.y) } else { cairo_line_to(canvas.context, p.x, p.y) }
            }
            cairo_close_path(canvas.context)
        }
    }
}
