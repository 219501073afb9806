/// A POSIX `TZ` rule (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+03>-3`, `EST5EDT`): a standard offset
/// and, optionally, a daylight offset with the yearly rule for switching. TZif files end with one
/// (RFC 8536 section 3.3) for the times after their last listed transition. Immutable value.
///
/// Foundation's `TimeZone` names zones only through ICU, which the static release binary leaves
/// out (docs/architecture.md, "Foundation"), so scheduled functions read the system's zoneinfo
/// with `TimeZoneRules` and this.
public struct PosixTimeZone: Sendable, Equatable {
    /// When daylight time starts or ends in a year: a day and a local time of day.
    public struct Transition: Sendable, Equatable {
        /// The day: `Jn` (1-365, February 29 never counted), `n` (0-365, counted) or `Mm.w.d`
        /// (month 1-12, week 1-5 where 5 is the last, weekday 0-6 from Sunday).
        public enum Day: Sendable, Equatable {
            case julian(Int)
            case zeroBased(Int)
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        /// The day.
        public var day: Day
        /// Seconds after that day's local midnight (may be negative or past 24 h, as RFC 8536 allows).
        public var time: Int
    }

    /// The daylight-saving part.
    public struct Daylight: Sendable, Equatable {
        /// Seconds east of UTC while it applies.
        public var offset: Int
        /// When it starts (in standard local time) and ends (in daylight local time).
        public var start: Transition, end: Transition
    }

    /// Seconds east of UTC in standard time (the opposite sign of the text's).
    public var standardOffset: Int
    /// Daylight saving, if the zone has it.
    public var daylight: Daylight?

    /// Parses `text`; nil when it is not a POSIX TZ rule.
    public init?(_ text: String) {
        var p = Scanner(Array(text.utf8))
        guard p.name(), let std = p.offset(maxHours: 24) else { return nil }
        standardOffset = -std
        if p.atEnd {
            daylight = nil
            return
        }
        guard p.name() else { return nil }
        var dst = standardOffset + 3600
        if !p.atEnd && p.peek != UInt8(ascii: ",") {
            guard let o = p.offset(maxHours: 24) else { return nil }
            dst = -o
        }
        let start: Transition, end: Transition
        if p.atEnd {
            // POSIX leaves the default rule to the implementation; glibc's is the US one.
            start = Transition(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
            end = Transition(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
        } else {
            guard p.take(","), let s = p.transition(), p.take(","), let e = p.transition(), p.atEnd else { return nil }
            (start, end) = (s, e)
        }
        daylight = Daylight(offset: dst, start: start, end: end)
    }

    /// Seconds east of UTC at `unixSeconds`.
    public func offset(atUnixSeconds t: Int64) -> Int {
        guard let d = daylight else { return standardOffset }
        // Beyond ±30,000 years nothing is scheduled; the clamp keeps the arithmetic in range.
        let t = min(max(t, -1_000_000_000_000), 1_000_000_000_000)
        let year = CivilDate.year(ofDay: CivilDate.floorDiv(t + Int64(standardOffset), 86_400))
        let start = Self.instant(d.start, year: year) - Int64(standardOffset)
        let end = Self.instant(d.end, year: year) - Int64(d.offset)
        let inDaylight = start < end ? (t >= start && t < end) : !(t >= end && t < start)
        return inDaylight ? d.offset : standardOffset
    }

    /// The transition's local time in `year`, as seconds since 1970-01-01T00:00 local.
    static func instant(_ tr: Transition, year: Int64) -> Int64 {
        let jan1 = CivilDate.days(year: year, month: 1, day: 1)
        let day: Int64
        switch tr.day {
        case .julian(let n):
            day = jan1 + Int64(n - 1) + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            day = jan1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate.days(year: year, month: month, day: 1)
            let firstWeekday = Int(((first % 7) + 11) % 7)  // 1970-01-01 was a Thursday (4)
            var dom = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
            while dom > CivilDate.monthLength(year, month) { dom -= 7 }
            day = first + Int64(dom - 1)
        }
        return day * 86_400 + Int64(tr.time)
    }

    /// A cursor over the rule's bytes.
    struct Scanner {
        let b: [UInt8]
        var i = 0

        init(_ b: [UInt8]) { self.b = b }

        var atEnd: Bool { i >= b.count }
        var peek: UInt8? { i < b.count ? b[i] : nil }

        mutating func take(_ c: Character) -> Bool {
            guard let p = peek, p == c.asciiValue else { return false }
            i += 1
            return true
        }

        /// A zone abbreviation: letters (`CET`), or anything but `>` between `<` and `>` (`<+03>`).
        mutating func name() -> Bool {
            if take("<") {
                let start = i
                while let c = peek, c != UInt8(ascii: ">") { i += 1 }
                guard i > start, take(">") else { return false }
                return true
            }
            let start = i
            while let c = peek, (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") { i += 1 }
            return i - start >= 3
        }

        /// An unsigned decimal of at most `digits` digits.
        mutating func number(digits: Int) -> Int? {
            var n = 0, count = 0
            while let c = peek, c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"), count < digits {
                n = n * 10 + Int(c - UInt8(ascii: "0"))
                i += 1
                count += 1
            }
            return count == 0 ? nil : n
        }

        /// `[+-]hh[:mm[:ss]]` in seconds (positive west of Greenwich, as written).
        mutating func offset(maxHours: Int) -> Int? {
            let negative = take("-")
            if !negative { _ = take("+") }
            guard let h = number(digits: 3), h <= maxHours else { return nil }
            var seconds = h * 3600
            if take(":") {
                guard let m = number(digits: 2), m < 60 else { return nil }
                seconds += m * 60
                if take(":") {
                    guard let s = number(digits: 2), s < 60 else { return nil }
                    seconds += s
                }
            }
            return negative ? -seconds : seconds
        }

        /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (02:00 by default).
        mutating func transition() -> Transition? {
            let day: Transition.Day
            if take("J") {
                guard let n = number(digits: 3), (1...365).contains(n) else { return nil }
                day = .julian(n)
            } else if take("M") {
                guard let m = number(digits: 2), (1...12).contains(m), take("."), let w = number(digits: 1), (1...5).contains(w),
                    take("."), let d = number(digits: 1), d <= 6
                else { return nil }
                day = .monthWeekDay(month: m, week: w, weekday: d)
            } else {
                guard let n = number(digits: 3), n <= 365 else { return nil }
                day = .zeroBased(n)
            }
            var time = 7200
            if take("/") {
                guard let t = offset(maxHours: 167) else { return nil }
                time = t
            }
            return Transition(day: day, time: time)
        }
    }
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01). Pure functions.
enum CivilDate {
    /// `a / b` rounded towards negative infinity.
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// The day number of a date.
    static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// (year, month, day) of a day number.
    static func civil(fromDays z0: Int64) -> (Int64, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The year a day number falls in.
    static func year(ofDay day: Int64) -> Int64 { civil(fromDays: day).0 }

    static func isLeap(_ y: Int64) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    static func monthLength(_ y: Int64, _ m: Int) -> Int {
        switch m {
        case 2: return isLeap(y) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
