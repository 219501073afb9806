import EmulatorCore

/// How often an expression evaluated to true, false, an error, or another value.
public struct CoverageCounts: Sendable, Equatable {
    /// Times true.
    public var trueCount = 0
    /// Times false.
    public var falseCount = 0
    /// Times an error.
    public var errorCount = 0
    /// Times a non-boolean value.
    public var valueCount = 0
}

extension CompiledRuleset {
    func recordCoverage(_ results: [Int: RulesValue]) {
        guard !results.isEmpty else { return }
        coverage.withLock { c in
            for (id, v) in results {
                switch v {
                case .bool(true): c[id, default: CoverageCounts()].trueCount += 1
                case .bool(false): c[id, default: CoverageCounts()].falseCount += 1
                case .error: c[id, default: CoverageCounts()].errorCount += 1
                default: c[id, default: CoverageCounts()].valueCount += 1
                }
            }
        }
    }

    /// Clears the counters.
    public func resetCoverage() { coverage.withLock { $0 = [:] } }

    /// Per-expression counters, in source order.
    public func coverageJSON() -> JSON {
        let counts = coverage.withLock { $0 }
        let rows = expressions.values.sorted { ($0.location, $0.id) < ($1.location, $1.id) }.map { e -> JSON in
            let c = counts[e.id] ?? CoverageCounts()
            return [
                "line": .int(Int64(e.location.line)), "column": .int(Int64(e.location.column)), "expression": .string(e.text),
                "true": .int(Int64(c.trueCount)), "false": .int(Int64(c.falseCount)), "error": .int(Int64(c.errorCount)),
                "value": .int(Int64(c.valueCount)),
            ]
        }
        return ["file": .string(fileName), "expressions": .array(rows)]
    }

    /// The source annotated with the counters (one table row per source line).
    public func coverageHTML() -> String {
        let counts = coverage.withLock { $0 }
        var byLine: [Int: [Expr]] = [:]
        for e in expressions.values { byLine[e.location.line, default: []].append(e) }
        func esc(_ s: String) -> String {
            s.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
        }
        var html =
            "<!doctype html><meta charset=utf-8><title>Rule coverage: \(esc(fileName))</title><style>body{font:13px monospace}td{padding:0 8px;vertical-align:top;white-space:pre}.n{color:#888}.hit{background:#e6ffe6}.miss{background:#ffecec}.err{background:#fff4cc}</style><table>"
        for (i, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let exprs = (byLine[i + 1] ?? []).sorted { $0.location.column < $1.location.column }
            let notes = exprs.map { e -> String in
                let c = counts[e.id] ?? CoverageCounts()
                return "col \(e.location.column): ✔\(c.trueCount) ✘\(c.falseCount) ⚠\(c.errorCount)" + (c.valueCount > 0 ? " =\(c.valueCount)" : "")
            }.joined(separator: "; ")
            let evaluated = exprs.contains { counts[$0.id] != nil }
            let errored = exprs.contains { (counts[$0.id]?.errorCount ?? 0) > 0 }
            let cls = exprs.isEmpty ? "" : (errored ? "err" : (evaluated ? "hit" : "miss"))
            html += "<tr class=\"\(cls)\"><td class=n>\(i + 1)</td><td>\(esc(String(line)))</td><td class=n>\(esc(notes))</td></tr>"
        }
        return html + "</table>"
    }
}
