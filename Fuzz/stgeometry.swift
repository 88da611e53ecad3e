// libFuzzer entry point (scripts/fuzz stgeometry): bytes → EsriShapeBlob (the ST_Geometry blobs of
// an Esri mobile geodatabase) → geometry and envelope on the Loudoun coordinate grid and on a
// grid with an extreme scale.
import AnnoLinkGeometry
import AnnoLinkImport

private let grids = [
    CoordinateGrid(xOrigin: -110_512_500, yOrigin: -88_858_000, xyScale: 3048.0060960121928),
    CoordinateGrid(xOrigin: -1e300, yOrigin: 1e300, xyScale: 1e-300),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let blob = try? EsriShapeBlob(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    for grid in grids {
        _ = try? blob.geometry(in: grid)
        _ = blob.envelope(in: grid)
    }
    return 0
}
