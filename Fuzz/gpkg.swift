// libFuzzer entry point (scripts/fuzz gpkg): bytes → GeoPackageGeometry(blob:).
import AnnoLinkGeometry

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? GeoPackageGeometry(blob: UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
