import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// The request pipeline: browser safety (Host check, origin rules), CORS, admin-token check,
/// routing, error mapping and the request log.
/// Immutable after construction, so it is shared by every connection without locks.
public final class EmulatorApp: Sendable {
    /// The services the routes call.
    public let services: EmulatorServices
    /// Every route of every API (all ports serve all of them).
    public let router: Router
    /// Host and origin rules for browsers (SECURITY.md).
    let browser: BrowserPolicy

    /// Builds the services and the router.
    public init(services: EmulatorServices) {
        self.services = services
        self.router = Routes.makeRouter(services)
        self.browser = BrowserPolicy(config: services.config)
    }

    /// Answers one request; never throws. The path is normalized here, once (`RequestPath`), and
    /// every decision after this reads that form: the control-plane test, the browser rules, the
    /// admin token, routing and faults. A path without one meaning is refused with 400.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let entry = Entry(request)
        var response: HTTPResponse
        switch gate(request, entry) {
        case .answer(let r): response = r
        case .route(let p): response = await route(request, path: p)
        }
        finish(&response, request, entry)
        return response
    }

    /// Answers on the calling thread (an event loop's) the GET and HEAD requests whose route has
    /// an inline handler that takes them, through the same gate as `handle`; nil for every other
    /// request, which then goes to `handle`. Never while fault rules exist (a fault may delay),
    /// nor for a target longer than `longestInlineTarget`.
    public func handleInline(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD", request.target.utf8.count <= Self.longestInlineTarget,
            !services.faults.hasRules
        else { return nil }
        let entry = Entry(request)
        var response: HTTPResponse
        switch gate(request, entry) {
        case .answer(let r): response = r
        case .route(let p):
            guard let (handler, match) = router.resolveInline(method: request.method, path: p) else { return nil }
            do {
                guard let r = try handler(request, match) else { return nil }
                response = r
            } catch is StoreBusy {
                return nil
            } catch {
                response = ErrorResponder.response(for: error, logger: services.logger)
            }
        }
        finish(&response, request, entry)
        return response
    }

    /// The longest request target answered inline: the work of an inline answer grows with its
    /// path (a 60 KiB path of 20,000 segments took 9 ms), and the loop's other connections wait
    /// meanwhile, so a longer one goes to the pool. Real document paths are far shorter.
    static let longestInlineTarget = 2048

    /// What both entries read first: the arrival time, the path's one normalized form, and
    /// whether it is the control plane (a path that cannot be normalized is treated as control
    /// plane: no CORS grant for it).
    private struct Entry {
        let started = WallClock().now()
        let path: Result<RequestPath, RequestPath.Problem>
        let controlPlane: Bool

        init(_ request: HTTPRequest) {
            path = RequestPath.normalized(request.path)
            controlPlane = (try? path.get()).map(EmulatorApp.isControlPlane) ?? true
        }
    }

    /// Control-plane routes (the admin token guards them): `/emulator/...` and Firestore's `/reset`,
    /// judged on the decoded segments. The OOB action page (`/emulator/action`) stays open: people
    /// follow those links in a browser.
    static func isControlPlane(_ path: RequestPath) -> Bool {
        if path.count == 1, path.segment(0) == "reset" { return true }
        return path.segment(0) == "emulator" && path.segment(1) != "action"
    }

    /// What the gate decided: an answer of its own, or the normalized path to route.
    private enum GateOutcome {
        case answer(HTTPResponse)
        case route(RequestPath)
    }

    /// Everything before routing, for both entries: the Host check, the path's one form, CORS
    /// preflights, the browser rules and the admin token.
    private func gate(_ request: HTTPRequest, _ entry: Entry) -> GateOutcome {
        let controlPlane = entry.controlPlane
        if let refusal = browser.hostRefusal(for: request) { return .answer(ErrorResponder.response(for: refusal)) }
        let path: RequestPath
        switch entry.path {
        case .success(let p): path = p
        case .failure(let problem): return .answer(ErrorResponder.response(for: .invalidArgument(problem.message)))
        }
        if let preflight = CORS.preflight(for: request, policy: browser, controlPlane: controlPlane) { return .answer(preflight) }
        if let refusal = browser.refusal(for: request, controlPlane: controlPlane) { return .answer(ErrorResponder.response(for: refusal)) }
        if let token = services.config.adminToken, controlPlane, request.bearerToken != token {
            return .answer(
                ErrorResponder.response(
                    for: .unauthenticated(
                        "This emulator requires an admin token for /emulator/v1 and /reset: send Authorization: Bearer <token>.")))
        }
        return .route(path)
    }

    /// After the answer, for both entries: CORS headers and the request's debug line.
    private func finish(_ response: inout HTTPResponse, _ request: HTTPRequest, _ entry: Entry) {
        CORS.apply(to: &response, for: request, policy: browser, controlPlane: entry.controlPlane)
        guard services.logger.isEnabled(.debug) else { return }
        let ms = Double(WallClock().now().microseconds - entry.started.microseconds) / 1000
        services.logger.log(.debug, "http", "\(request.method) \(request.path) \(response.status) \(String(format3(ms)))ms")
    }

    private func route(_ request: HTTPRequest, path: RequestPath) async -> HTTPResponse {
        switch router.resolve(method: request.method, path: path) {
        case .found(let handler, let match):
            do {
                try await injectFault(request, path, match)
                return try await handler(request, match)
            } catch {
                return ErrorResponder.response(for: error, logger: services.logger)
            }
        case .methodNotAllowed(let allowed):
            var r = ErrorResponder.response(
                for: EmulatorError(
                    .invalidArgument, "Method \(request.method) is not allowed on \(request.path); allowed: \(allowed.joined(separator: ", ")).",
                    httpStatus: 405))
            r.headers.set("Allow", allowed.joined(separator: ", "))
            return r
        case .notFound:
            return ErrorResponder.response(for: .notFound("No route for \(request.method) \(request.path)."))
        }
    }
}

extension EmulatorApp {
    /// Applies the first matching injected fault to the routes `RequestClassifier` knows (Auth,
    /// Pub/Sub; Firestore applies its own in `FirestoreAPI`): waits `delayMs`, then throws its error if any.
    func injectFault(_ request: HTTPRequest, _ path: RequestPath, _ match: RouteMatch) async throws {
        guard services.faults.hasRules,
            let (project, target) = RequestClassifier.classify(request, path, match, projects: services.projects, storage: services.storage),
            let rule = services.faults.fire(projectId: project, target: target)
        else { return }
        if rule.delayMs > 0 { try? await Task.sleep(nanoseconds: UInt64(rule.delayMs) * 1_000_000) }
        if let e = rule.error { throw e }
    }
}

/// Milliseconds with three decimals, without Foundation's formatter.
/// Negative, huge and non-finite values (a clock stepping back) print plainly, never trap.
func format3(_ v: Double) -> String {
    guard v.isFinite, abs(v) < 1e12 else { return "\(v)" }
    let scaled = Int64((v * 1000).rounded())
    let frac = String(scaled.magnitude % 1000)
    return "\(scaled < 0 ? "-" : "")\(scaled.magnitude / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
}
