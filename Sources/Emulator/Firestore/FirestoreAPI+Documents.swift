import EmulatorCore
import EmulatorStore

/// Single-document RPCs: GetDocument, ListDocuments, CreateDocument, UpdateDocument, DeleteDocument.
extension FirestoreAPI {
    /// GetDocument: `{name, mask, transaction | readTime}` → `Document`.
    func getDocument(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        try getDocumentReply(request, context).json
    }

    /// GetDocument answering the stored version itself when the whole document is asked for, so
    /// a transport sends its cached encoding (`DocumentReply`); a masked read is encoded fresh.
    func getDocumentReply(_ request: JSON, _ context: FirestoreCallContext) throws -> DocumentReply {
        let r = try Self.object(request, "GetDocument")
        let (db, path) = try Self.documentName(r["name"], field: "name")
        let res = try store.getDocument(
            project: db.project, database: db.database, path: path,
            consistency: try FirestoreRequest.consistency(r), caller: try caller(context, db), waitForLock: context.waitForLock)
        return DocumentReply(res.value, db, mask: try FirestoreRequest.mask(r))
    }

    /// ListDocuments: `{parent, collectionId, pageSize, pageToken, orderBy, mask, transaction | readTime,
    /// showMissing}` → `{documents, nextPageToken}`, each stored version sent as its cached encoding.
    func listDocuments(_ request: JSON, _ context: FirestoreCallContext) throws -> FirestoreMessage {
        let r = try Self.object(request, "ListDocuments")
        let (db, parent) = try Self.parent(r["parent"])
        // An empty (or absent) collectionId lists every collection directly under the parent.
        let id = r["collectionId"]?.stringValue ?? ""
        let res = try store.listDocuments(
            project: db.project, database: db.database, parent: parent, collectionId: id,
            pageSize: try Self.int32(r["pageSize"], field: "pageSize"),
            pageToken: r["pageToken"]?.stringValue,
            orderBy: try FirestoreRequest.orderBy(r["orderBy"]?.stringValue),
            showMissing: r["showMissing"]?.boolValue ?? false,
            consistency: try FirestoreRequest.consistency(r), caller: try caller(context, db))
        let mask = try FirestoreRequest.mask(r)
        let docs = res.value.entries.map { entry -> DocumentReply in
            switch entry {
            case .document(let d): return DocumentReply(d, db, mask: mask)
            case .missing(let path): return .json(["name": .string(DocumentName.full(project: db.project, database: db.database, path: path))])
            }
        }
        var rest: UTF8Dictionary<JSON> = [:]
        if let t = res.value.nextPageToken { rest["nextPageToken"] = .string(t) }
        return docs.isEmpty ? .json(.object(rest)) : .documents(member: "documents", docs, rest: rest)
    }

    /// CreateDocument: `{parent, collectionId, documentId, document, mask}` → `Document`.
    func createDocument(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        try createDocumentReply(request, context).json
    }

    /// CreateDocument's answer: the stored version (its REST bytes, made once, are what a later
    /// read of it sends too), or with a `mask` the masked fields' JSON.
    func createDocumentReply(_ request: JSON, _ context: FirestoreCallContext) throws -> DocumentReply {
        let r = try Self.object(request, "CreateDocument")
        let (db, parent) = try Self.parent(r["parent"])
        guard let id = r["collectionId"]?.stringValue, !id.isEmpty else {
            throw EmulatorError.invalidArgument("CreateDocument needs a collectionId.")
        }
        if let d = r["document"], !d.isNull, d.objectValue == nil {
            throw EmulatorError.invalidArgument("'document' must be a Document object.")
        }
        let doc = try store.createDocument(
            project: db.project, database: db.database, collection: parent.isEmpty ? id : parent + "/" + id,
            documentId: r["documentId"]?.stringValue, fields: try FirestoreRequest.fields(r["document"]),
            caller: try caller(context, db))
        return DocumentReply(doc, db, mask: try FirestoreRequest.mask(r))
    }

    /// UpdateDocument: `{document, updateMask, mask, currentDocument}` → `Document` (creates the
    /// document unless a precondition says otherwise, as Firestore's PATCH does).
    func updateDocument(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "UpdateDocument")
        guard case .object(let document)? = r["document"] else { throw EmulatorError.invalidArgument("UpdateDocument needs a document.") }
        let (db, path) = try Self.documentName(document["name"], field: "document.name")
        var updateMask: [FieldPath]?
        if case .object(let m)? = r["updateMask"] {
            updateMask = try (m["fieldPaths"]?.arrayValue ?? []).map { try FieldPath(parsing: $0.stringValue ?? "") }
        }
        let write = StoreWrite(
            path: path, operation: .update(try FirestoreRequest.fields(r["document"])), updateMask: updateMask,
            precondition: try Precondition(json: r["currentDocument"]))
        let res = try store.commit(project: db.project, database: db.database, writes: [write], caller: try caller(context, db))
        guard let doc = res.writeResults[0].after else { throw EmulatorError.internal("update produced no document") }
        return doc.json(project: db.project, database: db.database, mask: try FirestoreRequest.mask(r))
    }

    /// DeleteDocument: `{name, currentDocument}` → `Empty`.
    func deleteDocument(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "DeleteDocument")
        let (db, path) = try Self.documentName(r["name"], field: "name")
        _ = try store.commit(
            project: db.project, database: db.database,
            writes: [StoreWrite(path: path, operation: .delete, precondition: try Precondition(json: r["currentDocument"]))],
            caller: try caller(context, db))
        return .object([:])
    }
}
