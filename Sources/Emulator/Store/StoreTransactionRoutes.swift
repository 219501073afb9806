import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// `:beginTransaction`, `:commit`, `:rollback`, `:batchGet`, `:batchWrite`.
enum StoreTransactionRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let store = s.store
        let prefix = StoreRoutes.prefix
        r.post(prefix + ":beginTransaction") { req, m in
            let body = try req.jsonObjectBody()
            var readOnly = false
            var readTime: Timestamp?
            if case .object(let opts)? = body["options"], let ro = opts["readOnly"], !ro.isNull {
                readOnly = true
                readTime = try StoreRequest.timestamp(ro["readTime"], "options.readOnly.readTime")
            }
            let id = try store.beginTransaction(project: m["project"], database: m["database"], readOnly: readOnly, readTime: readTime)
            return .json(["transaction": .string(Base64.encode(id))])
        }
        r.post(prefix + ":rollback") { req, m in
            let body = try req.jsonObjectBody()
            guard let id = try StoreRequest.transactionId(body["transaction"]) else { throw EmulatorError.invalidArgument("Invalid transaction.") }
            try store.rollback(project: m["project"], database: m["database"], transaction: id)
            return .json([:])
        }
        r.post(prefix + ":commit") { req, m in
            let body = try req.jsonObjectBody()
            let writes = try (body["writes"]?.arrayValue ?? []).map { try StoreWrite(json: $0, project: m["project"], database: m["database"]) }
            let res = try store.commit(project: m["project"], database: m["database"], writes: writes,
                                       transaction: try StoreRequest.transactionId(body["transaction"]),
                                       caller: try CallerResolver.resolve(req, projectId: m["project"], services: s))
            return .json(["writeResults": .array(res.writeResults.map(writeResultJSON)), "commitTime": .string(res.commitTime.rfc3339())])
        }
        r.post(prefix + ":batchWrite") { req, m in
            let body = try req.jsonObjectBody()
            let writes = try (body["writes"]?.arrayValue ?? []).map { try StoreWrite(json: $0, project: m["project"], database: m["database"]) }
            let results = try store.batchWrite(project: m["project"], database: m["database"], writes: writes,
                                               caller: try CallerResolver.resolve(req, projectId: m["project"], services: s))
            var wr: [JSON] = [], status: [JSON] = []
            for r in results {
                switch r {
                case .success(let a):
                    wr.append(writeResultJSON(a))
                    status.append([:])
                case .failure(let e):
                    wr.append([:])
                    status.append(["code": .int(Int64(e.code.grpcNumber)), "message": .string(e.message)])
                }
            }
            return .json(["writeResults": .array(wr), "status": .array(status)])
        }
        r.post(prefix + ":batchGet") { req, m in
            let body = try req.jsonObjectBody()
            let names = try (body["documents"]?.arrayValue ?? []).map { n -> String in
                guard let s = n.stringValue, let p = DocumentName.parse(s), p.project == m["project"], p.database == m["database"] else {
                    throw EmulatorError.invalidArgument("batchGet document \(n) is not a document of projects/\(m["project"])/databases/\(m["database"]).")
                }
                return p.path
            }
            let mask = try StoreRequest.mask(body)
            let res = try store.batchGet(project: m["project"], database: m["database"], paths: names,
                                         consistency: try StoreRequest.consistency(body),
                                         caller: try CallerResolver.resolve(req, projectId: m["project"], services: s))
            let readTime = JSON.string(res.readTime.rfc3339())
            var out: [JSON] = []
            if let t = res.transaction { out.append(["transaction": .string(Base64.encode(t))]) }
            for (path, doc) in res.value {
                if let doc {
                    out.append(["found": doc.json(project: m["project"], database: m["database"], mask: mask), "readTime": readTime])
                } else {
                    out.append(["missing": .string(DocumentName.full(project: m["project"], database: m["database"], path: path)), "readTime": readTime])
                }
            }
            return .json(.array(out))
        }
    }

    static func writeResultJSON(_ a: AppliedWrite) -> JSON {
        var o: [String: JSON] = [:]
        if let t = a.updateTime { o["updateTime"] = .string(t.rfc3339()) }
        if !a.transformResults.isEmpty { o["transformResults"] = .array(a.transformResults.map(\.json)) }
        return .object(o)
    }
}
