import EmulatorCore
import Testing

@testable import EmulatorFunctions

#if canImport(Glibc)
import Glibc
#endif

/// Seconds since the epoch of an RFC 3339 time.
private func at(_ text: String) -> Int64 { Timestamp(rfc3339: text)!.seconds }

/// A TZif file built by hand: version 2, an empty v1 block, then `times` with their offsets and
/// `footer`.
private func tzif(times: [Int64], offsets: [Int32], initial: Int32, footer: String) -> [UInt8] {
    func be32(_ v: Int64) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
    func be64(_ v: Int64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
    func header(timecnt: Int, typecnt: Int, charcnt: Int) -> [UInt8] {
        Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15) + be32(0) + be32(0) + be32(0) + be32(Int64(timecnt)) + be32(Int64(typecnt))
            + be32(Int64(charcnt))
    }
    // v1: no transitions, one type (offset 0), one designation byte.
    var out = header(timecnt: 0, typecnt: 1, charcnt: 1) + be32(0) + [0, 0] + [0]
    let types = [initial] + offsets
    out += header(timecnt: times.count, typecnt: types.count, charcnt: 1)
    for t in times { out += be64(t) }
    for i in times.indices { out.append(UInt8(i + 1)) }
    for o in types { out += be32(Int64(o)) + [0, 0] }
    out += [0]
    out += [10] + Array(footer.utf8) + [10]
    return out
}

@Suite struct TimeZoneRulesTests {
    @Test func posixRulesNorthAndSouth() throws {
        let paris = try #require(PosixTimeZone("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(paris.offset(atUnixSeconds: at("2026-03-29T00:59:59Z")) == 3600)
        #expect(paris.offset(atUnixSeconds: at("2026-03-29T01:00:00Z")) == 7200)
        #expect(paris.offset(atUnixSeconds: at("2026-10-25T00:59:59Z")) == 7200)
        #expect(paris.offset(atUnixSeconds: at("2026-10-25T01:00:00Z")) == 3600)
        let sydney = try #require(PosixTimeZone("AEST-10AEDT,M10.1.0,M4.1.0/3"))
        #expect(sydney.offset(atUnixSeconds: at("2026-01-15T00:00:00Z")) == 11 * 3600)
        #expect(sydney.offset(atUnixSeconds: at("2026-07-01T00:00:00Z")) == 10 * 3600)
        // 2026-04-05 03:00 AEDT = 2026-04-04T16:00Z.
        #expect(sydney.offset(atUnixSeconds: at("2026-04-04T15:59:59Z")) == 11 * 3600)
        #expect(sydney.offset(atUnixSeconds: at("2026-04-04T16:00:00Z")) == 10 * 3600)
        #expect(PosixTimeZone("<+03>-3")?.offset(atUnixSeconds: 0) == 3 * 3600)
        #expect(PosixTimeZone("<-0330>3:30")?.offset(atUnixSeconds: 0) == -(3 * 3600 + 1800))
        // No rule: glibc's default (second Sunday of March to first Sunday of November, 02:00).
        let ny = try #require(PosixTimeZone("EST5EDT"))
        #expect(ny.offset(atUnixSeconds: at("2026-03-08T06:59:59Z")) == -5 * 3600)
        #expect(ny.offset(atUnixSeconds: at("2026-03-08T07:00:00Z")) == -4 * 3600)
        // Julian days: J60 is March 1 every year; 59 (zero-based) is February 29 in a leap year.
        #expect(PosixTimeZone.instant(.init(day: .julian(60), time: 0), year: 2028) == at("2028-03-01T00:00:00Z"))
        #expect(PosixTimeZone.instant(.init(day: .zeroBased(59), time: 0), year: 2028) == at("2028-02-29T00:00:00Z"))
    }

    @Test func malformedPosixRulesAreRejected() {
        for text in ["", "CET", "C-1", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-25", "<>1", "CET-1CEST,J0,J365", "CET-1:60"] {
            #expect(PosixTimeZone(text) == nil, "\(text)")
        }
    }

    @Test func tzifTransitionsThenTheFooter() throws {
        let t1 = at("2000-03-26T01:00:00Z"), t2 = at("2000-10-29T01:00:00Z")
        let rules = try TimeZoneRules.parse(tzif(times: [t1, t2], offsets: [7200, 3600], initial: 3600, footer: "CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(rules.offset(atUnixSeconds: t1 - 1) == 3600)
        #expect(rules.offset(atUnixSeconds: t1) == 7200)
        #expect(rules.offset(atUnixSeconds: t2 - 1) == 7200)
        // After the last transition, the footer decides.
        #expect(rules.offset(atUnixSeconds: at("2026-07-01T00:00:00Z")) == 7200)
        #expect(rules.offset(atUnixSeconds: at("2026-12-01T00:00:00Z")) == 3600)
        let fixed = try TimeZoneRules.parse(tzif(times: [], offsets: [], initial: 0, footer: "<+0530>-5:30"))
        #expect(fixed.offset(atUnixSeconds: 0) == 19_800)
    }

    @Test func brokenTZifNamesTheProblem() {
        func message(_ b: [UInt8]) -> String? {
            do {
                _ = try TimeZoneRules.parse(b)
                return nil
            } catch { return error.description }
        }
        let good = tzif(times: [100, 200], offsets: [3600, 0], initial: 0, footer: "UTC0")
        #expect(message(Array("nope".utf8)) == "not a TZif file")
        #expect(message(Array(good.dropLast(3))) != nil)
        #expect(message(tzif(times: [200, 100], offsets: [3600, 0], initial: 0, footer: "UTC0")) == "transition times are not ascending")
        #expect(message(tzif(times: [100], offsets: [100_000], initial: 0, footer: "")) == "UT offset 100000 out of range")
        #expect(message(tzif(times: [100], offsets: [0], initial: 0, footer: "not a rule")) == "footer 'not a rule' is not a POSIX TZ rule")
        for cut in 0..<good.count { _ = message(Array(good.prefix(cut))) }  // never a crash
    }

    @Test func namesAreCheckedBeforeAnyFileIsRead() {
        for name in ["../../etc/passwd", "/etc/localtime", "Europe//Paris", "Europe/../UTC", "", "Mars/Olympus", "a b"] {
            #expect(TimeZoneRules.named(name) == nil, "\(name)")
        }
    }

    @Test(.enabled(if: access("/usr/share/zoneinfo/Europe/Paris", R_OK) == 0 && getenv("TZDIR") == nil))
    func theSystemDatabase() throws {
        let paris = try #require(TimeZoneRules.named("Europe/Paris"))
        #expect(paris.offset(atUnixSeconds: at("2026-03-02T09:00:00Z")) == 3600)
        #expect(paris.offset(atUnixSeconds: at("2026-07-02T09:00:00Z")) == 7200)
        #expect(paris.offset(atUnixSeconds: at("1950-01-01T00:00:00Z")) == 3600)
        #expect(TimeZoneRules.named("UTC")?.offset(atUnixSeconds: 0) == 0)
        let kolkata = try #require(TimeZoneRules.named("Asia/Kolkata"))
        #expect(kolkata.offset(atUnixSeconds: at("2026-03-02T09:00:00Z")) == 19_800)
    }
}
