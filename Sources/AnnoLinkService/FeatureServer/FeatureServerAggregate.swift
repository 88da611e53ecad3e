import AnnoLinkStore
import Foundation

/// The aggregate answers of a layer's `query`: `returnDistinctValues` (the distinct
/// combinations of the `outFields` values) and `outStatistics` (count, sum, min, max, avg,
/// stddev, var, per combination of `groupByFieldsForStatistics`). Worked out here over every
/// matching row the store reads (`FeatureQuery.forEachRow`), so that both stores answer alike
/// and the query's own filters apply (where, object ids, geometry with its exact test).
struct FeatureServerAggregate {
    /// One statistic asked for in `outStatistics`.
    struct Statistic {
        enum Kind: String, CaseIterable { case count, sum, min, max, avg, stddev, `var` }
        var kind: Kind
        /// The field it reads, as the table spells it.
        var field: String
        /// The name it is answered under (`outStatisticFieldName`, else `KIND_FIELD`).
        var name: String
    }

    /// The fields whose values are grouped (statistics) or made distinct, as the table spells them.
    var fields: [String]
    /// The statistics; none: the distinct values of `fields`.
    var statistics: [Statistic]
    /// The answer's order: names among `fields` and the statistics' names (none: by `fields`).
    var order: [(name: String, descending: Bool)] = []

    /// Parses `outStatistics` (a JSON array of `{statisticType, onStatisticField,
    /// outStatisticFieldName}`), each field found by `column`.
    ///
    /// - Throws: `FeatureServerError.invalidParameter` naming what is wrong.
    static func statistics(_ text: String, column: (String) throws -> String) throws -> [Statistic] {
        func refuse(_ why: String) -> FeatureServerError { .invalidParameter("outStatistics", why) }
        guard let json = try? JSONInput(parsing: text), case .array(let items) = json, !items.isEmpty else {
            throw refuse("it is not a JSON array of statistics")
        }
        var names = Set<String>()
        return try items.map { item in
            guard case .string(let type)? = item["statisticType"], let kind = Statistic.Kind(rawValue: type.lowercased()) else {
                throw refuse("statisticType must be one of \(Statistic.Kind.allCases.map(\.rawValue).joined(separator: ", ")), in \(item.jsonText)")
            }
            guard case .string(let fieldName)? = item["onStatisticField"] else { throw refuse("onStatisticField is missing in \(item.jsonText)") }
            let field = try column(fieldName)
            var name = "\(kind.rawValue.uppercased())_\(field)"
            if case .string(let given)? = item["outStatisticFieldName"], !given.isEmpty {
                guard given.range(of: #"^[A-Za-z_][A-Za-z0-9_]*$"#, options: .regularExpression) != nil else {
                    throw refuse("outStatisticFieldName '\(given)' is not a field name (letters, digits and _)")
                }
                name = given
            }
            guard names.insert(name.lowercased()).inserted else { throw refuse("two statistics are named '\(name)'") }
            return Statistic(kind: kind, field: field, name: name)
        }
    }

    /// Sets the order from `orderByFields`' terms, which name the answer's own fields.
    mutating func setOrder(_ terms: [(name: String, descending: Bool)]) throws {
        let names = fields + statistics.map(\.name)
        order = try terms.map { term in
            guard let name = names.first(where: { $0.lowercased() == term.name.lowercased() }) else {
                throw FeatureServerError.invalidParameter(
                    "orderByFields", "'\(term.name)' is not one of the answer's fields (\(names.joined(separator: ", ")))")
            }
            return (name, term.descending)
        }
    }

    /// One answer row: the value of each name (`fields`, then the statistics).
    typealias Row = [SQLValue]

    /// The answer's rows, in order.
    func rows(of query: FeatureQuery, in store: any FeatureStore) throws -> [Row] {
        var read = fields
        for s in statistics where !read.contains(s.field) { read.append(s.field) }
        let statisticColumns = statistics.map { s in read.firstIndex(of: s.field)! }
        var groups: [[SQLValue]: [Accumulator]] = [:]
        try query.forEachRow(in: store, attributes: read) { row in
            let key = Array(row.values.prefix(fields.count).map(\.value))
            var accumulators = groups[key] ?? statistics.map { Accumulator(kind: $0.kind) }
            for (i, column) in statisticColumns.enumerated() { accumulators[i].add(row.values[column].value) }
            groups[key] = accumulators
        }
        // Statistics without grouping answer one row, also over no rows (a count of 0).
        if groups.isEmpty, fields.isEmpty, !statistics.isEmpty { groups[[]] = statistics.map { Accumulator(kind: $0.kind) } }
        var rows = groups.map { key, accumulators in key + accumulators.map(\.value) }
        let names = fields + statistics.map(\.name)
        // The fields not ordered by break ties, so that pages never overlap.
        let terms = order + fields.filter { f in !order.contains { $0.name == f } }.map { ($0, false) }
        let positions = terms.map { term in (names.firstIndex(of: term.0)!, term.1) }
        rows.sort { a, b in
            for (i, descending) in positions where a[i] != b[i] {
                return descending ? Self.ascending(b[i], a[i]) : Self.ascending(a[i], b[i])
            }
            return false
        }
        return rows
    }

    /// SQLite's order of values: NULL, then numbers (by value), then text, then blobs.
    static func ascending(_ a: SQLValue, _ b: SQLValue) -> Bool {
        func rank(_ v: SQLValue) -> Int {
            switch v {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        if rank(a) != rank(b) { return rank(a) < rank(b) }
        switch (a, b) {
        case (.text(let x), .text(let y)): return x < y
        case (.blob(let x), .blob(let y)): return x.lexicographicallyPrecedes(y)
        default: return (a.doubleValue ?? 0) < (b.doubleValue ?? 0)
        }
    }

    /// One statistic over the values of a group; NULLs are passed over, as SQL's aggregates do.
    struct Accumulator {
        let kind: Statistic.Kind
        var count = 0
        var sum = 0.0
        /// Welford's running mean and sum of squared differences, for stddev and var.
        var mean = 0.0, squares = 0.0
        var extreme: SQLValue = .null

        init(kind: Statistic.Kind) { self.kind = kind }

        mutating func add(_ value: SQLValue) {
            if value.isNull { return }
            count += 1
            switch kind {
            case .min: if extreme.isNull || FeatureServerAggregate.ascending(value, extreme) { extreme = value }
            case .max: if extreme.isNull || FeatureServerAggregate.ascending(extreme, value) { extreme = value }
            case .count: break
            case .sum, .avg, .stddev, .var:
                let x = value.doubleValue ?? 0
                sum += x
                let delta = x - mean
                mean += delta / Double(count)
                squares += delta * (x - mean)
            }
        }

        /// The statistic: a count is never NULL; the others are NULL over no values, and the
        /// sample deviation and variance over fewer than two.
        var value: SQLValue {
            switch kind {
            case .count: return .integer(Int64(count))
            case .min, .max: return extreme
            case .sum: return count == 0 ? .null : .real(sum)
            case .avg: return count == 0 ? .null : .real(sum / Double(count))
            case .var: return count < 2 ? .null : .real(squares / Double(count - 1))
            case .stddev: return count < 2 ? .null : .real((squares / Double(count - 1)).squareRoot())
            }
        }
    }
}
