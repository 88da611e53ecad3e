import AnnoLinkGeometry

extension GeoPackage {
    /// With a spatial index, a walk down the R-tree's own nodes (its `_node` shadow table, in the
    /// format `RTreePacking` describes): from the root, into every child whose box meets `box`,
    /// one node blob read per node and each leaf's cells decoded here, so a full-extent overview
    /// of 3.6 million rows reads some 22,000 blobs instead of stepping the rtree module once a
    /// row (docs/render.md, "Overviews"). The leaves' cells are the boxes the module answers
    /// (its 32-bit floats as doubles), and a cell is taken as its window query takes it (edges
    /// included); the order is the tree's, not the fids'. Without a spatial index, or with one
    /// whose shadow tables are not the module's two-dimensional layout, through
    /// `forEachIndexedRow`.
    ///
    /// - Throws: `SQLiteError` (an interrupted read among them), `StoreError.corruptGeometry`
    ///   without an index.
    public func forEachIndexBox(_ table: FeatureTable, meeting box: Envelope?, _ body: (_ fid: Int64, _ box: Envelope) throws -> Void) throws {
        guard table.hasSpatialIndex, let shadow = try? RTreeShadowTables(named: table.spatialIndexName, on: connection) else {
            try forEachIndexedRow(table, meeting: box, size: .any, reading: .box) { try body($0.fid, $0.box) }
            return
        }
        let statement = try connection.prepare("SELECT data FROM \(shadow.node) WHERE nodeno = ?")
        /// The cells of node `number`: (id, box) each, and the tree's depth when it is the root.
        func cells(of number: Int64) throws -> (depth: Int, cells: [(Int64, Envelope)]) {
            statement.reset()
            try statement.bind(number, at: 1)
            guard try statement.step() else { throw RTreeBulkLoadError.unsupportedTable(table.spatialIndexName, reason: "node \(number) is missing") }
            return statement.withBlob(0) { bytes in
                guard bytes.count >= 4 else { return (0, []) }
                let depth = Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt16.self)))
                let count = Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
                var found: [(Int64, Envelope)] = []
                found.reserveCapacity(count)
                func float(_ at: Int) -> Double {
                    Double(Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))))
                }
                for i in 0..<count {
                    let at = 4 + i * 24
                    guard at + 24 <= bytes.count else { break }
                    let id = Int64(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                    let cell = Envelope(minX: float(at + 8), minY: float(at + 16), maxX: float(at + 12), maxY: float(at + 20))
                    if let box, cell.maxX < box.minX || cell.minX > box.maxX || cell.maxY < box.minY || cell.minY > box.maxY { continue }
                    found.append((id, cell))
                }
                return (depth, found)
            }
        }
        let root = try cells(of: 1)
        // Nodes still to read, with their height above the leaves.
        var pending: [(node: Int64, height: Int)] = []
        func visit(_ node: (depth: Int, cells: [(Int64, Envelope)]), height: Int) throws {
            if height == 0 {
                for (fid, cell) in node.cells { try body(fid, cell) }
            } else {
                for (child, _) in node.cells.reversed() { pending.append((child, height - 1)) }
            }
        }
        try visit(root, height: root.depth)
        while let next = pending.popLast() {
            try visit(try cells(of: next.node), height: next.height)
        }
        statement.reset()
    }
}
