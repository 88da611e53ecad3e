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
    /// Reads the XML that definition documents are written in (`DefinitionXMLReader` says what it
    /// takes and what it refuses) with a reader of annolink's own rather than Foundation's
    /// `XMLParser`, whose libxml2 and ICU the loader mapped at every start of every command
    /// (docs/design.md, "Start-up"), and which crashed on a processing instruction without data.
    static func parse(_ xml: String) throws(GeodatabaseDefinitionError) -> DefinitionXMLElement {
        var reader = DefinitionXMLReader(Array(xml.utf8))
        return try reader.document()
    }
}

/// Reads one XML document into its element tree, checking that it is well formed.
///
/// Takes what Esri writes in `GDB_Items`: an XML declaration, elements and attributes (names as
/// written, prefixes kept, namespaces not resolved), character data with line ends normalised to
/// LF, the five predefined entities and character references, CDATA sections and comments.
/// Refuses, with the line and column: a document type declaration (so no entity of a document's
/// own can be declared, let alone expanded), processing instructions, unknown entities, control
/// characters, mismatched or unclosed tags, repeated attributes, a second root, and nesting
/// deeper than `maximumDepth`.
struct DefinitionXMLReader {
    /// The Loudoun definitions nest five deep; the bound keeps a hostile file from building a
    /// tree that takes the stack to tear down.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An element being read: what is known of it before its end tag.
    private struct OpenElement {
        var name: String
        var attributes: [String: String]
        var children: [DefinitionXMLElement] = []
        var text: [UInt8] = []

        var element: DefinitionXMLElement {
            DefinitionXMLElement(name: name, attributes: attributes, children: children, text: String(decoding: text, as: UTF8.self))
        }
    }

    mutating func document() throws(GeodatabaseDefinitionError) -> DefinitionXMLElement {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        if starts(with: "<?xml"), position + 5 < bytes.count, isSpace(bytes[position + 5]) {
            guard let end = find("?>", from: position) else { throw error("the XML declaration is not closed") }
            position = end + 2
        }
        try skipMiscellany()
        guard position < bytes.count else { throw error("no root element") }
        guard bytes[position] == UInt8(ascii: "<") else { throw error("text before the root element") }
        guard !starts(with: "</"), !starts(with: "<!") else { throw error("expected the root element's start tag") }
        let (opened, isEmpty) = try readStartTag()
        var root = opened.element  // an empty root as it is; any other once its end tag is read
        var stack: [OpenElement] = isEmpty ? [] : [opened]
        // Each turn reads one piece of the innermost open element's content.
        while let innermost = stack.last {
            guard position < bytes.count else { throw error("the document ends inside <\(innermost.name)>") }
            if bytes[position] != UInt8(ascii: "<") {
                try readText(into: &stack[stack.count - 1].text)
            } else if starts(with: "</") {
                let element = try readEndTag(closing: stack.removeLast())
                if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
            } else if starts(with: "<!--") {
                try skipComment()
            } else if starts(with: "<![CDATA[") {
                guard let end = find("]]>", from: position + 9) else { throw error("a CDATA section is not closed") }
                appendNormalisingLineEnds(bytes[(position + 9)..<end], to: &stack[stack.count - 1].text)
                position = end + 3
            } else if starts(with: "<?") {
                throw error("a processing instruction (<?…?>), which definition documents do not have")
            } else if starts(with: "<!") {
                throw error("a declaration (<!…>), which definition documents do not have")
            } else {
                guard stack.count < Self.maximumDepth else { throw error("elements nested deeper than \(Self.maximumDepth)") }
                let (child, isEmpty) = try readStartTag()
                if isEmpty { stack[stack.count - 1].children.append(child.element) } else { stack.append(child) }
            }
        }
        try skipMiscellany()
        guard position == bytes.count else { throw error("content after the root element") }
        return root
    }

