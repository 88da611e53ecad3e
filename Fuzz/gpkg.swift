// libFuzzer entry point: compiled into module AnnoLinkGeometry by scripts/fuzz.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? GeoPackageGeometry(blob: UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
