/// Ascending keys stored as runs of consecutive integers: a move of a fid range is one run.
struct KeyRanges {
    struct Range { var first: Int64; var last: Int64 }
    private(set) var ranges: [Range] = []
    /// The index of each range's first key among all keys.
    private var offsets: [Int] = []
    private(set) var count = 0

    /// Appends `key`, which must be above every key appended before.
    mutating func append(_ key: Int64) {
        if let last = ranges.last?.last, last != Int64.max, key == last + 1 {
            ranges[ranges.count - 1].last = key
        } else {
            precondition(ranges.last.map { key > $0.last } ?? true, "keys must ascend")
            ranges.append(Range(first: key, last: key))
            offsets.append(count)
        }
        count += 1
    }

    /// The `index`-th key in ascending order.
    func key(at index: Int) -> Int64 {
        precondition(index >= 0 && index < count, "index \(index) beyond \(count) keys")
        var low = 0, high = ranges.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if offsets[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return ranges[low].first + Int64(index - offsets[low])
    }

    /// Pairs of 64-bit little-endian integers (first, last).
    var encoded: [UInt8] {
        MoveImage.encode(ranges.flatMap { [UInt64(bitPattern: $0.first), UInt64(bitPattern: $0.last)] })
    }

    init() {}

    init?(encoded bytes: [UInt8]) {
        guard let values = MoveImage.decode(bytes), values.count % 2 == 0 else { return nil }
        for pair in stride(from: 0, to: values.count, by: 2) {
            let range = Range(first: Int64(bitPattern: values[pair]), last: Int64(bitPattern: values[pair + 1]))
            guard range.first <= range.last, ranges.last.map({ range.first > $0.last }) ?? true else { return nil }
            ranges.append(range)
            offsets.append(count)
            count += Int(range.last - range.first) + 1
        }
    }
}
