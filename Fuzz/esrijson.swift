// libFuzzer entry point: compiled into module AnnoLinkGeometry by scripts/fuzz.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? Geometry(esriJSON: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
