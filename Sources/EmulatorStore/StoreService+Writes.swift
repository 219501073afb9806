import EmulatorCore

/// What a commit returns.
public struct CommitResult: Sendable {
    /// One result per write, in order.
    public var writeResults: [AppliedWrite]
    /// The commit time.
    public var commitTime: Timestamp
}

extension StoreService {
    /// Applies `writes` atomically and in order, inside `transaction` when given (failing with
    /// ABORTED, at once, when anything it read has changed since).
    public func commit(
        project: String, database: String, writes: [StoreWrite], transaction: [UInt8]? = nil,
        caller: Caller
    ) throws -> CommitResult {
        try withDatabase(project, database) { data, env, hooks in
            let now = env.clock.now()
            if let id = transaction {
                let t = try Self.transaction(&data, id, now: now)
                data.transactions.remove(Base64.encode(id))  // a commit ends the transaction, whatever happens
                if t.readOnly && !writes.isEmpty {
                    throw EmulatorError.invalidArgument("Cannot modify entities in a read-only transaction.")
                }
                if let what = t.contention(in: data.state, project: project, database: database) {
                    throw EmulatorError.aborted("Too much contention on these documents. Please try again. (\(what))")
                }
            }
            // Writes apply in place (a copy of the state would duplicate the whole database on
            // every commit); an undo log restores every touched path if anything fails.
            var undo: [String: DatabaseState.UndoEntry] = [:]
            let lastCommit = data.state.lastCommit
            let time = data.state.nextCommitTime(now)
            var applied: [AppliedWrite] = []
            var changed: [AppliedWrite] = []
            do {
                // Rules are judged before preconditions, as production does (Google's emulator
                // answers PERMISSION_DENIED for a denied `create` of an existing document and a
                // denied update of a missing one): a write whose precondition fails is applied as
                // if it held, every write is judged, and only then does the first failure count.
                var failedPrecondition: EmulatorError?
                for w in writes {
                    if undo[w.path] == nil { undo[w.path] = data.state.undoEntry(w.path) }
                    let fullName = DocumentName.full(project: project, database: database, path: w.path)
                    if let failure = try data.state.unmetPrecondition(w, at: time, fullName: fullName) {
                        if caller.isAdmin { throw failure }  // no rules to judge
                        failedPrecondition = failedPrecondition ?? failure
                    }
                    applied.append(try data.state.applyIgnoringPrecondition(w, at: time, fullName: fullName))
                }
                let reader = CommitReader(state: data.state, undo: undo)
                for (w, a) in zip(writes, applied) {
                    if case .verify = w.operation { continue }  // writes nothing, so nothing to allow
                    try authorize(
                        hooks,
                        StoreAccess(
                            caller: caller, project: project, database: database, method: Self.method(of: w, before: a.before),
                            path: w.path, resource: a.before, requestResource: a.after, query: nil, time: time, reader: reader))
                }
                if let failedPrecondition { throw failedPrecondition }
                // Write-ahead: the journal takes the batch before anyone can see it (the lock is
                // still held); if it cannot (a full disk), the undo below makes the commit never happen.
                changed = applied.filter { $0.before != $0.after }
                if let journal = hooks.journal, !changed.isEmpty {
                    try journal(
                        project,
                        Self.journalEntry(
                            StoreChangeBatch(
                                project: project, database: database, commitTime: time,
                                changes: changed, caller: caller)))
                }
            } catch {
                for (path, entry) in undo { data.state.restore(path, entry) }
                data.state.lastCommit = lastCommit
                throw error
            }
            if !changed.isEmpty {
                hooks.observer?(StoreChangeBatch(project: project, database: database, commitTime: time, changes: changed, caller: caller))
                data.watch.publish(changed, state: data.state, project: project, database: database, time: time)
                if !hooks.feed.isEmpty {
                    Self.publishFeed(
                        hooks, StoreFeedEvent(project: project, database: database, time: time, paths: changed.map(\.path), replaced: false))
                }
            }
            return CommitResult(writeResults: applied, commitTime: time)
        }
    }

    /// The rules method a write is judged as: `delete`; `create` or `update` as its precondition
    /// says (`exists: false` is a create even of a stored document, as production judges it);
    /// otherwise by whether the document exists.
    static func method(of w: StoreWrite, before: Document?) -> AccessMethod {
        if case .delete = w.operation { return .delete }
        switch w.precondition {
        case .exists(false)?: return .create
        case .exists(true)?: return .update
        default: return before == nil ? .create : .update
        }
    }

    /// Applies writes independently (not atomically); each gets its own result or error.
    public func batchWrite(project: String, database: String, writes: [StoreWrite], caller: Caller) throws -> [Result<AppliedWrite, EmulatorError>] {
        var seen = Set<UTF8Key>()
        for w in writes where !seen.insert(UTF8Key(w.path)).inserted {
            throw EmulatorError.invalidArgument("batchWrite may contain at most one write per document (\(w.path)).")
        }
        return writes.map { w in
            do {
                return .success(try commit(project: project, database: database, writes: [w], caller: caller).writeResults[0])
            } catch let e as EmulatorError {
                return .failure(e)
            } catch {
                return .failure(.internal("Internal error."))
            }
        }
    }

    /// Creates a document in `collection` with `documentId` or a generated 20-character id.
    public func createDocument(
        project: String, database: String, collection: String, documentId: String?,
        fields: FieldMap, caller: Caller
    ) throws -> Document {
        try DocumentName.validateCollectionPath(collection)
        let id = documentId.flatMap { $0.isEmpty ? nil : $0 } ?? environments.environment(for: project).ids.documentID()
        let path = collection + "/" + id
        try DocumentName.validateDocumentPath(path)
        let r = try commit(
            project: project, database: database,
            writes: [StoreWrite(path: path, operation: .update(fields), precondition: .exists(false))], caller: caller)
        guard let doc = r.writeResults[0].after else { throw EmulatorError.internal("create produced no document") }
        return doc
    }

    /// Deletes every document of the database, or of the subtree at `path` (emulator admin API).
    public func deleteAll(project: String, database: String, path: String = "") throws {
        try withDatabase(project, database) { data, env, hooks in
            let now = env.clock.now()
            let lastCommit = data.state.lastCommit
            let time = data.state.nextCommitTime(now)
            let removed = data.state.subtree(path)
            let changes = removed.map { AppliedWrite(path: $0.path, before: $0, after: nil, updateTime: nil, transformResults: []) }
            if !removed.isEmpty, let journal = hooks.journal {
                // Write-ahead, as in `commit`: journaled before anything is removed.
                do {
                    try journal(
                        project, Self.journalEntry(StoreChangeBatch(project: project, database: database, commitTime: time, changes: changes)))
                } catch {
                    data.state.lastCommit = lastCommit
                    throw error
                }
            }
            for d in removed { data.state.remove(d.path, at: time) }
            data.transactions.removeAll()
            if !removed.isEmpty {
                hooks.observer?(StoreChangeBatch(project: project, database: database, commitTime: time, changes: changes))
                data.watch.publish(changes, state: data.state, project: project, database: database, time: time)
                Self.publishFeed(hooks, StoreFeedEvent(project: project, database: database, time: time, paths: changes.map(\.path), replaced: false))
            }
        }
    }
}
