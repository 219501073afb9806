/// Serves a plain HTTP request that arrived over HTTP/2 (e.g. `curl --http2-prior-knowledge`)
/// with the same responder as HTTP/1.1: the stream becomes an `HTTPRequest`, the response goes
/// back as HEADERS and DATA.
enum HTTP2RequestAdapter {
    /// Header fields that are meaningless (and forbidden) in HTTP/2 responses.
    static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "content-length"]

    /// Why a request's host is ambiguous, or nil: more than one `host` field, or a `host` that
    /// names another authority than `:authority` (RFC 9113 §8.3.1; HTTP/1.1 refuses a second
    /// Host in its parser). Either way one layer could check one name while another uses the other.
    static func authorityProblem(_ fields: [HPACKHeaderField]) -> String? {
        var authority: String?
        var host: String?
        var hosts = 0
        for f in fields {
            if f.name.isHeaderName(":authority") {
                authority = f.value
            } else if f.name.isHeaderName("host") {
                hosts += 1
                if host == nil { host = f.value }
            }
        }
        return authorityProblem(authority: authority, host: host, hosts: hosts)
    }

    /// The same verdict from what a reader found in its own pass over the fields: the last
    /// `:authority`, the first `host` and how many `host` fields there were.
    static func authorityProblem(authority: String?, host: String?, hosts: Int) -> String? {
        guard hosts <= 1 else { return "More than one host header." }
        if let host, let authority, !host.caseInsensitiveEquals(authority) {
            return "The host header (\(host)) names another authority than :authority (\(authority))."
        }
        return nil
    }

    /// Reads the whole request body (up to `maxBodyBytes`, charged to `budget` until the answer
    /// is written, whatever ends the stream), calls `responder`, writes the answer.
    static func serve(_ stream: HTTP2Stream, responder: HTTPResponder, maxBodyBytes: Int, budget: RequestBodyBudget) async {
        var body: [UInt8] = []
        var charge = RequestBodyCharge(budget: budget)
        defer { charge.release() }
        // A declared length is charged before any byte is read, so a body that cannot fit is
        // refused at once; the bytes that arrive are charged too, whatever was declared.
        if let declared = stream.header("content-length").flatMap({ Int($0) }), declared <= maxBodyBytes, !charge.cover(declared) {
            await write(budget.refusal, to: stream, head: false)
            return
        }
        do {
            while let chunk = try await stream.read() {
                body.append(contentsOf: chunk)
                if body.count > maxBodyBytes {
                    await write(EventLoop.errorResponse(status: 413, message: "Request body exceeds \(maxBodyBytes) bytes."), to: stream, head: false)
                    return
                }
                if body.count > charge.bytes, !charge.cover(body.count) {
                    await write(budget.refusal, to: stream, head: false)
                    return
                }
            }
        } catch {
            return  // reset by the client or the connection went away
        }
        var headers = HTTPHeaders()
        for f in stream.requestHeaders where !f.name.hasPrefix(":") { headers.add(f.name, f.value) }
        if headers["host"] == nil, let authority = stream.header(":authority") { headers.add("host", authority) }
        let request = HTTPRequest(
            method: stream.method, target: stream.path, headers: headers, body: body, version: "HTTP/2",
            remoteAddress: stream.remoteAddress)
        let response = await responder(request)
        await write(response, to: stream, head: stream.method == "HEAD")
    }

    /// Writes a response: HEADERS, then the body (whole, or streamed by its producer).
    static func write(_ response: HTTPResponse, to stream: HTTP2Stream, head: Bool) async {
        var fields = [HPACKHeaderField(name: ":status", value: String(response.status), neverIndexed: false)]
        for (name, value) in response.headers {
            let lower = name.lowercased()
            if connectionSpecific.contains(lower) { continue }
            fields.append(HPACKHeaderField(name: lower, value: value, neverIndexed: false))
        }
        if let produce = response.stream, !head {
            do {
                try stream.write(headers: fields)
                await produce(HTTP2BodyWriter(stream: stream))
                try await stream.write(data: [], endStream: true)
            } catch {
                return  // the client went away
            }
            return
        }
        let bodyless = head || response.status == 204 || response.status == 304
        if !bodyless { fields.append(HPACKHeaderField(name: "content-length", value: String(response.body.count), neverIndexed: false)) }
        do {
            if bodyless || response.body.isEmpty {
                try stream.write(headers: fields, endStream: true)
            } else {
                try stream.write(headers: fields)
                try await stream.write(data: response.body, endStream: true)
            }
        } catch {
            return  // the client went away
        }
    }
}
