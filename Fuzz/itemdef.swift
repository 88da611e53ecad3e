// libFuzzer entry point (scripts/fuzz itemdef): text → GeodatabaseItemDefinition (a `GDB_Items`
// definition document of an Esri mobile geodatabase: XML, with the CIM label classes as JSON
// inside it), then what the importer asks of it.
import AnnoLinkImport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let xml = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let definition = try? GeodatabaseItemDefinition(xml: xml) else { return 0 }
    _ = definition.tableName
    _ = definition.isAnnotation
    _ = definition.annotationLink(in: [definition])
    return 0
}
