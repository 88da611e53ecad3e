import AnnoLinkGeometry

/// The `Element` blob of an annotation row in an ArcGIS mobile geodatabase: a protocol-buffers
/// message describing the placed text.
///
/// Fields identified on the Loudoun data (all 148 rows):
///
/// | field | wire type | meaning |
/// |---|---|---|
/// | 5 | bytes | the text's baseline, ASCII `x1,y1;x2,y2` in map coordinates (CRS units) |
/// | 6 | bytes | the text (UTF-8), equal to the row's `TextString` |
/// | 8 | 64-bit | the angle in degrees, counter-clockwise from east; the row's `Angle` within 1e-9 (327.06600000000003 against 327.066) |
/// | 20 | 64-bit | word spacing in percent; written only when set by hand (`Override` bit 1024), equal to the row's `WordSpacing` |
///
/// Fields 1 (the string "1"), 4 (varint 2) and 7 (varint 0) have the same value in every row,
/// so their meaning cannot be told; they stay available, with any other field, in `fields`.
public struct AnnotationElement: Hashable, Sendable {
    /// Field numbers of the identified fields.
    public enum FieldNumber {
        /// The baseline, `x1,y1;x2,y2`.
        public static let baseline = 5
        /// The text.
        public static let text = 6
        /// The angle in degrees.
        public static let angle = 8
        /// Word spacing in percent.
        public static let wordSpacing = 20
    }

    /// The text as placed.
    public var text: String
    /// The baseline the text sits on, from its start to its end, in map coordinates (CRS
    /// units). Two points for straight text (every row of the Loudoun data).
    public var baseline: LineString
    /// Degrees, counter-clockwise from east; 0 when the message has no angle field (protobuf's
    /// default).
    public var angle: Double
    /// Word spacing in percent of the font's normal spacing, when set by hand; nil means the
    /// symbol's own (100 % in the Loudoun classes).
    public var wordSpacing: Double?
    /// Every field of the message in wire order, the identified ones included.
    public var fields: [ProtobufField]

    /// Decodes an `Element` blob.
    ///
    /// - Throws: `AnnotationElementError` when the bytes are not a well-formed protobuf
    ///   message, when the text or the baseline is missing, when a known field has the wrong
    ///   wire type, the text is not UTF-8, the baseline is not `x,y;x,y…` with at least two
    ///   finite points, or the angle or word spacing is not finite.
    public init(_ bytes: some Collection<UInt8>) throws(AnnotationElementError) {
        let fields: [ProtobufField]
        do throws(ProtobufError) {
            fields = try ProtobufField.parseMessage(bytes)
        } catch {
            throw AnnotationElementError(offset: error.offset, message: error.message)
        }
        // Protobuf semantics: the last occurrence of a scalar field wins.
        func last(_ number: Int) -> ProtobufField? { fields.last { $0.number == number } }

        guard let textField = last(FieldNumber.text) else {
            throw AnnotationElementError(offset: nil, message: "no text (field 6)")
        }
        guard let text = textField.stringValue else {
            throw AnnotationElementError(offset: textField.offset, message: "text (field 6) is not UTF-8 bytes")
        }
        guard let baselineField = last(FieldNumber.baseline) else {
            throw AnnotationElementError(offset: nil, message: "no baseline (field 5)")
        }
        guard let baselineText = baselineField.stringValue else {
            throw AnnotationElementError(offset: baselineField.offset, message: "baseline (field 5) is not text")
        }
        guard let points = Self.parseBaseline(baselineText) else {
            throw AnnotationElementError(offset: baselineField.offset, message: "baseline (field 5) is not 'x1,y1;x2,y2': \(baselineText.prefix(80))")
        }
        var angle = 0.0
        if let angleField = last(FieldNumber.angle) {
            guard let value = angleField.doubleValue, value.isFinite else {
                throw AnnotationElementError(offset: angleField.offset, message: "angle (field 8) is not a finite double")
            }
            angle = value
        }
        var wordSpacing: Double?
        if let spacingField = last(FieldNumber.wordSpacing) {
            guard let value = spacingField.doubleValue, value.isFinite else {
                throw AnnotationElementError(offset: spacingField.offset, message: "word spacing (field 20) is not a finite double")
            }
            wordSpacing = value
        }
        self.text = text
        self.baseline = LineString(points)
        self.angle = angle
        self.wordSpacing = wordSpacing
        self.fields = fields
    }

    /// The middle of the baseline (halfway between its ends), in map coordinates: the anchor
    /// of text aligned center/baseline. NaN coordinates if `baseline` was emptied.
    public var baselineMidpoint: Point {
        guard let first = baseline.points.first, let last = baseline.points.last else {
            return Point(x: .nan, y: .nan)
        }
        return Point(x: (first.x + last.x) / 2, y: (first.y + last.y) / 2)
    }

    /// Parses `x1,y1;x2,y2[;…]`; nil unless there are at least two points, all finite.
    private static func parseBaseline(_ text: String) -> [Point]? {
        var points: [Point] = []
        for pair in text.split(separator: ";", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2,
                  let x = Double(parts[0].trimmingSpaces), let y = Double(parts[1].trimmingSpaces),
                  x.isFinite, y.isFinite
            else { return nil }
            points.append(Point(x: x, y: y))
        }
        return points.count >= 2 ? points : nil
    }
}

extension Substring {
    /// The text without leading and trailing spaces.
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
