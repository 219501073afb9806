import EmulatorCore
import Testing

@testable import EmulatorFunctions

@Suite struct CronScheduleTests {
    /// 2026-03-02 (a Monday) at hh:mm UTC, in minutes since 1970.
    func minute(_ h: Int, _ m: Int, day: Int = 2) -> Int64 {
        (Timestamp(rfc3339: "2026-03-02T00:00:00Z")!.seconds + Int64((day - 2) * 86_400 + h * 3600 + m * 60)) / 60
    }

    @Test func unixCronFields() throws {
        let every5 = try CronSchedule("*/5 * * * *")
        #expect(every5.fires(atUnixMinute: minute(10, 0)) && every5.fires(atUnixMinute: minute(10, 55)) && !every5.fires(atUnixMinute: minute(10, 3)))
        let weekdays = try CronSchedule("30 9 * * MON-FRI")
        #expect(weekdays.fires(atUnixMinute: minute(9, 30, day: 2)) && !weekdays.fires(atUnixMinute: minute(9, 30, day: 1)))  // Monday yes, Sunday no
        let sundays = try CronSchedule("0 0 * * 7")
        #expect(sundays.fires(atUnixMinute: minute(0, 0, day: 1)))
        let either = try CronSchedule("0 12 15 * SAT")  // the 15th or a Saturday
        #expect(
            either.fires(atUnixMinute: minute(12, 0, day: 7)) && either.fires(atUnixMinute: minute(12, 0, day: 15))
                && !either.fires(atUnixMinute: minute(12, 0, day: 9)))
        let lists = try CronSchedule("0,30 8-10/2 1 JAN,mar *")
        #expect(lists.fires(atUnixMinute: minute(8, 30, day: 1)) && !lists.fires(atUnixMinute: minute(9, 0, day: 2)))
    }

    @Test func appEngineForms() throws {
        #expect(try CronSchedule("every 5 minutes").fires(atUnixMinute: minute(3, 35)))
        #expect(try !CronSchedule("every 5 minutes").fires(atUnixMinute: minute(3, 36)))
        #expect(
            try CronSchedule("every 2 hours").fires(atUnixMinute: minute(4, 0)) && !CronSchedule("every 2 hours").fires(atUnixMinute: minute(5, 0)))
        #expect(try CronSchedule("every day 09:30").fires(atUnixMinute: minute(9, 30)))
        #expect(try CronSchedule("every monday,friday 18:00").fires(atUnixMinute: minute(18, 0, day: 2)))
        #expect(try !CronSchedule("every monday,friday 18:00").fires(atUnixMinute: minute(18, 0, day: 3)))
    }

    @Test func timeZonesShiftTheFields() throws {
        let paris = try CronSchedule("0 9 * * *", timeZone: "Europe/Paris")  // UTC+1 in March before the switch
        #expect(paris.fires(atUnixMinute: minute(8, 0)) && !paris.fires(atUnixMinute: minute(9, 0)))
    }

    @Test func lastFireCoalescesMissedRuns() throws {
        let s = try CronSchedule("*/5 * * * *")
        let start = Timestamp(seconds: minute(10, 0) * 60 + 30)
        #expect(s.lastFire(after: start, notAfter: start.adding(seconds: 600)) == Timestamp(seconds: minute(10, 10) * 60))
        #expect(s.lastFire(after: start, notAfter: start.adding(seconds: 200)) == nil)
        #expect(s.lastFire(after: Timestamp(seconds: minute(10, 5) * 60), notAfter: Timestamp(seconds: minute(10, 5) * 60 + 59)) == nil)
    }

    @Test func badSchedulesNameTheProblem() {
        func message(_ text: String, _ tz: String? = nil) -> String? {
            do {
                _ = try CronSchedule(text, timeZone: tz)
                return nil
            } catch let e as HttpsError { return e.message } catch { return "\(error)" }
        }
        #expect(message("* * *") == "schedule '* * *' must have 5 fields (minute hour day-of-month month day-of-week) or start with 'every'")
        #expect(message("61 * * * *") == "minute '61' is not in 0-59")
        #expect(message("* * * FOO *") == "month 'FOO' is not in 1-12 or a name")
        #expect(message("*/0 * * * *") == "minute step '0' must be a positive number")
        #expect(message("5-1 * * * *") == "minute range '5-1' runs backwards")
        #expect(message("every fortnight") != nil)
        #expect(message("* * * * *", "Mars/Olympus") == "unknown time zone 'Mars/Olympus'")
    }
}
