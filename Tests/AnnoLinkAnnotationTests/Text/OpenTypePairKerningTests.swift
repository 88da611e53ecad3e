import Testing

@testable import AnnoLinkAnnotation

/// The `GPOS` pair-kerning reader on a table assembled here by hand from the OpenType
/// specification: one lookup of glyph pairs (format 1) and one extension lookup of class pairs
/// (format 2).
struct OpenTypePairKerningTests {
    static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }

    /// A `GPOS` table whose feature `featureTag` uses two lookups:
    /// 0. pairs: glyph 10 before 20 −30, before 21 −40;
    /// 1. (in an extension) classes: glyphs 10–11 before 30–31 −7, with an X placement of 99
    ///    that is not an advance.
    static func table(featureTag: String = "kern") -> [UInt8] {
        let coverage1 = be16(1) + be16(1) + be16(10)
        let pairSet = be16(2) + be16(20) + be16(-30) + be16(21) + be16(-40)
        let pairs = be16(1) + be16(12) + be16(0x0004) + be16(0) + be16(1) + be16(12 + coverage1.count)
            + coverage1 + pairSet
        let records = [(0, 0), (0, 0), (0, 0), (99, -7)].flatMap { be16($0.0) + be16($0.1) }
        let coverage2 = be16(2) + be16(1) + be16(10) + be16(11) + be16(0)
        let classes1 = be16(1) + be16(10) + be16(2) + be16(1) + be16(1)
        let classes2 = be16(2) + be16(1) + be16(30) + be16(31) + be16(1)
        let classPairs = be16(2) + be16(32) + be16(0x0005) + be16(0) + be16(42) + be16(52) + be16(2) + be16(2)
            + records + coverage2 + classes1 + classes2
        let extensionSubtable = be16(1) + be16(2) + be32(8) + classPairs
        let lookup0 = be16(2) + be16(0) + be16(1) + be16(8) + pairs
        let lookup1 = be16(9) + be16(0) + be16(1) + be16(8) + extensionSubtable
        let lookupList = be16(2) + be16(6) + be16(6 + lookup0.count) + lookup0 + lookup1
        let feature = be16(0) + be16(2) + be16(0) + be16(1)
        let featureList = be16(1) + Array(featureTag.utf8) + be16(8) + feature
        let scriptList = be16(0)
        let header = be16(1) + be16(0) + be16(10) + be16(12) + be16(12 + featureList.count)
        return header + scriptList + featureList + lookupList
    }

    @Test func pairsAndClassesAddUp() throws {
        let kerning = try #require(OpenTypePairKerning(gpos: Self.table()))
        #expect(kerning.kerning(10, 20) == -30)
        #expect(kerning.kerning(10, 21) == -40)
        #expect(kerning.kerning(10, 30) == -7)
        #expect(kerning.kerning(11, 31) == -7)
        #expect(kerning.kerning(11, 20) == 0)
        #expect(kerning.kerning(12, 30) == 0)
        #expect(kerning.kerning(20, 10) == 0)
        #expect(kerning.kerning(70_000, 10) == 0)
    }

    @Test func otherFeaturesAreNotKerning() {
        #expect(OpenTypePairKerning(gpos: Self.table(featureTag: "mark")) == nil)
        #expect(OpenTypePairKerning(gpos: []) == nil)
    }

    @Test func truncatedTablesDoNotCrash() {
        let table = Self.table()
        for length in 0..<table.count {
            let kerning = OpenTypePairKerning(gpos: Array(table.prefix(length)))
            for (left, right) in [(10, 20), (10, 21), (10, 30), (11, 31)] {
                _ = kerning?.kerning(UInt32(left), UInt32(right))
            }
        }
    }
}
