extension FunctionsHost {
    /// Production allows one blocking function per event in a project: deploying a second
    /// `beforeCreate` (or `beforeSignIn`) fails. Registering several here used to run an
    /// arbitrary one, different on each start (dictionary order follows the per-process hash
    /// seed), so a codebase is refused instead, with this message naming every function involved:
    /// `defs` are the codebase's functions (in manifest order), checked against each other and
    /// against the other codebases' functions already registered for `project`. Nil: no conflict.
    public func blockingConflict(project: String, codebase: String?, _ defs: [FunctionDefinition]) -> String? {
        let others = registered(project).filter { $0.codebase != codebase }.map { ($0.definition, $0.codebase) }
        let mine = defs.map { ($0, codebase) }
        for event in ["beforeCreate", "beforeSignIn"] {
            let handlers = (others.sorted { $0.0.name < $1.0.name } + mine).filter { $0.0.trigger == .blocking(event: event) }
            guard handlers.count > 1 else { continue }
            let names = handlers.map { def, cb in "'\(def.name)'" + (cb.map { " (codebase \($0))" } ?? "") }
            return
                "several blocking functions handle \(event): \(names.joined(separator: ", ")). Production refuses to deploy more than one per event; keep one of them."
        }
        return nil
    }
}
