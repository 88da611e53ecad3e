/// The kerning of an OpenType font's `GPOS` table: the pair adjustments (lookup type 2, also
/// inside extension lookups, type 9) of its `kern` features, looked up pair by pair.
///
/// FreeType's `FT_Get_Kerning` reads only the old `kern` table, while many fonts — `fonts-wine`'s
/// Tahoma among them — keep their kerning in `GPOS` only; ArcGIS applies it (see
/// docs/text-metrics.md). What is read, and what is left out:
/// - the lookups of every `kern` feature, whatever the script and language system (a label is
///   one script, and a font's scripts kern disjoint glyphs);
/// - in each lookup the first subtable covering the pair, as OpenType says; the lookups' values
///   add up;
/// - the X advance of the first glyph's value record plus that of the second's: the change in
///   the advance width. Placement adjustments and lookup flags (skipping marks) are ignored.
///
/// The table is kept as bytes and searched as the font's own binary-search layout allows (a
/// few dozen reads a pair); `FontFace` caches each pair's answer. A read past the end of a
/// damaged table reads 0, so a broken table gives wrong kerning but never a crash.
struct OpenTypePairKerning {
    private let table: [UInt8]
    /// Per lookup, in lookup-list order: the offsets of its pair adjustment subtables.
    private let lookups: [[Int]]

    /// The `kern` feature's pair adjustments in a `GPOS` table, or nil when there are none.
    init?(gpos table: [UInt8]) {
        self.table = table
        guard Self.u16(table, 0) == 1 else { return nil }
        let featureList = Int(Self.u16(table, 6))
        let lookupList = Int(Self.u16(table, 8))
        var lookupIndices = Set<Int>()
        for feature in 0..<Int(Self.u16(table, featureList)) {
            let record = featureList + 2 + 6 * feature
            guard table.count >= record + 4, Array(table[record..<record + 4]) == Array("kern".utf8) else {
                continue
            }
            let featureTable = featureList + Int(Self.u16(table, record + 4))
            for index in 0..<Int(Self.u16(table, featureTable + 2)) {
                lookupIndices.insert(Int(Self.u16(table, featureTable + 4 + 2 * index)))
            }
        }
        let lookupCount = Int(Self.u16(table, lookupList))
        var lookups: [[Int]] = []
        for index in lookupIndices.sorted() where index < lookupCount {
            let lookup = lookupList + Int(Self.u16(table, lookupList + 2 + 2 * index))
            let type = Self.u16(table, lookup)
            var subtables: [Int] = []
            for number in 0..<Int(Self.u16(table, lookup + 4)) {
                let subtable = lookup + Int(Self.u16(table, lookup + 6 + 2 * number))
                if type == 2 {
                    subtables.append(subtable)
                } else if type == 9, Self.u16(table, subtable) == 1, Self.u16(table, subtable + 2) == 2 {
                    subtables.append(subtable + Int(Self.u32(table, subtable + 4)))
                }
            }
            if !subtables.isEmpty {
                lookups.append(subtables)
            }
        }
        guard !lookups.isEmpty else { return nil }
        self.lookups = lookups
    }

    /// The change in advance width between glyphs `left` and `right`, in font units.
    func kerning(_ left: UInt32, _ right: UInt32) -> Int32 {
        guard left <= UInt16.max, right <= UInt16.max else { return 0 }
        var total: Int32 = 0
        for subtables in lookups {
            for subtable in subtables {
                if let value = pairValue(subtable, UInt16(left), UInt16(right)) {
                    total += value
                    break
                }
            }
        }
        return total
    }

