extension CoordinateTransformer {
    /// Esri's ids for Web Mercator before EPSG gave it 3857 (102100, 102113, and Google's
    /// 900913): what `latestWkid` says of them.
    static let webMercatorWkids: Set<Int32> = [102_100, 102_113, 900_913]

    /// The CRS an Esri JSON `spatialReference` names, as a definition PROJ reads: `EPSG:n` for
    /// the ids EPSG gave (Esri uses EPSG's codes as its wkids), `ESRI:n` for Esri's own
    /// (102xxx, 54xxx), `EPSG:3857` for the old Web Mercator ids. `latestWkid` is preferred
    /// when PROJ knows it, as Esri documents it ("the current wkid"); else `wkid`.
    ///
    /// - Returns: nil when both are nil.
    /// - Throws: `EngineError.unknownCRS` naming the id when PROJ knows neither under EPSG nor
    ///   ESRI.
    public func esriSpatialReference(wkid: Int32?, latestWkid: Int32?) throws -> String? {
        var firstError: EngineError?
        for id in [latestWkid, wkid].compactMap({ $0 }) {
            if Self.webMercatorWkids.contains(id) { return "EPSG:3857" }
            for authority in ["EPSG", "ESRI"] {
                do {
                    _ = try referenceSystem("\(authority):\(id)")
                    return "\(authority):\(id)"
                } catch let error as EngineError {
                    if firstError == nil, case .unknownCRS(_, let cause) = error {
                        firstError = .unknownCRS("wkid \(id) (neither EPSG:\(id) nor ESRI:\(id))", cause: cause)
                    }
                }
            }
        }
        if let firstError { throw firstError }
        return nil
    }

    /// Whether `first` and `second` name the same CRS: the same text, or the same authority
    /// and code as PROJ identifies them (`EPSG:2924` and `epsg:2924`, a WKT carrying
    /// `AUTHORITY["EPSG","2924"]`).
    ///
    /// - Throws: `EngineError.unknownCRS` when PROJ knows either not.
    public func sameReferenceSystem(_ first: String, _ second: String) throws -> Bool {
        if first == second { return true }
        let a = try referenceSystem(first), b = try referenceSystem(second)
        guard let authorityA = a.authority, let codeA = a.code, let authorityB = b.authority, let codeB = b.code else {
            return a.wkt2 != nil && a.wkt2 == b.wkt2
        }
        return authorityA.uppercased() == authorityB.uppercased() && codeA == codeB
    }
}
