// libFuzzer entry point (scripts/fuzz wkb): ISO WKB bytes → Geometry(wkb:).
import AnnoLinkGeometry

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? Geometry(wkb: UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
