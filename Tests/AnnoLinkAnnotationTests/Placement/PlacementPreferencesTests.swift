import AnnoLinkAnnotation
import Foundation
import Testing

/// `PlacementPreferences.parse`: the class's `placement_parameters` text read leniently.
struct PlacementPreferencesTests {
    @Test("no text, empty text and an empty object give the defaults without a message", arguments: [nil, "", "  ", "{}"] as [String?])
    func defaults(text: String?) {
        let (preferences, messages) = PlacementPreferences.parse(text)
        #expect(preferences == PlacementPreferences())
        #expect(messages.isEmpty)
        #expect(preferences.slideTolerance == 24 && preferences.slideSteps == 3 && preferences.otherSide && preferences.aroundPoint)
        #expect(preferences.removeDuplicates == nil && preferences.clearance == 0.5)
    }

    @Test("an imported Maplex class: unknown keys ignored, constrainOffset AboveLine keeps labels above")
    func esri() {
        let text = #"{"alongLinePlacement":"BestPositionAlongLine","constrainOffset":"AboveLine","engine":"maplex","method":"OffsetStraightFromLine","primaryOffset":1,"source":"esri"}"#
        let (preferences, messages) = PlacementPreferences.parse(text)
        #expect(messages.isEmpty)
        #expect(preferences == PlacementPreferences(otherSide: false))
        #expect(PlacementPreferences.parse(#"{"constrainOffset":"AboveLine","otherSide":true}"#).preferences.otherSide)
    }

    @Test("our keys are read")
    func keys() {
        let (preferences, messages) = PlacementPreferences.parse(#"{"slideTolerance":10.5,"slideSteps":5,"otherSide":false,"aroundPoint":false,"removeDuplicates":20,"clearance":1}"#)
        #expect(messages.isEmpty)
        #expect(preferences == PlacementPreferences(aroundPoint: false, slideTolerance: 10.5, slideSteps: 5, otherSide: false, removeDuplicates: 20, clearance: 1))
    }

    @Test("bad values keep their defaults and say so; the good ones still count")
    func badValues() {
        let (preferences, messages) = PlacementPreferences.parse(#"{"slideTolerance":"far","slideSteps":99,"clearance":-1,"otherSide":false}"#)
        #expect(preferences == PlacementPreferences(otherSide: false))
        #expect(messages.count == 3)
        #expect(messages.contains { $0.contains("\"slideTolerance\"") && $0.contains("using 24") })
        #expect(messages.contains { $0.contains("\"slideSteps\"") && $0.contains("not 99") })
        #expect(messages.contains { $0.contains("\"clearance\"") && $0.contains("not -1") })
    }

    @Test("text that is not a JSON object gives the defaults and a message", arguments: ["[1, 2]", "not json", "{\"slideTolerance\":"])
    func notAnObject(text: String) {
        let (preferences, messages) = PlacementPreferences.parse(text)
        #expect(preferences == PlacementPreferences())
        #expect(messages.count == 1)
        #expect(messages[0].hasPrefix("placement_parameters is not a JSON object"))
    }

    @Test("encoding and decoding round-trips")
    func codable() throws {
        let preferences = PlacementPreferences(aroundPoint: false, slideTolerance: 12, slideSteps: 2, otherSide: true, removeDuplicates: 8, clearance: 0.25)
        let data = try JSONEncoder().encode(preferences)
        #expect(try JSONDecoder().decode(PlacementPreferences.self, from: data) == preferences)
    }
}
