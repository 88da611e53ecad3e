// libFuzzer entry point (scripts/fuzz annoelement): bytes → AnnotationElement (the protobuf
// `Element` of an Esri annotation row: text, baseline, angle, word spacing), and every
// length-delimited field read again as a nested message.
import AnnoLinkImport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let element = try? AnnotationElement(bytes) {
        _ = element.baselineMidpoint
    }
    if let fields = try? ProtobufField.parseMessage(bytes) {
        for field in fields {
            _ = (field.doubleValue, field.integerValue, field.stringValue)
            _ = try? field.nestedMessage()
        }
    }
    return 0
}
