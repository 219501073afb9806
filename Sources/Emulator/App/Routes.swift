import EmulatorHTTP

/// Assembles every API's routes into one router. Each API registers its own routes in its own
/// file (`StatusRoutes`, `AuthRoutes`, `FirestoreRESTRoutes`, `FirestoreWebChannelRoutes`, `PubSubRESTRoutes`, `FunctionsRoutes`, the admin routes,
/// and `UIRoutes` for the web UI). gRPC methods are served by `GRPCServices` (Firestore's and Pub/Sub's), not the router.
enum Routes {
    /// The router with every route; `GET /emulator/v1/routes` lists its finished table.
    static func makeRouter(_ s: EmulatorServices) -> Router {
        var r = Router()
        StatusRoutes.register(&r, s)
        AuthRoutes.register(&r, s)
        ProjectAdminRoutes.register(&r, s)
        FaultRoutes.register(&r, s)
        ResetRoutes.register(&r, s)
        ExportRoutes.register(&r, s)
        AdminOpenAPI.register(&r, s)
        FirestoreRESTRoutes.register(&r, s)
        PubSubRESTRoutes.register(&r, s)
        PubSubAdminRoutes.register(&r, s)
        FirestoreWebChannelRoutes.register(&r, s)
        RulesRoutes.register(&r, s)
        StorageRulesRoutes.register(&r, s)
        FunctionsRoutes.register(&r, s)
        FunctionsTriggerRoutes.register(&r, s)
        StorageRoutes.register(&r, s)
        StoreBrowseRoutes.register(&r, s)
        AuthUserListRoutes.register(&r, s)
        RulesEvaluationRoutes.register(&r, s)
        FunctionsInvocationRoutes.register(&r, s)
        ProjectSummaryRoutes.register(&r, s)
        IndexRoutes.register(&r, s)
        ProjectEventsRoutes.register(&r, s)
        UIRoutes.register(&r, s)
        RouteListing.register(&r)
        return r
    }
}
