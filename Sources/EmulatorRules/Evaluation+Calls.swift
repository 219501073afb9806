import EmulatorCore

extension Evaluation {
    static let namespaces: Set<String> = ["math", "hashing", "timestamp", "duration", "latlng", "debug"]
    static let globalFunctions: [String: Int] = [
        "get": 1, "exists": 1, "getAfter": 1, "existsAfter": 1, "int": 1, "float": 1, "string": 1, "bool": 1, "path": 1, "debug": 1,
    ]

    func call(_ callee: Expr, _ args: [Expr], _ scope: Scope) -> RulesValue {
        switch callee.kind {
        case .identifier(let name):
            if let f = scope.functions[name] { return callUser(f, args, scope) }
            let values = args.map { eval($0, scope) }
            if let e = values.first(where: \.isError) { return e }
            return global(name, values)
        case .member(let objExpr, let method):
            // Storage rules read Firestore documents as `firestore.get(path)` / `firestore.exists(path)`.
            if request.bucket != nil, case .identifier("firestore") = objExpr.kind, scope.vars["firestore"] == nil,
                method == "get" || method == "exists"
            {
                let values = args.map { eval($0, scope) }
                if let e = values.first(where: \.isError) { return e }
                return global(method, values)
            }
            if case .identifier(let ns) = objExpr.kind, Self.namespaces.contains(ns), scope.vars[ns] == nil {
                let values = args.map { eval($0, scope) }
                if let e = values.first(where: \.isError) { return e }
                if ns == "hashing" {
                    let n: Int =
                        switch values.first {
                        case .string(let s)?: s.utf8.count
                        case .bytes(let b)?: b.count
                        default: 0
                        }
                    if let e = charge(n, "hashing.\(method)() of \(n) bytes") { return e }
                }
                return Builtins.namespace(ns, method, values, hasher: ruleset.hasher)
            }
            let obj = eval(objExpr, scope)
            if case .error = obj { return obj }
            let values = args.map { eval($0, scope) }
            if let e = values.first(where: \.isError) { return e }
            return Methods.call(obj, method, values, self)
        default:
            return .error("expression is not callable")
        }
    }

    func callUser(_ f: FunctionDecl, _ args: [Expr], _ scope: Scope) -> RulesValue {
        guard args.count == f.params.count else { return .error("function \(f.name) takes \(f.params.count) arguments, got \(args.count)") }
        guard depth < Self.maxDepth else { return .error("function call depth exceeds \(Self.maxDepth)") }
        var inner = scope
        for (p, a) in zip(f.params, args) {
            // Arguments are evaluated eagerly; an error argument stays an error value.
            inner.vars[p] = eval(a, scope)
        }
        depth += 1
        defer { depth -= 1 }
        for (name, value) in f.lets { inner.vars[name] = eval(value, inner) }
        return eval(f.body, inner)
    }

    func global(_ name: String, _ args: [RulesValue]) -> RulesValue {
        guard let arity = Self.globalFunctions[name] else { return .error("function '\(name)' is not defined") }
        guard args.count == arity else { return .error("\(name)() takes \(arity) argument, got \(args.count)") }
        switch name {
        case "get", "exists", "getAfter", "existsAfter":
            guard case .path(let p) = args[0] else { return .error("\(name)() needs a path, got \(args[0].typeName)") }
            guard p.count >= 5, p[0] == "databases", p[2] == "documents", (p.count - 3) % 2 == 0 else {
                return .error("\(name)() needs a document path /databases/{db}/documents/{collection}/{id}, got \(RulesValue.path(p).display)")
            }
            let docPath = Array(p.dropFirst(3))
            let key = (name.hasSuffix("After") ? "after:" : "") + docPath.joined(separator: "/")
            if !accessed.contains(key) {
                accessed.insert(key)
                if accessed.count > request.accessLimit {
                    return .error("more than \(request.accessLimit) document accesses (get/exists/getAfter/existsAfter) in one request")
                }
            }
            let doc = name.hasSuffix("After") ? data.getAfter(docPath) : data.get(docPath)
            if name.hasPrefix("exists") { return .bool(doc != nil) }
            guard let doc else { return .null }
            return Self.resource(database: p[1], path: docPath, data: doc)
        case "debug":
            debugLines.append(args[0].display)
            return args[0]
        default:
            return Builtins.convert(name, args[0])
        }
    }

    /// The `resource` shape: `{data, id, __name__}`.
    static func resource(database: String, path: [String], data: [String: RulesValue]) -> RulesValue {
        .map(["data": .map(data), "id": .string(path.last ?? ""), "__name__": .path(["databases", database, "documents"] + path)])
    }
}
