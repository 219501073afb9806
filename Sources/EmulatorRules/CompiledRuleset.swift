import EmulatorCore

/// A checked ruleset ready to judge requests. Immutable apart from its coverage counters
/// (behind a `Mutex`), so it is shared freely and swapped atomically on reload.
public final class CompiledRuleset: Sendable {
    /// The source file name.
    public let fileName: String
    /// The source text.
    public let source: String
    /// The syntax tree.
    public let ast: RulesAST
    let hasher: (any RulesHasher)?
    let allFunctions: [String: FunctionDecl]
    let coverage = Mutex<[Int: CoverageCounts]>([:])
    let expressions: [Int: Expr]
    /// The regular expressions written as string literals (`s.matches('[a-z]+')`), compiled
    /// when the ruleset loads; patterns computed at evaluation time are compiled then.
    let regexes: [String: RulesRegex]

    /// Source limit, as production's.
    public static let maxSourceBytes = 256 * 1024

    init(fileName: String, source: String, ast: RulesAST, hasher: (any RulesHasher)?, regexes: [String: RulesRegex] = [:]) {
        self.fileName = fileName
        self.source = source
        self.ast = ast
        self.hasher = hasher
        self.regexes = regexes
        var fns: [String: FunctionDecl] = [:]
        var exprs: [Int: Expr] = [:]
        func walk(_ e: Expr) {
            exprs[e.id] = e
            e.children.forEach(walk)
        }
        func walkFunctions(_ list: [FunctionDecl]) {
            for f in list {
                fns[f.name] = f
                f.lets.forEach { walk($0.value) }
                walk(f.body)
            }
        }
        func walkMatch(_ m: MatchBlock) {
            walkFunctions(m.functions)
            m.allows.compactMap(\.condition).forEach(walk)
            m.children.forEach(walkMatch)
        }
        walkFunctions(ast.functions)
        ast.matches.forEach(walkMatch)
        allFunctions = fns
        expressions = exprs
    }

    /// Parses and checks `source`. Returns the ruleset, or the diagnostics (each with file, line,
    /// column, the source line and a caret).
    public static func compile(
        fileName: String = "firestore.rules", source: String, hasher: (any RulesHasher)? = nil,
        service: String = RulesService.firestore
    ) -> Result<CompiledRuleset, RulesCompileError> {
        let text = SourceText(name: fileName, text: source)
        guard source.utf8.count <= maxSourceBytes else {
            return .failure(
                RulesCompileError(diagnostics: [
                    text.diagnostic(SourceLocation(file: fileName, line: 1, column: 1), "ruleset source is larger than 256 KiB")
                ]))
        }
        let ast: RulesAST
        do {
            var p = try Parser(text: source, file: fileName, firstId: 0)
            ast = try p.parseFile()
        } catch let e as ParseError {
            return .failure(RulesCompileError(diagnostics: [text.diagnostic(e.location, e.message)]))
        } catch {
            return .failure(RulesCompileError(diagnostics: [text.diagnostic(SourceLocation(file: fileName, line: 1, column: 1), "\(error)")]))
        }
        var checker = Checker(source: text, service: service)
        checker.check(ast)
        if !checker.diagnostics.isEmpty { return .failure(RulesCompileError(diagnostics: checker.diagnostics)) }
        return .success(CompiledRuleset(fileName: fileName, source: source, ast: ast, hasher: hasher, regexes: checker.regexes))
    }

