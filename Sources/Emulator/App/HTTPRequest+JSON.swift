import EmulatorCore
import EmulatorHTTP

extension HTTPRequest {
    /// The body parsed as JSON; an empty body is `{}`. Bad JSON → INVALID_ARGUMENT naming the problem.
    public func jsonBody() throws -> JSON {
        if body.isEmpty || body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .object([:]) }
        do {
            return try JSON.parse(body)
        } catch {
            throw EmulatorError.invalidArgument("Invalid JSON payload received. \(error.description).")
        }
    }

    /// The body as a JSON object; any other JSON kind → INVALID_ARGUMENT.
    public func jsonObjectBody() throws -> UTF8Dictionary<JSON> {
        let v = try jsonBody()
        guard case .object(let o) = v else {
            throw EmulatorError.invalidArgument("Invalid JSON payload received. Expected a JSON object, got \(v.kindName).")
        }
        return o
    }

    /// The bearer token of the `Authorization` header, if the scheme is Bearer (case-insensitive).
    public var bearerToken: String? { CallerResolver.bearer(fromAuthorization: headers["Authorization"]) }
}
