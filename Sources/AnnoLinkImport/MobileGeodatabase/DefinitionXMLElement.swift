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
