import EmulatorHTTP

/// Hands each gRPC call to the service its `:path` names: `/google.pubsub.v1.*` to Pub/Sub,
/// everything else to Firestore (which answers UNIMPLEMENTED for methods it does not serve).
/// Immutable; shared by every call.
struct GRPCServices: Sendable {
    /// google.firestore.v1.Firestore.
    let firestore: FirestoreGRPCService
    /// google.pubsub.v1.Publisher and Subscriber.
    let pubsub: PubSubGRPCService

    /// Builds both adapters over the services.
    init(services: EmulatorServices) {
        firestore = FirestoreGRPCService(api: FirestoreAPI(services: services))
        pubsub = PubSubGRPCService(services: services)
    }

    /// The calls answered on the event loop: Firestore's GetDocument.
    var inline: GRPCInline {
        let firestore = self.firestore
        return GRPCInline(methods: FirestoreGRPCService.inlineMethods) { method, metadata, message in
            firestore.answerInline(method: method, metadata: metadata, message: message)
        }
    }

    /// Serves one call.
    func handle(_ call: GRPCServerCall) async {
        if call.method.hasPrefix("/google.pubsub.v1.") {
            await pubsub.handle(call)
        } else {
            await firestore.handle(call)
        }
    }
}
