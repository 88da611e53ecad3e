import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of a parsed `GDB_Items.Definition` document: name, attributes, child elements
/// and the element's own text (entities already resolved).
struct DefinitionXMLElement: Sendable {
    var name: String
    var attributes: [String: String]
    var children: [DefinitionXMLElement]
    var text: String

    /// The first child element called `name`.
    func child(_ name: String) -> DefinitionXMLElement? {
        children.first { $0.name == name }
    }

    /// All child elements called `name`, in document order.
    func children(_ name: String) -> [DefinitionXMLElement] {
        children.filter { $0.name == name }
    }

    /// The text of the child element at `path` (each step a child name), or nil when a step is
    /// missing.
    func text(at path: String...) -> String? {
        var element = self
        for step in path {
            guard let next = element.child(step) else { return nil }
            element = next
        }
        return element.text
    }

    /// Parses a whole document and returns its root element.
    ///
    /// Wraps Foundation's `XMLParser` (libxml2 on Linux); external entities are not resolved.
    static func parse(_ xml: String) throws(GeodatabaseDefinitionError) -> DefinitionXMLElement {
        try refuseProcessingInstructions(xml)
        let parser = XMLParser(data: Data(xml.utf8))
        let builder = TreeBuilder()
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), let root = builder.root else {
            let reason = parser.parserError.map { String(describing: $0.localizedDescription) } ?? "no root element"
            throw .malformedXML(line: parser.lineNumber, column: parser.columnNumber, message: reason)
        }
        return root
    }

    /// Refuses a processing instruction (`<?target data?>`) anywhere but the XML declaration at
    /// the start. Definition documents have none, and Foundation's XMLParser (Swift 6.3.1)
    /// crashes on one without data (`<?x?>`: it takes the length of a NULL string), so such a
    /// file would stop an import instead of being reported. A `<?` inside a comment or CDATA
    /// section is refused too: definitions have neither.
    static func refuseProcessingInstructions(_ xml: String) throws(GeodatabaseDefinitionError) {
        let bytes = Array(xml.utf8)
        var start = 0
        while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x0A || bytes[start] == 0x0D || bytes[start] == 0x09 { start += 1 }
        if bytes.count >= start + 3, bytes[start..<(start + 3)].elementsEqual([0xEF, 0xBB, 0xBF]) { start += 3 }
        // The declaration `<?xml …?>` may open the document.
        if bytes.count > start + 5, bytes[start..<(start + 5)].elementsEqual(Array("<?xml".utf8)),
           [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start + 5]) {
            var i = start + 5
            while i + 1 < bytes.count, !(bytes[i] == UInt8(ascii: "?") && bytes[i + 1] == UInt8(ascii: ">")) { i += 1 }
            start = i + 2
        }
        var line = 1
        var column = 1
        var i = 0
        while i < bytes.count {
            if i >= start, bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "?") {
                throw .malformedXML(line: line, column: column, message: "a processing instruction (<?…?>), which definition documents do not have")
            }
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
    }
}

/// Builds the element tree from the parser's callbacks. Lives only for one `parse` call.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [DefinitionXMLElement] = []
    var root: DefinitionXMLElement?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(DefinitionXMLElement(name: elementName, attributes: attributeDict, children: [], text: ""))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }
}
