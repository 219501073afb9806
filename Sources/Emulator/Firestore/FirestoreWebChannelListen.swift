import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf

/// One Listen stream over a WebChannel session: the session's maps feed `FirestoreListen` (the
/// protocol every transport shares) and a pump task turns its store events into ListenResponses,
/// one array each. The pump waits while the backchannel is behind (`WebChannelSession.send`), so
/// a browser that stops reading costs what a slow gRPC listener costs: the store's events queue
/// in the `ListenSession` up to its bound, and the session is dropped when it stalls.
///
/// What ends the stream as it ends a gRPC Listen call, with the same message as a stream error
/// `{"error":...}`: a request the protocol refuses, a fault rule, falling too far behind. Target
/// errors (rules denials, bad queries) are target `REMOVE`s with a `cause`, as over gRPC.
/// State (the pump task, whether it ended) behind a `Mutex`.
final class FirestoreWebChannelListen: WebChannelStream, FirestoreFaultableStream {
    private let listen: FirestoreListen
    private let session: WebChannelSession
    private let heartbeats: ListenHeartbeats
    private let faults: FirestoreStreamFaultWatch
    private let encoder: FirestoreWebChannelEncoder
    private let state = Mutex<(pump: Task<Void, Never>?, ended: Bool)>((nil, false))

    /// Starts the stream's pump.
    init(
        listen: FirestoreListen, session: WebChannelSession, heartbeats: ListenHeartbeats, faults: FirestoreStreamFaultWatch,
        encoder: FirestoreWebChannelEncoder
    ) {
        self.listen = listen
        self.encoder = encoder
        self.session = session
        self.heartbeats = heartbeats
        self.faults = faults
        heartbeats.add(listen.session)
        let pump = Task { [weak self] in
            guard let self else { return }
            await self.pump()
        }
        state.withLock { $0.pump = pump }
    }

    private var services: EmulatorServices { listen.api.services }

    /// Handles the client's ListenRequests in order; the first one the protocol refuses (or that a
    /// fault rule ends, `FirestoreListen.handle`) ends the stream.
    func receive(_ maps: [[String: String]]) async {
        for map in maps {
            if state.withLock({ $0.ended }) { return }
            do {
                try listen.handle(try FirestoreWebChannel.message(map, FirestoreSchemas.listenRequest))
            } catch {
                fail(error)  // ends the stream; the check below releases what the request added
            }
            // The session may have ended while the target was being added (a terminate beacon
            // racing this request): release what the request just added.
            if state.withLock({ $0.ended }) {
                listen.close()
                return
            }
        }
    }

    /// Store events → ListenResponses, until the stream ends.
    private func pump() async {
        let session = self.session, encoder = self.encoder
        do {
            while true {
                switch await listen.session.next() {
                case .events(let events):
                    guard let db = listen.database else { continue }
                    try await listen.responses(for: events, chunk: 64) { messages in
                        try await session.send(serialized: messages.map { encoder.payload($0, project: db.project, database: db.database) })
                    }
                case .idle:
                    if let beat = listen.heartbeat() { try await session.send([beat]) }
                case .overflowed:
                    fail(
                        EmulatorError(.resourceExhausted, "The listener fell too far behind the changes; reconnect to resume from the last snapshot.")
                    )
                    return
                case .closed:
                    return
                }
            }
        } catch is WebChannelSessionClosed {
            end()
        } catch {
            fail(error)
        }
    }

    /// Ends the stream with the error of a fault rule that fires for it now.
    func checkFault() {
        do { try listen.api.checkStreamFault(.listen, listen.database) } catch { fail(error) }
    }

    /// Sends the stream error and ends the stream (the client closes the session and reopens).
    private func fail(_ error: any Error) {
        guard !state.withLock({ $0.ended }) else { return }
        session.post([ErrorResponder.webChannelError(for: error, logger: services.logger)])
        end()
    }

    /// Releases the targets and stops the pump (once).
    private func end() {
        let pump = state.withLock { s -> Task<Void, Never>? in
            guard !s.ended else { return nil }
            s.ended = true
            defer { s.pump = nil }
            return s.pump
        }
        heartbeats.remove(listen.session)
        faults.remove(self)
        listen.close()
        pump?.cancel()
    }

    /// The session ended.
    func close() { end() }
}
