extension Statement {
    /// Runs this `UPDATE` once per run of keys: the run's first and last key bound to `?1` and
    /// `?2`, the vector to `?3` and `?4`. The move of a translate (`GeoPackage.translate`) and
    /// its undo and redo (`MoveImage.move`).
    func run(over ranges: [KeyRanges.Range], dx: Double, dy: Double) throws {
        for range in ranges {
            reset()
            try bind([.integer(range.first), .integer(range.last), .real(dx), .real(dy)])
            while try step() {}
        }
    }
}