    /// The pair's advance change from one pair adjustment subtable, or nil when the subtable
    /// does not cover the pair.
    private func pairValue(_ subtable: Int, _ left: UInt16, _ right: UInt16) -> Int32? {
        guard let coverageIndex = coverageIndex(subtable + Int(u16(subtable + 2)), left) else { return nil }
        let format1 = u16(subtable + 4)
        let format2 = u16(subtable + 6)
        let size1 = 2 * format1.nonzeroBitCount
        let size2 = 2 * format2.nonzeroBitCount
        switch u16(subtable) {
        case 1:
            guard coverageIndex < Int(u16(subtable + 8)) else { return nil }
            let pairSet = subtable + Int(u16(subtable + 10 + 2 * coverageIndex))
            let recordSize = 2 + size1 + size2
            // The pair value records are sorted by the second glyph.
            var low = 0
            var high = Int(u16(pairSet)) - 1
            while low <= high {
                let middle = (low + high) / 2
                let record = pairSet + 2 + middle * recordSize
                let glyph = u16(record)
                if glyph < right {
                    low = middle + 1
                } else if glyph > right {
                    high = middle - 1
                } else {
                    return xAdvance(record + 2, format1) + xAdvance(record + 2 + size1, format2)
                }
            }
            return nil
        case 2:
            let class1 = glyphClass(subtable + Int(u16(subtable + 8)), left)
            let class2 = glyphClass(subtable + Int(u16(subtable + 10)), right)
            let class1Count = Int(u16(subtable + 12))
            let class2Count = Int(u16(subtable + 14))
            guard class1 < class1Count, class2 < class2Count else { return nil }
            let record = subtable + 16 + (class1 * class2Count + class2) * (size1 + size2)
            return xAdvance(record, format1) + xAdvance(record + size1, format2)
        default:
            return nil
        }
    }

    /// The X advance in a value record of the given format, 0 when the format has none.
    private func xAdvance(_ record: Int, _ format: UInt16) -> Int32 {
        guard format & 0x0004 != 0 else { return 0 }
        // X and Y placement come first when present.
        return Int32(Int16(bitPattern: u16(record + 2 * (format & 0x0003).nonzeroBitCount)))
    }

    /// A glyph's index in a coverage table, nil when the table does not cover it.
    private func coverageIndex(_ coverage: Int, _ glyph: UInt16) -> Int? {
        let count = Int(u16(coverage + 2))
        switch u16(coverage) {
        case 1:
            var low = 0
            var high = count - 1
            while low <= high {
                let middle = (low + high) / 2
                let value = u16(coverage + 4 + 2 * middle)
                if value < glyph {
                    low = middle + 1
                } else if value > glyph {
                    high = middle - 1
                } else {
                    return middle
                }
            }
            return nil
        case 2:
            guard let range = rangeRecord(coverage + 4, count, glyph) else { return nil }
            return Int(u16(range + 4)) + Int(glyph) - Int(u16(range))
        default:
            return nil
        }
    }

    /// A glyph's class in a class definition table; 0 for glyphs it does not list.
    private func glyphClass(_ classDef: Int, _ glyph: UInt16) -> Int {
        switch u16(classDef) {
        case 1:
            let start = Int(u16(classDef + 2))
            let index = Int(glyph) - start
            guard index >= 0, index < Int(u16(classDef + 4)) else { return 0 }
            return Int(u16(classDef + 6 + 2 * index))
        case 2:
            guard let range = rangeRecord(classDef + 4, Int(u16(classDef + 2)), glyph) else { return 0 }
            return Int(u16(range + 4))
        default:
            return 0
        }
    }

    /// The record (start glyph, end glyph, value) among `count` sorted 6-byte range records at
    /// `records` whose range holds `glyph`.
    private func rangeRecord(_ records: Int, _ count: Int, _ glyph: UInt16) -> Int? {
        var low = 0
        var high = count - 1
        while low <= high {
            let middle = (low + high) / 2
            let record = records + 6 * middle
            if u16(record + 2) < glyph {
                low = middle + 1
            } else if u16(record) > glyph {
                high = middle - 1
            } else {
                return record
            }
        }
        return nil
    }

    private func u16(_ offset: Int) -> UInt16 {
        Self.u16(table, offset)
    }

    /// The big-endian 16-bit number at `offset`; 0 past the end of the table.
    private static func u16(_ table: [UInt8], _ offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= table.count else { return 0 }
        return UInt16(table[offset]) << 8 | UInt16(table[offset + 1])
    }

    /// The big-endian 32-bit number at `offset`; 0 past the end of the table.
    private static func u32(_ table: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(u16(table, offset)) << 16 | UInt32(u16(table, offset + 2))
    }
}
