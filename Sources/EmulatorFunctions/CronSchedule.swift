import EmulatorCore

/// A scheduled function's `schedule`: unix-cron (`*/5 * * * *`: minute, hour, day of month,
/// month, day of week; `*`, lists, ranges, steps, `JAN`…`DEC`, `SUN`…`SAT`, 0 or 7 = Sunday; when
/// both days are restricted either one matches) or the common App Engine forms (`every 5
/// minutes`, `every 2 hours`, `every day 09:30`, `every monday,friday 18:00`; intervals are aligned
/// to midnight, as `synchronized` would). Times are evaluated in `timeZone` (an IANA name from the
/// system's zoneinfo database, read once by `TimeZoneRules`; UTC when nil). Immutable; a pure value
/// apart from reading that database when parsed.
public struct CronSchedule: Sendable, Equatable {
    /// Allowed minutes, hours, days of month (1-31), months (1-12) and days of week (0 = Sunday).
    let minutes: Set<Int>, hours: Set<Int>, days: Set<Int>, months: Set<Int>, weekdays: Set<Int>
    /// Whether day of month / day of week were restricted (cron's "either matches" rule).
    let daysRestricted: Bool, weekdaysRestricted: Bool
    /// The zone's identifier ("UTC" by default).
    public let timeZone: String
    /// The zone's offsets.
    let zone: TimeZoneRules

