// libFuzzer entry point (scripts/fuzz wkt): text → Geometry(wkt:).
import AnnoLinkGeometry

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? Geometry(wkt: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
