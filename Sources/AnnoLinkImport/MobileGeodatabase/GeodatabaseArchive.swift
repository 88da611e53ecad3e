/// The archive (history) columns of mobile-geodatabase tables and the dates they hold.
///
/// Archive-enabled tables keep every version of a row: `gdb_from_date` and `gdb_to_date` are
/// Julian days (`realdate`); a row is current while its `gdb_to_date` is the open end,
/// `julianday('9999-12-31 23:59:59')`. A retired row's `gdb_to_date` is the date it was
/// retired, so a threshold such as "greater than 2,400,000" (1858-11-16) does not tell current
/// rows from rows retired after 1858; it only works on files where every row is current, as in
/// the Loudoun sample. The rule here is the one Esri's own `…_evw` views use, with a wider
/// tolerance: the Loudoun rows store 5373484.499988425, one unit in the last place below
/// SQLite's `julianday` of the same instant, right at the edge of the views' 1e-9.
public enum GeodatabaseArchive {
    /// `julianday('9999-12-31 23:59:59')` exactly as SQLite computes it (milliseconds since
    /// the Julian epoch divided by 86,400,000): 5373484.499988426.
    public static let openEndedToDate: Double = 464_269_060_799_000 / 86_400_000

    /// How far from `openEndedToDate` a current row's `gdb_to_date` may be, in days
    /// (1e-6 day is 0.09 s; Esri's views use 1e-9).
    public static let openEndedTolerance = 0.000001

    /// An SQL condition that selects the current rows of an archive-enabled table.
    public static let currentRowCondition = "abs(gdb_to_date - julianday('9999-12-31 23:59:59')) <= 0.000001"

    /// Whether a row with this `gdb_to_date` is current.
    public static func isCurrent(gdbToDate: Double) -> Bool {
        abs(gdbToDate - openEndedToDate) <= openEndedTolerance
    }

    /// A `realdate` value (Julian day, UTC) as a GeoPackage DATETIME,
    /// `YYYY-MM-DDTHH:MM:SS.SSSZ`, rounded to the millisecond.
    ///
    /// Returns nil for values outside years 0001–9999 or that are not finite.
    public static func dateTime(fromJulianDay julianDay: Double) -> String? {
        // Julian day 1721425.5 is 0001-01-01T00:00:00Z; 5373484.5 is 10000-01-01.
        guard julianDay.isFinite, julianDay >= 1_721_425.5, julianDay < 5_373_484.5 else { return nil }
        let totalMilliseconds = ((julianDay - 1_721_425.5) * 86_400_000).rounded()
        var milliseconds = Int64(totalMilliseconds)
        var days = milliseconds / 86_400_000
        milliseconds -= days * 86_400_000
        let hour = milliseconds / 3_600_000
        let minute = milliseconds / 60_000 % 60
        let second = milliseconds / 1000 % 60
        let millisecond = milliseconds % 1000
        // Civil date from days since 0001-01-01 (proleptic Gregorian), in 400-year cycles.
        var year: Int64 = 1
        year += 400 * (days / 146_097)
        days %= 146_097
        var century = days / 36_524
        if century == 4 { century = 3 }
        year += 100 * century
        days -= century * 36_524
        year += 4 * (days / 1461)
        days %= 1461
        var yearInCycle = days / 365
        if yearInCycle == 4 { yearInCycle = 3 }
        year += yearInCycle
        days -= yearInCycle * 365
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthLengths: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var month = 0
        while days >= monthLengths[month] {
            days -= monthLengths[month]
            month += 1
        }
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(Int64(month + 1), 2))-\(pad(days + 1, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))Z"
    }
}
