import AnnoLinkTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import AnnoLinkImport

/// annolink reads definition documents with a reader of its own (`DefinitionXMLReader`), so that
/// no command loads libxml2 and ICU at start-up. libxml2, through Foundation's `XMLParser`, is the
/// oracle here: for every XML document ArcGIS wrote into the Loudoun file, both give the same tree.
@Suite("Definition XML reader")
struct DefinitionXMLReaderTests {
    /// Every XML text in the Loudoun geodatabase's item tables.
    static func loudounDocuments() throws -> [String] {
        let database = try LoudounDatabase(path: Fixtures.loudoun)
        let queries = [
            "SELECT Definition FROM GDB_Items", "SELECT Documentation FROM GDB_Items", "SELECT ItemInfo FROM GDB_Items",
            "SELECT Attributes FROM GDB_ItemRelationships",
        ]
        return try queries.flatMap { try database.rows($0).compactMap { $0[0].text }.filter { !$0.isEmpty } }
    }

    @Test("every XML document in the Loudoun file reads as libxml2 reads it")
    func loudounAsLibXML2() throws {
        let documents = try Self.loudounDocuments()
        #expect(documents.count >= 40, "only \(documents.count) documents")
        for document in documents {
            let ours = try DefinitionXMLElement.parse(document)
            let libxml2 = try #require(LibXML2Tree.parse(document))
            #expect(ours == libxml2, "\(document.prefix(120))")
        }
    }

    @Test("entities, character references, CDATA, comments, line ends and attributes")
    func constructs() throws {
        let xml = "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<!-- before -->\n<a x='1 &amp; 2' y=\"tab\there\">"
            + "&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;<b/><![CDATA[<raw> &amp;]]>line\r\nend\rx<!-- inside --></a>\n<!-- after -->\n"
        let root = try DefinitionXMLElement.parse(xml)
        #expect(root.name == "a")
        #expect(root.attributes == ["x": "1 & 2", "y": "tab here"])
        #expect(root.text == "<>&'\"AB😀<raw> &amp;line\nend\nx")
        #expect(root.children.map(\.name) == ["b"])
        #expect(root == LibXML2Tree.parse(xml))
    }

    @Test("malformed and hostile documents are refused with where and why", arguments: [
        ("", 1, 1, "no root element"),
        ("   ", 1, 4, "no root element"),
        ("text", 1, 1, "text before the root element"),
        ("</a>", 1, 1, "expected the root element's start tag"),
        ("<a>", 1, 4, "the document ends inside <a>"),
        ("<a><b></a>", 1, 7, "</a> closes <b>"),
        ("<a></a><b/>", 1, 8, "content after the root element"),
        ("<a x='1' x='2'/>", 1, 10, "the attribute x is given twice"),
        ("<a x=1/>", 1, 6, "an attribute value is not quoted"),
        ("<a x='<'/>", 1, 7, "< in an attribute value"),
        ("<a x='1'y='2'/>", 1, 9, "expected white space, > or /> in the start tag <a>"),
        ("<a>&nbsp;</a>", 1, 4, "the entity &nbsp; is not one of XML's own"),
        ("<a>&#0;</a>", 1, 4, "&#0; is not a character XML allows"),
        ("<a>& b</a>", 1, 4, "& that starts no entity or character reference (write &amp;)"),
        ("<a>\u{1}</a>", 1, 4, "the control character U+0001, which XML does not allow"),
        ("<a>]]></a>", 1, 6, "]]> outside a CDATA section"),
        ("<a><![CDATA[x</a>", 1, 4, "a CDATA section is not closed"),
        ("<a><!-- x</a>", 1, 4, "a comment is not closed"),
        ("<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", 1, 1, "a document type declaration, which definition documents do not have"),
        ("<a><!ENTITY e \"x\"></a>", 1, 4, "a declaration (<!…>), which definition documents do not have"),
        ("<a>\n  <?x?></a>", 2, 3, "a processing instruction (<?…?>), which definition documents do not have"),
        ("<?x?><a/>", 1, 1, "a processing instruction (<?…?>), which definition documents do not have"),
    ])
    func refused(_ xml: String, _ line: Int, _ column: Int, _ message: String) {
        #expect(throws: GeodatabaseDefinitionError.malformedXML(line: line, column: column, message: message)) {
            try DefinitionXMLElement.parse(xml)
        }
        // libxml2 refuses each too, but for what it would take: a processing instruction, a
        // document type, and whatever follows the root (Foundation's XMLParser stops at its end).
        let libxml2Takes = ["processing instruction", "document type", "after the root"]
        if !libxml2Takes.contains(where: message.contains) {
            #expect(LibXML2Tree.parse(xml) == nil, "libxml2 took \(xml.debugDescription)")
        }
    }

    @Test("nesting is bounded")
    func depth() throws {
        let deep = String(repeating: "<a>", count: DefinitionXMLReader.maximumDepth + 1)
        #expect(throws: GeodatabaseDefinitionError.malformedXML(
            line: 1, column: 3 * DefinitionXMLReader.maximumDepth + 1, message: "elements nested deeper than 256")) {
            try DefinitionXMLElement.parse(deep)
        }
        let deepest = String(repeating: "<a>", count: DefinitionXMLReader.maximumDepth) + String(repeating: "</a>", count: DefinitionXMLReader.maximumDepth)
        #expect(try DefinitionXMLElement.parse(deepest).children.count == 1)
    }
}

extension DefinitionXMLElement: Equatable {
    public static func == (a: DefinitionXMLElement, b: DefinitionXMLElement) -> Bool {
        a.name == b.name && a.attributes == b.attributes && a.text == b.text && a.children == b.children
    }
}

/// The tree Foundation's `XMLParser` (libxml2) reads: the oracle.
private final class LibXML2Tree: NSObject, XMLParserDelegate {
    var stack: [DefinitionXMLElement] = []
    var root: DefinitionXMLElement?

    static func parse(_ xml: String) -> DefinitionXMLElement? {
        let parser = XMLParser(data: Data(xml.utf8))
        let builder = LibXML2Tree()
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        return parser.parse() ? builder.root : nil
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(DefinitionXMLElement(name: elementName, attributes: attributeDict, children: [], text: ""))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if !stack.isEmpty { stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self) }
    }
}
