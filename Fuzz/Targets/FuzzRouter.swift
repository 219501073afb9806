import EmulatorHTTP

/// A router holding the kinds of templates the emulator registers: literals, `{x}` parameters,
/// `{x=**}` wildcards, `:verb` suffixes (also after a wildcard) and method-`*` catch-alls, so
/// that the resolution order (literal over parameter over wildcard, 405 versus 404) is driven.
enum FuzzRouter {
    /// Built once; resolving never mutates it. Handlers are never called.
    static let router: Router = {
        var r = Router()
        let ok: RouteHandler = { _, _ in HTTPResponse() }
        let docs = "/v1/projects/{project}/databases/{database}/documents"
        r.get(docs + "/{path=**}", ok)
        r.post(docs + "/{path=**}", ok)
        r.patch(docs + "/{path=**}", ok)
        r.delete(docs + "/{path=**}", ok)
        for verb in ["runQuery", "runAggregationQuery", "listCollectionIds"] {
            r.post(docs + ":" + verb, ok)
            r.post(docs + "/{path=**}:" + verb, ok)
        }
        for verb in ["beginTransaction", "commit", "rollback", "batchGet", "batchWrite"] { r.post(docs + ":" + verb, ok) }
        let itk = "/identitytoolkit.googleapis.com"
        for verb in ["signUp", "signInWithPassword", "signInWithIdp", "lookup", "update", "delete"] {
            r.post(itk + "/v1/accounts:" + verb, ok)
            r.post(itk + "/v1/projects/{project}/accounts:" + verb, ok)
        }
        r.get(itk + "/v1/projects/{project}/accounts:batchGet", ok)
        r.add("*", itk + "/v2/projects/{project=**}", ok)
        r.post("/securetoken.googleapis.com/v1/token", ok)
        r.get("/emulator/v1/status", ok)
        r.get("/emulator/v1/projects/{project}:securityRules", ok)
        r.put("/emulator/v1/projects/{project}:securityRules", ok)
        r.post("/emulator/v1/projects/{project}/snapshots/{name}:restore", ok)
        r.delete("/emulator/v1/projects/{project}/snapshots/{name}", ok)
        r.add("*", "/emulator/v1/projects/{project}/tenants/{rest=**}", ok)
        r.add("*", "/{project}/{region}/{name}", ok)
        r.add("*", "/{project}/{region}/{name}/{rest=**}", ok)
        r.get("/", ok)
        return r
    }()
}