    /// Skips white space and comments outside the root element; refuses anything else but `<`.
    private mutating func skipMiscellany() throws(GeodatabaseDefinitionError) {
        while position < bytes.count {
            if isSpace(bytes[position]) {
                position += 1
            } else if starts(with: "<!--") {
                try skipComment()
            } else if starts(with: "<?") {
                throw error("a processing instruction (<?…?>), which definition documents do not have")
            } else if starts(with: "<!DOCTYPE") {
                throw error("a document type declaration, which definition documents do not have")
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws(GeodatabaseDefinitionError) {
        guard let end = find("-->", from: position + 4) else { throw error("a comment is not closed") }
        position = end + 3
    }

    /// `<name attribute="value" …>` or `<name … />`, with `position` at the `<`.
    private mutating func readStartTag() throws(GeodatabaseDefinitionError) -> (OpenElement, isEmpty: Bool) {
        position += 1
        let name = try readName()
        var attributes: [String: String] = [:]
        while true {
            let hadSpace = skipSpace()
            guard position < bytes.count else { throw error("the start tag <\(name)> is not closed") }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                return (OpenElement(name: name, attributes: attributes), false)
            }
            if starts(with: "/>") {
                position += 2
                return (OpenElement(name: name, attributes: attributes), true)
            }
            guard hadSpace else { throw error("expected white space, > or /> in the start tag <\(name)>") }
            let attributeStart = position
            let attribute = try readName()
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { throw error("the attribute \(attribute) has no value") }
            position += 1
            skipSpace()
            let value = try readAttributeValue()
            guard attributes.updateValue(value, forKey: attribute) == nil else {
                position = attributeStart
                throw error("the attribute \(attribute) is given twice")
            }
        }
    }

    /// `</name>`, which must close `open`, with `position` at the `<`.
    private mutating func readEndTag(closing open: OpenElement) throws(GeodatabaseDefinitionError) -> DefinitionXMLElement {
        let start = position
        position += 2
        let name = try readName()
        skipSpace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else { throw error("the end tag </\(name)> is not closed") }
        guard name == open.name else {
            position = start
            throw error("</\(name)> closes <\(open.name)>")
        }
        position += 1
        return open.element
    }

    /// A tag or attribute name: everything up to white space or one of `/>=<&'"`.
    private mutating func readName() throws(GeodatabaseDefinitionError) -> String {
        let start = position
        while position < bytes.count, !isSpace(bytes[position]), !"/>=<&'\"".utf8.contains(bytes[position]) {
            try checkCharacter(bytes[position])
            position += 1
        }
        guard position > start else { throw error("expected a name") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// A quoted attribute value, references resolved and white space turned into spaces as
    /// XML's attribute-value normalisation does.
    private mutating func readAttributeValue() throws(GeodatabaseDefinitionError) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw error("an attribute value is not quoted")
        }
        let quote = bytes[position]
        position += 1
        var value: [UInt8] = []
        while position < bytes.count, bytes[position] != quote {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "<"): throw error("< in an attribute value")
            case UInt8(ascii: "&"): try readReference(into: &value)
            case 0x0D:
                value.append(0x20)
                position += position + 1 < bytes.count && bytes[position + 1] == 0x0A ? 2 : 1
            case 0x09, 0x0A:
                value.append(0x20)
                position += 1
            default:
                try checkCharacter(byte)
                value.append(byte)
                position += 1
            }
        }
        guard position < bytes.count else { throw error("an attribute value is not closed") }
        position += 1
        return String(decoding: value, as: UTF8.self)
    }

    /// Character data up to the next `<`, references resolved and line ends normalised.
    private mutating func readText(into text: inout [UInt8]) throws(GeodatabaseDefinitionError) {
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") {
            let byte = bytes[position]
            if byte == UInt8(ascii: "&") {
                try readReference(into: &text)
            } else if byte == 0x0D {
                text.append(0x0A)
                position += position + 1 < bytes.count && bytes[position + 1] == 0x0A ? 2 : 1
            } else {
                if byte == UInt8(ascii: ">"), position >= 2, bytes[position - 2] == UInt8(ascii: "]"), bytes[position - 1] == UInt8(ascii: "]") {
                    throw error("]]> outside a CDATA section")
                }
                try checkCharacter(byte)
                text.append(byte)
                position += 1
            }
        }
    }

    /// `&name;` or `&#…;` at `position`, appended as UTF-8.
    private mutating func readReference(into text: inout [UInt8]) throws(GeodatabaseDefinitionError) {
        let start = position
        guard let end = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            throw error("& that starts no entity or character reference (write &amp;)")
        }
        let name = String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
        let scalar: Unicode.Scalar?
        switch name {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "apos": scalar = "'"
        case "quot": scalar = "\""
        default:
            if name.hasPrefix("#x"), name.count > 2, name.dropFirst(2).allSatisfy { $0.isASCII && $0.isHexDigit }, let value = UInt32(name.dropFirst(2), radix: 16) {
                scalar = Self.xmlCharacter(value)
            } else if name.hasPrefix("#"), name.count > 1, name.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }, let value = UInt32(name.dropFirst()) {
                scalar = Self.xmlCharacter(value)
            } else {
                throw error("the entity &\(name); is not one of XML's own")
            }
        }
        guard let scalar else { throw error("&\(name); is not a character XML allows") }
        text.append(contentsOf: String(Character(scalar)).utf8)
        position = end + 1
    }

    /// The character `value` when XML allows it in a document (XML 1.0, production 2).
    private static func xmlCharacter(_ value: UInt32) -> Unicode.Scalar? {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: Unicode.Scalar(value)
        default: nil
        }
    }

    /// Refuses the control characters XML does not allow (the input is valid UTF-8, being a
    /// `String`, so only these single bytes need a look).
    private func checkCharacter(_ byte: UInt8) throws(GeodatabaseDefinitionError) {
        if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
            let hex = String(byte, radix: 16, uppercase: true)
            throw error("the control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex), which XML does not allow")
        }
    }

    private func appendNormalisingLineEnds(_ slice: ArraySlice<UInt8>, to text: inout [UInt8]) {
        var i = slice.startIndex
        while i < slice.endIndex {
            if slice[i] == 0x0D {
                text.append(0x0A)
                if i + 1 < slice.endIndex, slice[i + 1] == 0x0A { i += 1 }
            } else {
                text.append(slice[i])
            }
            i += 1
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func starts(with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { bytes[position..<(position + count)].elementsEqual($0) }
    }

    /// Where `marker` next starts at or after `start`.
    private func find(_ marker: StaticString, from start: Int) -> Int? {
        marker.withUTF8Buffer { marker in
            guard bytes.count >= marker.count else { return nil }
            var i = start
            while i + marker.count <= bytes.count {
                if bytes[i] == marker[0], bytes[i..<(i + marker.count)].elementsEqual(marker) { return i }
                i += 1
            }
            return nil
        }
    }

    /// The error at `position`: its line and column (in characters, from 1).
    private func error(_ message: String) -> GeodatabaseDefinitionError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return .malformedXML(line: line, column: column, message: message)
    }
}
