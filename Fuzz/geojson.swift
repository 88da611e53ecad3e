// libFuzzer entry point (scripts/fuzz geojson): text → Geometry(geoJSON:).
import AnnoLinkGeometry

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? Geometry(geoJSON: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
