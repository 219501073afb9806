import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// Methods of each rules type (`s.size()`, `list.hasAll(x)`, `m.diff(n).affectedKeys()`, ...).
enum Methods {
    /// Calls `obj.name(a...)`; string, bytes and list methods are charged to `ev`'s budget.
    static func call(_ obj: RulesValue, _ name: String, _ a: [RulesValue], _ ev: Evaluation) -> RulesValue {
        let bad: RulesValue = .error("\(obj.typeName).\(name)(\(a.map(\.typeName).joined(separator: ", "))) is not defined")
        switch obj {
        case .string(let s): return string(s, name, a, ev) ?? bad
        case .bytes(let b):
            if name == "toBase64" || name == "toHexString", let e = ev.charge(2 * b.count, "bytes.\(name)() on \(b.count) bytes") { return e }
            switch (name, a.count) {
            case ("size", 0): return .int(Int64(b.count))
            case ("toBase64", 0): return .string(Base64.encode(b))
            case ("toHexString", 0): return .string(b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined())
            default: return bad
            }
        case .list(let l): return list(l, name, a, isSet: false, ev) ?? bad
        case .set(let l): return list(l, name, a, isSet: true, ev) ?? bad
        case .map(let m): return map(m, name, a) ?? bad
        case .mapDiff(let lhs, let rhs):
            guard a.isEmpty else { return bad }
            let added = lhs.keys.filter { rhs[$0] == nil }, removed = rhs.keys.filter { lhs[$0] == nil }
            let common = lhs.compactMap { k, v in rhs[k].map { (k, RulesValue.equal(v, $0)) } }
            let changed = common.filter { !$0.1 }.map(\.0)
            let unchanged = common.filter { $0.1 }.map(\.0)
            func set(_ keys: [String]) -> RulesValue { .set(keys.sorted().map { .string($0) }) }
            switch name {
            case "addedKeys": return set(added)
            case "removedKeys": return set(removed)
            case "changedKeys": return set(changed)
            case "unchangedKeys": return set(unchanged)
            case "affectedKeys": return set(added + removed + changed)
            default: return bad
            }
        case .timestamp(let t): return timestamp(t, name, a) ?? bad
        case .duration(let s, let n):
            switch (name, a.count) {
            case ("seconds", 0): return .int(s)
            case ("nanos", 0): return .int(Int64(n))
            default: return bad
            }
        case .latlng(let lat, let lng):
            switch (name, a.first) {
            case ("latitude", nil): return .float(lat)
            case ("longitude", nil): return .float(lng)
            case ("distance", .latlng(let lat2, let lng2)?):
                let r = 6_371_008.8, toRad = Double.pi / 180
                let dLat = (lat2 - lat) * toRad, dLng = (lng2 - lng) * toRad
                let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat * toRad) * cos(lat2 * toRad) * sin(dLng / 2) * sin(dLng / 2)
                return .float(2 * r * asin(min(1, h.squareRoot())))
            default: return bad
            }
        case .path(let p):
            if name == "bind", a.count == 1, case .map = a[0] { return .path(p) }
            return bad
        case .queryField(let path, _):
            return .error(
                "resource.data.\(path.joined(separator: ".")).\(name)() cannot be judged from the query's constraints (rules are not filters)")
        case .null:
            return .error("null value error: cannot call \(name)() on null")
        default:
            return bad
        }
    }

    /// List and set methods. Those that compare every element with every other (`hasAll`,
    /// `toSet`, `union`, ...) are charged the product of the sizes, the others the elements they
    /// copy, so that a long list from a document cannot make one call take seconds.
    static func list(_ l: [RulesValue], _ name: String, _ a: [RulesValue], isSet: Bool, _ ev: Evaluation) -> RulesValue? {
        func items(_ v: RulesValue) -> [RulesValue]? {
            switch v {
            case .list(let x), .set(let x): return x
            default: return nil
            }
        }
        func contains(_ xs: [RulesValue], _ v: RulesValue) -> Bool { xs.contains { RulesValue.equal($0, v) } }
        func unique(_ xs: [RulesValue]) -> [RulesValue] {
            var out: [RulesValue] = []
            for x in xs where !contains(out, x) { out.append(x) }
            return out
        }
        let other = a.first.flatMap(items)?.count ?? 0
        let cost: Int
        switch name {
        case "toSet": cost = l.count * l.count
        case "union": cost = (l.count + other) * (l.count + other)
        case "hasAll", "hasAny", "hasOnly", "removeAll", "intersection", "difference": cost = l.count * max(1, other)
        case "concat": cost = l.count + other
        case "join":
            let sep: Int = if case .string(let s)? = a.first { s.utf8.count } else { 0 }
            cost = l.count * (1 + sep) + l.reduce(0) { if case .string(let s) = $1 { $0 + s.utf8.count } else { $0 } }
        default: cost = 0
        }
        if cost > 0, let e = ev.charge(cost, "\(isSet ? "set" : "list").\(name)() on \(l.count) elements") { return e }
        switch (name, a.count) {
        case ("size", 0): return .int(Int64(l.count))
        case ("toSet", 0) where !isSet: return .set(unique(l))
        case ("hasAll", 1): return items(a[0]).map { o in .bool(o.allSatisfy { contains(l, $0) }) }
        case ("hasAny", 1): return items(a[0]).map { o in .bool(o.contains { contains(l, $0) }) }
        case ("hasOnly", 1): return items(a[0]).map { o in .bool(l.allSatisfy { contains(o, $0) }) }
        case ("concat", 1) where !isSet: return items(a[0]).map { .list(l + $0) }
        case ("removeAll", 1) where !isSet: return items(a[0]).map { o in .list(l.filter { !contains(o, $0) }) }
        case ("join", 1) where !isSet:
            guard case .string(let sep) = a[0] else { return nil }
            var parts: [String] = []
            for v in l {
                guard case .string(let s) = v else { return .error("join() needs a list of strings") }
                parts.append(s)
            }
            return .string(parts.joined(separator: sep))
        case ("union", 1) where isSet: return items(a[0]).map { .set(unique(l + $0)) }
        case ("intersection", 1) where isSet: return items(a[0]).map { o in .set(l.filter { contains(o, $0) }) }
        case ("difference", 1) where isSet: return items(a[0]).map { o in .set(l.filter { !contains(o, $0) }) }
        default: return nil
        }
    }

    static func map(_ m: [String: RulesValue], _ name: String, _ a: [RulesValue]) -> RulesValue? {
        switch (name, a.count) {
        case ("size", 0): return .int(Int64(m.count))
        case ("keys", 0): return .list(m.keys.sorted().map { .string($0) })
        case ("values", 0): return .list(m.sorted { $0.key < $1.key }.map(\.value))
        case ("diff", 1):
            guard case .map(let other) = a[0] else { return nil }
            return .mapDiff(m, other)
        case ("get", 2):
            switch a[0] {
            case .string(let k): return m[k] ?? a[1]
            case .list(let path):
                var cur: RulesValue = .map(m)
                for p in path {
                    guard case .string(let k) = p, case .map(let mm) = cur, let next = mm[k] else { return a[1] }
                    cur = next
                }
                return cur
            default: return nil
            }
        default: return nil
        }
    }

    static func timestamp(_ t: Timestamp, _ name: String, _ a: [RulesValue]) -> RulesValue? {
        guard a.isEmpty else { return nil }
        let days = t.seconds >= 0 ? t.seconds / 86_400 : (t.seconds - 86_399) / 86_400
        let secOfDay = t.seconds - days * 86_400
        let (y, m, d) = Timestamp.civilFromDays(days)
        switch name {
        case "year": return .int(y)
        case "month": return .int(m)
        case "day": return .int(d)
        case "hours": return .int(secOfDay / 3600)
        case "minutes": return .int(secOfDay % 3600 / 60)
        case "seconds": return .int(secOfDay % 60)
        case "nanos": return .int(Int64(t.nanos))
        case "date": return .timestamp(Timestamp(seconds: days * 86_400))
        case "time": return .duration(seconds: secOfDay, nanos: t.nanos)
        case "toMillis": return .int(t.milliseconds)
        case "dayOfWeek":
            // 1970-01-01 was a Thursday; Monday = 1 ... Sunday = 7.
            let w = ((days % 7) + 7 + 3) % 7 + 1
            return .int(w)
        case "dayOfYear": return .int(days - Timestamp.daysFromCivil(y, 1, 1) + 1)
        default: return nil
        }
    }
}