    static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    static let dayNames = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]

    /// Parses `text`; the error names what is wrong.
    public init(_ text: String, timeZone: String? = nil) throws {
        if let timeZone {
            guard let rules = TimeZoneRules.named(timeZone) else { throw HttpsError(.invalidArgument, "unknown time zone '\(timeZone)'") }
            self.timeZone = timeZone
            zone = rules
        } else {
            self.timeZone = "UTC"
            zone = .utc
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.first?.lowercased() == "every" {
            (minutes, hours, days, months, weekdays, daysRestricted, weekdaysRestricted) = try Self.appEngine(Array(words.dropFirst()), text)
            return
        }
        guard words.count == 5 else {
            throw HttpsError(
                .invalidArgument, "schedule '\(text)' must have 5 fields (minute hour day-of-month month day-of-week) or start with 'every'")
        }
        minutes = try Self.field(words[0], 0...59, names: [], what: "minute")
        hours = try Self.field(words[1], 0...23, names: [], what: "hour")
        days = try Self.field(words[2], 1...31, names: [], what: "day of month")
        months = try Self.field(words[3], 1...12, names: Self.monthNames, what: "month", nameBase: 1)
        var dow = try Self.field(words[4], 0...7, names: Self.dayNames, what: "day of week")
        if dow.remove(7) != nil { dow.insert(0) }
        weekdays = dow
        daysRestricted = words[2] != "*" && words[2] != "?"
        weekdaysRestricted = words[4] != "*" && words[4] != "?"
    }

    /// One cron field: `*`, `?`, `n`, `a-b`, with `/step`, comma-separated.
    static func field(_ text: String, _ range: ClosedRange<Int>, names: [String], what: String, nameBase: Int = 0) throws -> Set<Int> {
        func value(_ s: Substring) throws -> Int {
            if let n = Int(s), range.contains(n) { return n }
            if let i = names.firstIndex(of: s.uppercased()) { return i + nameBase }
            throw HttpsError(.invalidArgument, "\(what) '\(s)' is not in \(range.lowerBound)-\(range.upperBound)\(names.isEmpty ? "" : " or a name")")
        }
        var out = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, !pieces[0].isEmpty else { throw HttpsError(.invalidArgument, "\(what) field '\(text)' is malformed") }
            var step = 1
            if pieces.count == 2 {
                guard let s = Int(pieces[1]), s > 0, s <= range.upperBound + 1 else {
                    throw HttpsError(.invalidArgument, "\(what) step '\(pieces[1])' must be a positive number")
                }
                step = s
            }
            let lo: Int, hi: Int
            if pieces[0] == "*" || pieces[0] == "?" {
                (lo, hi) = (range.lowerBound, range.upperBound)
            } else if let dash = pieces[0].firstIndex(of: "-") {
                lo = try value(pieces[0][..<dash])
                hi = try value(pieces[0][pieces[0].index(after: dash)...])
                guard lo <= hi else { throw HttpsError(.invalidArgument, "\(what) range '\(pieces[0])' runs backwards") }
            } else {
                lo = try value(pieces[0])
                hi = pieces.count == 2 ? range.upperBound : lo
            }
            for v in stride(from: lo, through: hi, by: step) { out.insert(v) }
        }
        return out
    }

    /// `N minutes|hours`, `day HH:MM`, `<weekdays> HH:MM`.
    static func appEngine(_ w: [String], _ text: String) throws -> (Set<Int>, Set<Int>, Set<Int>, Set<Int>, Set<Int>, Bool, Bool) {
        let all = (Set(0...59), Set(0...23), Set(1...31), Set(1...12), Set(0...6))
        if w.count == 2, let n = Int(w[0]), n > 0 {
            switch w[1].lowercased() {
            case "minute", "minutes", "min", "mins":
                guard n <= 60 else { break }
                return (Set(stride(from: 0, to: 60, by: n)), all.1, all.2, all.3, all.4, false, false)
            case "hour", "hours":
                guard n <= 24 else { break }
                return ([0], Set(stride(from: 0, to: 24, by: n)), all.2, all.3, all.4, false, false)
            default: break
            }
        }
        if w.count == 2, let (h, m) = clock(w[1]) {
            if w[0].lowercased() == "day" { return ([m], [h], all.2, all.3, all.4, false, false) }
            var dow = Set<Int>()
            for d in w[0].split(separator: ",") {
                guard let i = dayNames.firstIndex(where: { d.uppercased().hasPrefix($0) }) else {
                    dow = []
                    break
                }
                dow.insert(i)
            }
            if !dow.isEmpty { return ([m], [h], all.2, all.3, dow, false, true) }
        }
        throw HttpsError(
            .invalidArgument,
            "schedule '\(text)' is not supported (use unix-cron, 'every N minutes|hours', 'every day HH:MM' or 'every monday HH:MM')")
    }

    static func clock(_ s: String) -> (Int, Int)? {
        let p = s.split(separator: ":")
        guard p.count == 2, let h = Int(p[0]), let m = Int(p[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        return (h, m)
    }

    /// Whether the schedule fires in the minute starting at `unixMinute` (minutes since 1970, UTC).
    public func fires(atUnixMinute unixMinute: Int64) -> Bool {
        let offset = Int64(zone.offset(atUnixSeconds: unixMinute * 60))
        let local = unixMinute * 60 + offset
        let dayNumber = Int64((Double(local) / 86_400).rounded(.down))
        let secondOfDay = Int(local - dayNumber * 86_400)
        let (_, month, day) = CivilDate.civil(fromDays: dayNumber)
        let weekday = Int(((dayNumber % 7) + 11) % 7)  // 1970-01-01 was a Thursday (4)
        guard minutes.contains(secondOfDay / 60 % 60), hours.contains(secondOfDay / 3600), months.contains(month) else { return false }
        switch (daysRestricted, weekdaysRestricted) {
        case (true, true): return days.contains(day) || weekdays.contains(weekday)
        default: return days.contains(day) && weekdays.contains(weekday)
        }
    }

    /// The latest firing time `t` with `after < t <= notAfter` (looking back at most a year), or nil.
    public func lastFire(after: Timestamp, notAfter: Timestamp) -> Timestamp? {
        var minute = Int64((Double(notAfter.seconds) / 60).rounded(.down))
        let floor = max(Int64((Double(after.seconds) / 60).rounded(.down)), minute - 366 * 1440)
        while minute >= floor {
            let t = Timestamp(seconds: minute * 60)
            if t <= after { return nil }
            if fires(atUnixMinute: minute) { return t }
            minute -= 1
        }
        return nil
    }
}
