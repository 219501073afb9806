import EmulatorCore
import EmulatorFunctions

/// The `functions` target: the parsers of Python codebases' inputs. The bytes are read as a
/// `.env` file (whatever parses must keep its values through a re-serialization), their first
/// line as a schedule (whatever parses is evaluated over a day and looked back over), every line
/// as a launcher event and as a function's output line, the whole as a functions manifest when
/// it is JSON, the first line as a POSIX TZ rule and the whole as a TZif file when it starts with
/// `TZif` (a schedule's time zone).
public enum FunctionsTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        let text = String(decoding: data, as: UTF8.self)
        if let env = try? DotEnv.parse(text) {
            var again = ""
            for (k, v) in env.sorted(by: { $0.key < $1.key }) {
                guard (try? DotEnv.validateKey(k)) != nil else { throw FuzzViolation(.functions, "parsed an invalid key \(k.prefix(40))") }
                again += k + "=\"" + escaped(v) + "\"\n"
            }
            guard let back = try? DotEnv.parse(again), back == env else {
                throw FuzzViolation(.functions, ".env values do not survive a double-quoted re-serialization: \(again.prefix(200))")
            }
        }
        let first = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if let schedule = try? CronSchedule(first) {
            for m in stride(from: Int64(29_000_000), to: 29_001_440, by: 37) { _ = schedule.fires(atUnixMinute: m) }
            let now = Timestamp(seconds: 1_740_000_000)
            if let fire = schedule.lastFire(after: now.adding(seconds: -86_400), notAfter: now) {
                guard fire <= now, fire > now.adding(seconds: -86_400), schedule.fires(atUnixMinute: fire.seconds / 60) else {
                    throw FuzzViolation(.functions, "schedule \(first.prefix(80)) reports a firing time it does not fire at")
                }
            }
        }
        if let rule = PosixTimeZone(first) {
            let allowed = [rule.standardOffset, rule.daylight?.offset ?? rule.standardOffset]
            for t in Array(stride(from: Int64(-2_000_000_000), to: 4_000_000_000, by: 7_776_000)) + [Int64.min, Int64.max] {
                guard allowed.contains(rule.offset(atUnixSeconds: t)) else {
                    throw FuzzViolation(.functions, "TZ rule \(first.prefix(80)) gives an offset it does not have")
                }
            }
        }
        if data.starts(with: Array("TZif".utf8)), let zone = try? TimeZoneRules.parse(data) {
            for t in Array(stride(from: Int64(-4_000_000_000), to: 4_000_000_000, by: 15_552_000)) + [Int64.min, Int64.max] {
                guard abs(zone.offset(atUnixSeconds: t)) < 93_600 else { throw FuzzViolation(.functions, "TZif offset out of range") }
            }
        }
        for line in text.split(separator: "\n") {
            _ = LauncherEvent.parse(String(line))
            let o = OutputLine(String(line))
            if o.isEnd && o.invocation == nil { throw FuzzViolation(.functions, "an end marker without an invocation") }
        }
        if let json = try? JSON.parse(data), let manifest = try? FunctionManifest(json: json) {
            for e in manifest.endpoints where e.definition.name.isEmpty || e.definition.regions.isEmpty {
                throw FuzzViolation(.functions, "manifest endpoint without a name or a region")
            }
        }
    }

    static func escaped(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
