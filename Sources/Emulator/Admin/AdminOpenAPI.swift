import EmulatorCore
import EmulatorHTTP

/// The OpenAPI 3 document of the control plane, served at `GET /emulator/v1/openapi.json`
/// (for tooling such as schemathesis and for people). Kept next to the routes it describes.
enum AdminOpenAPI {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/emulator/v1/openapi.json") { _, _ in .json(document) }
    }

    static let errorRef: JSON = ["$ref": "#/components/schemas/Error"]

    static func op(_ summary: String, body: JSON? = nil, params: [String] = ["project"]) -> JSON {
        var o: UTF8Dictionary<JSON> = [
            "summary": .string(summary),
            "responses": [
                "200": ["description": "OK", "content": ["application/json": ["schema": ["type": "object"]]]],
                "400": ["description": "Bad input", "content": ["application/json": ["schema": errorRef]]],
                "404": ["description": "Unknown project or resource", "content": ["application/json": ["schema": errorRef]]],
            ],
        ]
        if !params.isEmpty {
            o["parameters"] = .array(
                params.map {
                    ["name": .string($0), "in": "path", "required": true, "schema": ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,100}$"]]
                })
        }
        if let body { o["requestBody"] = ["required": true, "content": ["application/json": ["schema": body]]] }
        return .object(o)
    }

    /// `operation` with optional query parameters added.
    static func query(_ operation: JSON, _ params: [(String, JSON)]) -> JSON {
        var o = operation.objectValue ?? [:]
        o["parameters"] = .array(
            (o["parameters"]?.arrayValue ?? []) + params.map { ["name": .string($0.0), "in": "query", "required": false, "schema": $0.1] })
        return .object(o)
    }

    static func object(_ props: UTF8Dictionary<JSON>, required: [String] = []) -> JSON {
        ["type": "object", "properties": .object(props), "required": .array(required.map { .string($0) }), "additionalProperties": false]
    }

    static let document: JSON = [
        "openapi": "3.0.3",
        "info": ["title": "Emulator control plane", "version": .string(EmulatorVersion.current)],
        "paths": [
            "/emulator/v1/status": ["get": op("Process status", params: [])],
            "/emulator/v1/routes": ["get": op("Every registered route (method, path template) in registration order; method * is any", params: [])],
            "/emulator/v1/projects": [
                "get": op("List projects", params: []),
                "post": op(
                    "Register a project", body: object(["projectId": ["type": "string"], "apiKey": ["type": "string"]], required: ["projectId"]),
                    params: []),
            ],
            "/emulator/v1/projects/{project}/clock": [
                "get": op("Read the project's clock"),
                "put": op(
                    "Freeze or release the clock",
                    body: object(
                        ["mode": ["type": "string", "enum": ["system", "frozen"]], "time": ["type": "string", "format": "date-time"]],
                        required: ["mode"])),
            ],
            "/emulator/v1/projects/{project}/clock:advance": [
                "post": op("Advance the clock", body: object(["seconds": ["type": "number"]], required: ["seconds"]))
            ],
            "/emulator/v1/projects/{project}/seed": [
                "get": op("Read the seed"),
                "put": op("Seed generated ids", body: object(["seed": ["type": "integer", "minimum": 0, "nullable": true]], required: ["seed"])),
            ],
            "/emulator/v1/projects/{project}/faults": [
                "get": op("List injected faults"),
                "post": op(
                    "Inject a fault",
                    body: object(
                        [
                            "match": object(
                                [
                                    "service": ["type": "string", "enum": ["firestore", "auth", "functions"]], "method": ["type": "string"],
                                    "path": ["type": "string"], "function": ["type": "string"],
                                ], required: ["service"]),
                            "error": object(["status": ["type": "string"], "message": ["type": "string"]], required: ["status"]),
                            "delayMs": ["type": "integer", "minimum": 0, "maximum": 60000],
                            "times": ["type": "integer", "minimum": 1],
                            "probability": ["type": "number", "minimum": 0, "maximum": 1],
                        ], required: ["match"])),
                "delete": op("Clear injected faults"),
            ],
            "/emulator/v1/projects/{project}:reset": ["post": op("Clear one project's data in every service")],
            "/emulator/v1/projects/{project}": ["delete": op("Remove a project: its data, snapshots, faults, rules and environment")],
            "/emulator/v1/reset": ["post": op("Clear every project's data, clocks, faults and seeds", params: [])],
            "/emulator/v1/projects/{project}/snapshots": [
                "get": op("List snapshots"),
                "post": op("Save a snapshot", body: object(["name": ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,100}$"]], required: ["name"])),
            ],
            "/emulator/v1/projects/{project}/snapshots/{name}:restore": ["post": op("Restore a snapshot", params: ["project", "name"])],
            "/emulator/v1/projects/{project}/snapshots/{name}": ["delete": op("Delete a snapshot", params: ["project", "name"])],
            "/emulator/v1/projects/{project}:export": [
                "post": op("Export the project's data to a folder", body: object(["path": ["type": "string"]], required: ["path"]))
            ],
            "/emulator/v1/projects/{project}:import": [
                "post": op("Import the project's data from an export folder", body: object(["path": ["type": "string"]], required: ["path"]))
            ],
            "/emulator/v1/projects/{project}:idle": ["get": op("Wait until no background event is queued or running")],
            "/emulator/v1/projects/{project}/functions": ["get": op("List registered functions")],
            "/emulator/v1/projects/{project}/functions/logs": ["get": op("List function invocations")],
            "/emulator/v1/projects/{project}/functions/{name}:run": [
                "post": op(
                    "Run a scheduled function now (queued like a scheduler run)",
                    body: object(["scheduleTime": ["type": "string", "format": "date-time"]]),
                    params: ["project", "name"])
            ],
            "/emulator/v1/projects/{project}:securityRules": [
                "get": op("Read the project's Security Rules"),
                "put": op(
                    "Set the project's Security Rules",
                    body: [
                        "type": "object", "properties": ["rules": ["type": "object"], "ignore_errors": ["type": "boolean"]], "required": ["rules"],
                    ]),
            ],
            "/emulator/v1/projects/{project}:evaluateRules": [
                "post": op(
                    "Judge a hypothetical request",
                    body: [
                        "type": "object",
                        "properties": [
                            "method": ["type": "string", "enum": ["get", "list", "create", "update", "delete"]], "path": ["type": "string"],
                            "auth": ["type": "object", "nullable": true], "resource": ["type": "object"], "requestResource": ["type": "object"],
                            "time": ["type": "string"],
                        ], "required": ["method", "path"],
                    ])
            ],
            "/emulator/v1/projects/{project}:ruleCoverage": ["get": op("Per-expression rule coverage")],
            "/emulator/v1/projects/{project}/storage/buckets/{bucket}:ruleCoverage": [
                "get": op("Per-expression coverage of the Storage rules judging a bucket", params: ["project", "bucket"])
            ],
            "/emulator/v1/projects/{project}/functions/invocations/{id}": ["get": op("One invocation with its input", params: ["project", "id"])],
            "/emulator/v1/projects/{project}/functions/invocations/{id}:rerun": [
                "post": op("Queue a recorded background event again", params: ["project", "id"])
            ],
            "/emulator/v1/projects/{project}/summary": ["get": op("Counts for the UI's overview")],
            "/emulator/v1/projects/{project}/pubsub": ["get": op("Pub/Sub topics and subscriptions with their backlogs")],
            "/emulator/v1/projects/{project}/pubsub/topics/{topic}/messages": [
                "get": op("A topic's newest messages (at most 100), newest first", params: ["project", "topic"])
            ],
            "/emulator/v1/projects/{project}/revision": ["get": op("A counter that changes whenever the project's documents do")],
            "/emulator/v1/projects/{project}/databases": ["get": op("Databases in use")],
            "/emulator/v1/projects/{project}/databases/{database}/indexes:suggested": [
                "get": query(
                    op("The firestore.indexes.json the queries seen need: configured plus missing indexes", params: ["project", "database"]),
                    [("missingOnly", ["type": "boolean"])])
            ],
            "/emulator/v1/projects/{project}/databases/{database}/documents": [
                "get": op("Root collections with document counts", params: ["project", "database"])
            ],
            "/emulator/v1/projects/{project}/users": [
                "get": query(
                    op("Users newest first, searchable, paged"),
                    [
                        ("search", ["type": "string"]), ("kind", ["type": "string"]), ("tenantId", ["type": "string"]),
                        ("pageSize", ["type": "integer", "minimum": 1, "maximum": 1000]), ("pageToken", ["type": "string"]),
                    ])
            ],
            "/emulator/v1/projects/{project}/rulesEvaluations": [
                "get": query(
                    op("Store accesses with their rules verdicts, newest first"),
                    [
                        ("outcome", ["type": "string", "enum": ["allow", "deny", "error", "admin"]]),
                        ("method", ["type": "string", "enum": ["get", "list", "create", "update", "delete"]]),
                        ("path", ["type": "string"]), ("caller", ["type": "string"]),
                        ("pageSize", ["type": "integer", "minimum": 1, "maximum": 1000]),
                        ("pageToken", ["type": "string", "pattern": "^[0-9]{1,18}$"]),
                    ]),
                "delete": op("Clear the log"),
            ],
            "/emulator/v1/projects/{project}/rulesEvaluations/{id}": ["get": op("One evaluation with its ruleset", params: ["project", "id"])],
            "/emulator/v1/projects/{project}/tenants/{tenant}/accounts": [
                "delete": op("Delete every user of an Auth tenant (TENANT_NOT_FOUND when unknown)", params: ["project", "tenant"])
            ],
            "/emulator/v1/projects/{project}/tenants/{tenant}/oobCodes": [
                "get": op("List an Auth tenant's unused out-of-band codes", params: ["project", "tenant"])
            ],
            "/emulator/v1/projects/{project}/tenants/{tenant}/verificationCodes": [
                "get": op("List an Auth tenant's unused SMS codes (sign-in and MFA)", params: ["project", "tenant"])
            ],
        ],
        "components": [
            "schemas": [
                "Error": object(
                    [
                        "error": object(
                            ["code": ["type": "integer"], "message": ["type": "string"], "status": ["type": "string"]], required: ["code", "message"])
                    ], required: ["error"])
            ]
        ],
    ]
}
