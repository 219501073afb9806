import EmulatorCore

/// A stream that a fault rule added while it is open may end (`match.method` `listen` or `write`).
/// Which rule fires is `FirestoreAPI.checkStreamFault`'s call; the stream only encodes the error.
protocol FirestoreFaultableStream: AnyObject, Sendable {
    /// Ends the stream with the fault's error when a rule now fires for it.
    func checkFault()
}

/// Wakes open WebChannel streams when a fault rule is added, so they end as gRPC streams end
/// (`FirestoreAPI.nextStreamFault`, one task per call there): one task for every stream (rather than one per session) waits for new rules and asks each open
/// stream to check. Streams are held weakly behind a `Mutex`; the task starts with the first
/// stream and stops at the first rule after the last one ended.
final class FirestoreStreamFaultWatch: Sendable {
    private struct Weak {
        weak var stream: (any FirestoreFaultableStream)?
    }

    private let faults: FaultInjector
    private let state = Mutex<(streams: [ObjectIdentifier: Weak], watching: Bool)>(([:], false))

    /// Watches for rules of `faults`.
    init(faults: FaultInjector) { self.faults = faults }

    /// Watches `stream` until it is removed or released.
    func add(_ stream: any FirestoreFaultableStream) {
        let start = state.withLock { s -> Bool in
            s.streams[ObjectIdentifier(stream)] = Weak(stream: stream)
            defer { s.watching = true }
            return !s.watching
        }
        guard start else { return }
        let faults = self.faults
        Task { [weak self] in
            while true {
                await faults.waitForNewRule(projectId: nil)
                guard let self else { return }
                let live = self.state.withLock { s -> [any FirestoreFaultableStream] in
                    s.streams = s.streams.filter { $0.value.stream != nil }
                    if s.streams.isEmpty { s.watching = false }
                    return s.streams.values.compactMap(\.stream)
                }
                if live.isEmpty { return }
                for stream in live { stream.checkFault() }
            }
        }
    }

    /// Stops watching `stream`.
    func remove(_ stream: any FirestoreFaultableStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }
}
