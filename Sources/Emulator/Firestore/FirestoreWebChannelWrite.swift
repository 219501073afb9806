import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf

/// One Write stream over a WebChannel session: each map is one WriteRequest for
/// `FirestoreWriteStream` (the protocol the gRPC Write stream uses): the handshake answer with
/// `streamId` and `streamToken`, then one answer per batch with its token, results and commit
/// time, in order; a request without writes gets no answer. A refused batch (rules, preconditions,
/// a fault rule) is the stream error `{"error":...}` and ends the stream, as it ends the gRPC call;
/// the SDK rejects the batch and opens a new session for the rest.
/// Whether it ended is behind a `Mutex`.
final class FirestoreWebChannelWrite: WebChannelStream, FirestoreFaultableStream {
    private let stream: FirestoreWriteStream
    private let session: WebChannelSession
    private let ended = Mutex(false)

    /// Creates the stream.
    init(stream: FirestoreWriteStream, session: WebChannelSession) {
        self.stream = stream
        self.session = session
    }

    private var services: EmulatorServices { stream.api.services }

    /// Handles the client's WriteRequests in order; the first that fails (or that a fault rule
    /// ends, `FirestoreWriteStream.handle`) ends the stream.
    func receive(_ maps: [[String: String]]) async {
        for map in maps {
            if ended.withLock({ $0 }) { return }
            do {
                let request = try FirestoreWebChannel.message(map, FirestoreSchemas.writeRequest)
                if let response = try stream.handle(request) { session.post([response]) }
            } catch {
                fail(error)
                return
            }
        }
    }

    /// Ends the stream with the error of a fault rule that fires for it now.
    func checkFault() {
        guard let db = stream.database else { return }
        do { try stream.api.checkStreamFault(.write, db) } catch { fail(error) }
    }

    private func fail(_ error: any Error) {
        let first = ended.withLock { e -> Bool in
            defer { e = true }
            return !e
        }
        guard first else { return }
        session.post([ErrorResponder.webChannelError(for: error, logger: services.logger)])
    }

    /// The session ended: nothing to release (each batch was committed as it came).
    func close() { ended.withLock { $0 = true } }
}
