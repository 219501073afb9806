import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// The data browser's reads (admin, no rules, not logged as requests):
/// `GET /emulator/v1/projects/{p}/databases`, `GET .../databases/{db}/documents` (root
/// collections with counts), `GET .../databases/{db}/documents/{path}` (a collection: one page in
/// name order with the total; a document: it and its subcollections with counts), and
/// `GET /emulator/v1/projects/{p}/revision` (changes whenever the project's documents do).
enum StoreBrowseRoutes {
    static let base = "/emulator/v1/projects/{project}/databases/{database}/documents"

    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let store = s.store
        r.get("/emulator/v1/projects/{project}/databases") { _, m in
            try s.projects.requireKnown(m["project"])
            var ids = store.databaseIds(project: m["project"])
            if !ids.contains("(default)") { ids.insert("(default)", at: 0) }
            return .json(["databases": .array(ids.map { .string($0) })])
        }
        r.get("/emulator/v1/projects/{project}/revision") { _, m in
            try s.projects.requireKnown(m["project"])
            return .json(["revision": .int(s.revisions.revision(of: m["project"]))])
        }
        r.get(base) { _, m in
            try s.projects.requireKnown(m["project"])
            let list = try store.collections(project: m["project"], database: m["database"], parent: "")
            return .json(["collections": .array(list.map(collectionJSON))])
        }
        r.get(base + "/{path=**}") { req, m in
            try s.projects.requireKnown(m["project"])
            let segments = m.wildcardSegments["path"] ?? []
            let (p, db, path) = (m["project"], m["database"], m["path"])
            if segments.count % 2 == 1 {
                let size = try req.intQuery("pageSize", in: 1...1000, default: 50)
                let page = try store.documentPage(
                    project: p, database: db, collection: path, startAfter: req.nonEmptyQuery("pageToken"), pageSize: size)
                var rest: UTF8Dictionary<JSON> = [
                    "path": .string(path), "total": .int(Int64(page.total)), "missing": .array(page.missing.map { .string($0) }),
                ]
                if let next = page.nextStartAfter { rest["nextPageToken"] = .string(next) }
                // Each document's cached REST bytes (what a GET of it sends), not a tree per page.
                let ref = DatabaseRef(project: p, database: db)
                let docs = page.documents.map { DocumentReply.version($0, ref) }
                return .json(bytes: FirestoreMessage.documents(member: "documents", docs, rest: rest).restJSON())
            }
            let doc = try store.peekDocument(project: p, database: db, path: path)
            let subs = try store.collections(project: p, database: db, parent: path)
            return .json([
                "path": .string(path), "document": doc.map { $0.json(project: p, database: db) } ?? .null,
                "collections": .array(subs.map(collectionJSON)),
            ])
        }
    }

    static func collectionJSON(_ c: CollectionSummary) -> JSON {
        ["id": .string(c.id), "path": .string(c.path), "count": .int(Int64(c.count))]
    }
}
