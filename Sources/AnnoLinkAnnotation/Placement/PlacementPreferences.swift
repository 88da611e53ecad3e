import Foundation

/// How freely a class's labels may leave the rule's position to avoid other labels, read from
/// the class's `placement_parameters` JSON object.
///
/// Keys (all optional; distances in points of text at the reference scale):
///
/// | key | type | default | meaning |
/// |---|---|---|---|
/// | `aroundPoint` | bool | true | point labels may take the positions around the point |
/// | `slideTolerance` | number ≥ 0 | 24 | how far a line label may slide along its line from the middle (24 pt = 33 ft at 1:1200, so Loudoun's 5–30 ft slides are reachable) |
/// | `slideSteps` | integer 0–20 | 3 | slide positions on each side of the middle (step = tolerance / steps) |
/// | `otherSide` | bool | true | line labels may go to the other (lower) side of the line |
/// | `removeDuplicates` | number ≥ 0 | absent (off) | labels of the class with the same text within this distance are one label: one is kept, the others are unplaced |
/// | `clearance` | number ≥ 0 | 0.5 | the gap placed labels keep from each other and from obstacles |
///
/// Other keys are ignored (imported classes carry Esri's, e.g. `{"source":"esri","engine":"maplex"}`),
/// with one exception: an imported Maplex `"constrainOffset": "AboveLine"` means `otherSide`
/// false unless `otherSide` itself is given.
public struct PlacementPreferences: Hashable, Sendable, Codable {
    /// Point labels may take the positions around the point.
    public var aroundPoint: Bool
    /// How far (points) a line label may slide along its line, either way from the middle.
    public var slideTolerance: Double
    /// Slide positions each way from the middle.
    public var slideSteps: Int
    /// Line labels may go to the other side of the line.
    public var otherSide: Bool
    /// Same-text labels of the class within this distance (points) are duplicates; nil = keep all.
    public var removeDuplicates: Double?
    /// The gap (points) placed labels keep from each other and from obstacles.
    public var clearance: Double

    /// Preferences with the given values; the defaults are those of the table above.
    public init(aroundPoint: Bool = true, slideTolerance: Double = 24, slideSteps: Int = 3, otherSide: Bool = true,
                removeDuplicates: Double? = nil, clearance: Double = 0.5) {
        self.aroundPoint = aroundPoint
        self.slideTolerance = slideTolerance
        self.slideSteps = slideSteps
        self.otherSide = otherSide
        self.removeDuplicates = removeDuplicates
        self.clearance = clearance
    }

    /// The preferences in a class's `placement_parameters` text, and what was wrong with it.
    ///
    /// Never fails: nil or empty text gives the defaults; text that is not a JSON object, or a
    /// key with a value of the wrong type or out of range, gives the default for what could not
    /// be read and a message naming the key, the value and the default used.
    public static func parse(_ text: String?) -> (preferences: PlacementPreferences, messages: [String]) {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return (PlacementPreferences(), []) }
        do {
            let read = try JSONDecoder().decode(Lenient.self, from: Data(text.utf8))
            return (read.preferences, read.messages)
        } catch {
            return (PlacementPreferences(), ["placement_parameters is not a JSON object (\(Self.describe(error))); using the default placement preferences"])
        }
    }

    enum CodingKeys: String, CodingKey {
        case aroundPoint, slideTolerance, slideSteps, otherSide, removeDuplicates, clearance
    }

    /// Decodes leniently, as `parse(_:)` does: a bad value leaves its default.
    public init(from decoder: any Decoder) throws {
        var messages: [String] = []
        try self.init(decoder, messages: &messages)
    }

    private init(_ decoder: any Decoder, messages: inout [String]) throws {
        self.init()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func read<T: Decodable>(_ key: CodingKeys, _ type: T.Type, _ requirement: String, valid: (T) -> Bool = { _ in true }, default value: String) -> T? {
            do {
                guard let v = try container.decodeIfPresent(type, forKey: key) else { return nil }
                if valid(v) { return v }
                messages.append("placement_parameters: \"\(key.stringValue)\" must be \(requirement), not \(v); using \(value)")
            } catch {
                messages.append("placement_parameters: \"\(key.stringValue)\" must be \(requirement) (\(Self.describe(error))); using \(value)")
            }
            return nil
        }
        let distance = { (v: Double) in v.isFinite && v >= 0 }
        if let v = read(.aroundPoint, Bool.self, "true or false", default: "\(aroundPoint)") { aroundPoint = v }
        if let v = read(.slideTolerance, Double.self, "a number of points ≥ 0", valid: distance, default: "\(slideTolerance)") { slideTolerance = v }
        if let v = read(.slideSteps, Int.self, "an integer from 0 to 20", valid: { (0...20).contains($0) }, default: "\(slideSteps)") { slideSteps = v }
        if let v = read(.otherSide, Bool.self, "true or false", default: "\(otherSide)") {
            otherSide = v
        } else if !container.contains(.otherSide), Self.esriConstrainedAbove(decoder) {
            otherSide = false
        }
        if let v = read(.removeDuplicates, Double.self, "a number of points ≥ 0", valid: distance, default: "off") { removeDuplicates = v }
        if let v = read(.clearance, Double.self, "a number of points ≥ 0", valid: distance, default: "\(clearance)") { clearance = v }
    }

    /// Whether imported Maplex settings constrain line labels above the line.
    private static func esriConstrainedAbove(_ decoder: any Decoder) -> Bool {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        guard let container = try? decoder.container(keyedBy: Key.self),
              let value = try? container.decodeIfPresent(String.self, forKey: Key(stringValue: "constrainOffset")) else { return false }
        return value == "AboveLine"
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context):
            context.debugDescription
        default:
            "\(error)"
        }
    }

    /// The top-level value `parse(_:)` decodes, carrying the messages out.
    private struct Lenient: Decodable {
        var preferences: PlacementPreferences
        var messages: [String] = []

        init(from decoder: any Decoder) throws {
            var messages: [String] = []
            preferences = try PlacementPreferences(decoder, messages: &messages)
            self.messages = messages
        }
    }
}
