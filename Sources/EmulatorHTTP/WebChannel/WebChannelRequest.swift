import EmulatorCore

/// What one HTTP request on a WebChannel path asks for (VER=8, `webchannelbase.js`), told apart by
/// method and query parameters (parsed by name: clients order them differently):
///
/// - `POST` without `SID`: open a session (the handshake), with the first messages in the body;
/// - `POST` with `SID` and `TYPE=terminate` (or the `<img>` fallback's `GET`): close it;
/// - `POST` with `SID`: forward channel, client messages (`count`/`ofs`/`req*`) and an ack (`AID`);
/// - `GET` with `SID` (`RID=rpc`, `TYPE=xmlhttp`): the backchannel, server arrays after `AID`,
///   streamed (`CI=0`) or long-polled (`CI=1`, optionally within `TO` milliseconds).
///
/// `VER` other than 8 is refused; `RID`, `CVER`, `zx`, `t` and the application's own parameters
/// (Firestore's `database`) are the application's business or only defeat caches.
public enum WebChannelRequest: Sendable, Equatable {
    /// The handshake: the form, and the value of `X-HTTP-Session-Id` when the client asked to be
    /// given an HTTP session id.
    case open(WebChannelForm, httpSessionIdParameter: String?)
    /// Client messages on an open session.
    case forward(sid: String, ack: Int?, WebChannelForm)
    /// The backchannel GET.
    case backchannel(sid: String, ack: Int?, longPoll: Bool, timeoutMilliseconds: Int?)
    /// The client closes the session.
    case terminate(sid: String)

    /// The only protocol version served.
    public static let version = "8"

    /// Classifies a request on a channel path; throws `INVALID_ARGUMENT` naming what is wrong.
    public static func parse(_ request: HTTPRequest) throws(EmulatorError) -> WebChannelRequest {
        let query = request.queryItems
        func param(_ name: String) -> String? { query.first { $0.name == name }?.value }
        if let v = param("VER"), v != version {
            throw WebChannelForm.bad("VER=\(v.prefix(10)) is not supported; this server speaks WebChannel VER=8.")
        }
        let sid = param("SID").flatMap { $0.isEmpty || $0 == "null" ? nil : $0 }
        let type = param("TYPE")
        let method = request.method.uppercased()
        if type == "terminate" {
            guard let sid else { throw WebChannelForm.bad("TYPE=terminate needs a SID.") }
            return .terminate(sid: sid)
        }
        let ack = try number(param("AID"), "AID", allowMinusOne: true)
        switch method {
        case "POST":
            let form = try WebChannelForm.parse(request.body)
            guard let sid else { return .open(form, httpSessionIdParameter: param("X-HTTP-Session-Id")) }
            return .forward(sid: sid, ack: ack, form)
        case "GET":  // not HEAD: a backchannel must run to be detached again
            guard let sid else { throw WebChannelForm.bad("A backchannel GET needs a SID (open the session with a POST first).") }
            let ci = param("CI") ?? "0"
            guard ci == "0" || ci == "1" else { throw WebChannelForm.bad("CI must be 0 (streaming) or 1 (long polling), got '\(ci.prefix(10))'.") }
            let timeout = try number(param("TO"), "TO", allowMinusOne: false)
            return .backchannel(sid: sid, ack: ack, longPoll: ci == "1", timeoutMilliseconds: timeout)
        default:
            throw WebChannelForm.bad("\(method.prefix(20)) is not a WebChannel method (POST, or GET for the backchannel).")
        }
    }

    private static func number(_ s: String?, _ name: String, allowMinusOne: Bool) throws(EmulatorError) -> Int? {
        guard let s else { return nil }
        if allowMinusOne, s == "-1" { return -1 }
        guard let n = WebChannelForm.number(s) else { throw WebChannelForm.bad("\(name) must be a number, got '\(s.prefix(20))'.") }
        return n
    }
}