    /// Judges `request`, reading other documents through `data`. List requests are judged from
    /// the query's constraints: every disjunct of its filter must be allowed.
    public func evaluate(_ request: RulesRequest, data: any RulesDataSource) -> RulesDecision {
        if request.bucket != nil && request.method == .list && ast.version != 2 {
            // Production: listing objects needs rules_version 2 (v1 rules never grant it).
            return RulesDecision(
                allowed: false, explanation: "'list' on Storage needs rules_version = '2' in \(fileName) (version 1 rules never allow listing)",
                debug: [])
        }
        let ev = Evaluation(ruleset: self, request: request, data: data)
        defer { recordCoverage(ev.results) }
        let segments = Matcher.requestSegments(request)
        let matches = Matcher.match(ast, segments: segments)
        let shownPath = Matcher.display(segments)
        guard !matches.isEmpty else {
            return RulesDecision(allowed: false, explanation: "no match statement in \(fileName) matches \(shownPath)", debug: [])
        }
        let disjuncts = request.method == .list ? (request.query?.disjuncts ?? [[:]]) : [[:]]
        var reasons: [String] = []
        var considered = 0
        var granted: [RulesDecidingPoint] = []  // one per query disjunct
        for (i, constraints) in disjuncts.enumerated() {
            ev.constraints = constraints
            ev.isQuery = request.method == .list && request.bucket == nil
            var grantedHere: String?
            var tried: [String] = []
            var points: [RulesDecidingPoint] = []
            for m in matches {
                for a in m.block.allows where a.methods.contains(where: { request.method.isGranted(by: $0) }) {
                    considered += 1
                    guard let cond = a.condition else {
                        grantedHere = "\(a.location) \(a.text)"
                        granted.append(RulesDecidingPoint(outcome: "allow", statement: a.location, location: a.location, expression: a.text))
                        break
                    }
                    let scope = Evaluation.Scope(vars: rootVars(request, ev, m.vars), functions: m.functions)
                    let v = ev.eval(cond, scope)
                    if case .bool(true) = v {
                        grantedHere = "\(a.location) \(a.text)"
                        granted.append(RulesDecidingPoint(outcome: "allow", statement: a.location, location: cond.location, expression: cond.text))
                        break
                    }
                    let explainer = Explainer(ev: ev)
                    tried.append("\(a.location) \(a.text)\n    → " + explainer.explain(cond))
                    let c = explainer.culprit(cond)
                    points.append(
                        RulesDecidingPoint(outcome: v.isError ? "error" : "deny", statement: a.location, location: c.location, expression: c.text))
                }
                if grantedHere != nil { break }
            }
            if grantedHere == nil {
                let which = disjuncts.count > 1 ? " (query disjunct \(i + 1) of \(disjuncts.count): \(Self.describe(constraints)))" : ""
                if considered == 0 {
                    return RulesDecision(
                        allowed: false, explanation: "no allow statement for '\(request.method.rawValue)' in the match statements for \(shownPath)",
                        debug: ev.debugLines)
                }
                reasons.append("'\(request.method.rawValue)' on \(shownPath) denied\(which); tried:\n  " + tried.joined(separator: "\n  "))
                return RulesDecision(allowed: false, explanation: reasons.joined(separator: "\n"), debug: ev.debugLines, deciding: points)
            }
            if i == disjuncts.count - 1 {
                return RulesDecision(allowed: true, explanation: "allowed by \(grantedHere!)", debug: ev.debugLines, deciding: granted)
            }
        }
        return RulesDecision(allowed: false, explanation: "denied", debug: ev.debugLines)
    }

    /// Storage's `request` (auth, time, path, resource) and `resource`: object metadata maps.
    static func storageVars(_ r: RulesRequest, bucket: String, _ matchVars: [String: RulesValue]) -> [String: RulesValue] {
        var req: [String: RulesValue] = [
            "path": .path(["b", bucket, "o"] + r.path),
            "time": .timestamp(r.time),
            "auth": r.auth.map { a in .map(["uid": .string(a.uid), "token": RulesValue(json: .object(a.token))]) } ?? .null,
        ]
        if let rr = r.requestResource { req["resource"] = .map(rr) }
        var vars = matchVars
        vars["request"] = .map(req)
        vars["resource"] = r.method == .list ? .null : (r.resource.map { .map($0) } ?? .null)
        return vars
    }

    static func describe(_ c: [String: QueryConstraint]) -> String {
        if c.isEmpty { return "no filters" }
        return c.sorted { $0.key < $1.key }.map { k, constraint in
            switch constraint {
            case .equal(let v): return "\(k) == \(v.display)"
            case .range(let lo, let hi):
                return [lo.map { "\(k) \($0.1 ? ">=" : ">") \($0.0.display)" }, hi.map { "\(k) \($0.1 ? "<=" : "<") \($0.0.display)" }].compactMap {
                    $0
                }.joined(separator: " and ")
            }
        }.joined(separator: ", ")
    }

    /// `request` and `resource`, plus the match variables.
    func rootVars(_ r: RulesRequest, _ ev: Evaluation, _ matchVars: [String: RulesValue]) -> [String: RulesValue] {
        if let bucket = r.bucket { return Self.storageVars(r, bucket: bucket, matchVars) }
        var req: [String: RulesValue] = [
            "method": .string(r.method.rawValue),
            "path": .path(["databases", r.database, "documents"] + r.path),
            "time": .timestamp(r.time),
            "auth": r.auth.map { a in .map(["uid": .string(a.uid), "token": RulesValue(json: .object(a.token))]) } ?? .null,
        ]
        if let rr = r.requestResource { req["resource"] = Evaluation.resource(database: r.database, path: r.path, data: rr) }
        if let q = r.query {
            req["query"] = .map([
                "limit": q.limit.map { .int(Int64($0)) } ?? .null, "offset": q.offset.map { .int(Int64($0)) } ?? .null,
                "orderBy": .list(q.orderBy.map { .string($0) }),
            ])
        }
        var vars = matchVars
        vars["request"] = .map(req)
        if r.method == .list {
            vars["resource"] = .map([
                "data": .queryField(path: [], constraint: nil), "id": .error("resource.id is unknown for list queries"),
                "__name__": .error("resource.__name__ is unknown for list queries"),
            ])
        } else {
            vars["resource"] = r.resource.map { Evaluation.resource(database: r.database, path: r.path, data: $0) } ?? .null
        }
        return vars
    }
}

/// Why a ruleset did not compile.
public struct RulesCompileError: Error, Sendable, CustomStringConvertible {
    /// The problems found.
    public var diagnostics: [Diagnostic]
    /// All diagnostics, one after the other.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

extension RulesValue {
    /// Converts JSON (token claims) into rules values.
    public init(json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .list(a.map(RulesValue.init(json:)))
        case .object(let o): self = .map(o.dictionary.mapValues(RulesValue.init(json:)))
        }
    }
}
