import EmulatorAuth
import EmulatorCore
import EmulatorCrypto
import EmulatorHTTP

/// Checks V4 signed URLs and POST policies (`GOOG4-RSA-SHA256`) when `storage.signedUrls` is
/// `verify`: the canonical request is rebuilt from what arrived, its hash signed string checked
/// against the public key of the service account the credential names (one listed in
/// `auth.serviceAccounts`), and the expiry judged on the project clock. With the default
/// (`ignore`) every signed request is served, as Firebase's emulator does.
enum SignedRequest {
    /// A V4 signed URL request for `/{bucket}/{object}`.
    static func verifyURL(_ req: HTTPRequest, bucket: String, object: String, signers: CustomTokenSigners, now: Timestamp) throws {
        guard let algorithm = req.query("X-Goog-Algorithm") else { throw denied("The request is not signed (no X-Goog-Algorithm).") }
        guard algorithm == "GOOG4-RSA-SHA256" else { throw denied("Only GOOG4-RSA-SHA256 signatures can be verified (not \(algorithm)).") }
        guard let credential = req.query("X-Goog-Credential"), let date = req.query("X-Goog-Date"), let expiresText = req.query("X-Goog-Expires"),
            let signedHeaders = req.query("X-Goog-SignedHeaders"), let signatureHex = req.query("X-Goog-Signature")
        else {
            throw denied("A V4 signed URL needs X-Goog-Credential, X-Goog-Date, X-Goog-Expires, X-Goog-SignedHeaders and X-Goog-Signature.")
        }
        guard let start = parseDate(date), let expires = Int64(expiresText), expires > 0, expires <= 604_800 else {
            throw denied("X-Goog-Date or X-Goog-Expires is malformed.")
        }
        guard now.seconds <= start.seconds + expires else {
            throw EmulatorError(.invalidArgument, "Request has expired.", style: .xml(code: "ExpiredToken"))
        }
        var segments = [bucket]
        for part in object.split(separator: "/", omittingEmptySubsequences: false) { segments.append(String(part)) }
        let path = "/" + segments.map { PercentEncoding.encode($0) }.joined(separator: "/")
        var pairs: [(String, String)] = []
        for item in req.queryItems where item.name != "X-Goog-Signature" {
            pairs.append((PercentEncoding.encode(item.name), PercentEncoding.encode(item.value)))
        }
        pairs.sort { (a: (String, String), b: (String, String)) -> Bool in a.0 == b.0 ? a.1 < b.1 : a.0 < b.0 }
        let query = pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        var headers = ""
        for name in signedHeaders.split(separator: ";") {
            let values = req.headers.values(String(name))
            headers += "\(name.lowercased()):\(values.map { $0.trimming(" \t") }.joined(separator: ","))\n"
        }
        let canonical = [req.method == "HEAD" ? "GET" : req.method, path, query, headers, signedHeaders, "UNSIGNED-PAYLOAD"].joined(separator: "\n")
        let scope = credential.split(separator: "/", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let toSign = ["GOOG4-RSA-SHA256", date, scope, hex(Digest.sha256(Array(canonical.utf8)))].joined(separator: "\n")
        try check(signatureHex, over: toSign, credential: credential, signers: signers)
    }

    /// A POST policy: the signature over the base64 policy, its expiry and its conditions.
    static func verifyPolicy(_ fields: [String: String], bucket: String, key: String, size: Int64, signers: CustomTokenSigners, now: Timestamp) throws
    {
        guard let policy = fields["policy"], let signature = fields["x-goog-signature"], let credential = fields["x-goog-credential"] else {
            throw denied("A POST policy upload needs policy, x-goog-signature and x-goog-credential fields.")
        }
        guard fields["x-goog-algorithm"] == "GOOG4-RSA-SHA256" else { throw denied("Only GOOG4-RSA-SHA256 policies can be verified.") }
        try check(signature, over: policy, credential: credential, signers: signers)
        guard let bytes = Base64.decode(policy), let doc = try? JSON.parse(bytes) else { throw denied("The policy is not base64 JSON.") }
        guard let exp = doc["expiration"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }), now < exp else {
            throw EmulatorError(.invalidArgument, "The policy has expired.", style: .xml(code: "ExpiredToken"))
        }
        var values = fields  // `key` as the form sent it (a `${filename}` condition matches it unexpanded)
        values["bucket"] = bucket
        for condition in doc["conditions"]?.arrayValue ?? [] {
            if case .object(let o) = condition {
                for (k, v) in o where values[k.lowercased()] != v.stringValue { throw policyFailure("\(k) must be '\(v.stringValue ?? "")'") }
            } else if case .array(let a) = condition, a.count == 3, let op = a[0].stringValue?.lowercased() {
                if op == "content-length-range" {
                    guard let lo = a[1].intValue, let hi = a[2].intValue, size >= lo, size <= hi else {
                        throw policyFailure("the size \(size) is outside content-length-range")
                    }
                    continue
                }
                guard let field = a[1].stringValue, field.hasPrefix("$"), let want = a[2].stringValue else { continue }
                let have = values[String(field.dropFirst()).lowercased()] ?? ""
                if op == "eq" && have != want { throw policyFailure("\(field) must equal '\(want)'") }
                if op == "starts-with" && !have.hasPrefix(want) { throw policyFailure("\(field) must start with '\(want)'") }
            }
        }
    }

    private static func check(_ signatureHex: String, over text: String, credential: String, signers: CustomTokenSigners) throws {
        let email = String(credential.split(separator: "/").first ?? "")
        guard let signer = signers.signer(email: email) else {
            throw denied("No key of '\(email)' is known: list its service-account file in auth.serviceAccounts to verify its signatures.")
        }
        guard let signature = unhex(signatureHex), signer.key.verifyRS256(Array(text.utf8), signature: signature) else {
            throw EmulatorError(
                .permissionDenied, "The request signature we calculated does not match the signature you provided.",
                style: .xml(code: "SignatureDoesNotMatch"))
        }
    }

    private static func denied(_ message: String) -> EmulatorError { EmulatorError(.permissionDenied, message, style: .xml(code: "AccessDenied")) }
    private static func policyFailure(_ why: String) -> EmulatorError {
        EmulatorError(.permissionDenied, "Invalid according to Policy: \(why).", style: .xml(code: "AccessDenied"))
    }

    /// `20240102T030405Z`.
    static func parseDate(_ s: String) -> Timestamp? {
        let u = Array(s.utf8)
        guard u.count == 16, u[8] == UInt8(ascii: "T"), u[15] == UInt8(ascii: "Z") else { return nil }
        func num(_ r: Range<Int>) -> Int64? { Int64(String(decoding: u[r], as: UTF8.self)) }
        guard let y = num(0..<4), let mo = num(4..<6), let d = num(6..<8), let h = num(9..<11), let mi = num(11..<13), let se = num(13..<15),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61
        else { return nil }
        return Timestamp(seconds: Timestamp.daysFromCivil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    static func unhex(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0, u.count <= 4096 else { return nil }
        func v(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out: [UInt8] = []
        var i = 0
        while i < u.count {
            guard let h = v(u[i]), let l = v(u[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }
}
