#if canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the BSD socket calls the server and client need.
enum Socket {
    /// The text of `errno`.
    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// Resolves `host:port` into socket addresses, IPv4 first unless the host is an IPv6 literal.
    static func resolve(host: String, port: Int, passive: Bool) throws -> [(family: Int32, addr: [UInt8])] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var res: UnsafeMutablePointer<addrinfo>?
        let h = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let rc = getaddrinfo(h, String(port), &hints, &res)
        guard rc == 0, let first = res else {
            throw HTTPServerError("cannot resolve host '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var out: [(Int32, [UInt8])] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let ai = p {
            let bytes = Array(UnsafeRawBufferPointer(start: ai.pointee.ai_addr, count: Int(ai.pointee.ai_addrlen)))
            if !out.contains(where: { $0.1 == bytes }) { out.append((ai.pointee.ai_family, bytes)) }
            p = ai.pointee.ai_next
        }
        if !h.contains(":") { out.sort { a, _ in a.0 == AF_INET } }
        return out
    }

    /// Creates a non-blocking listening socket bound to `host:port`. Returns the fd and the bound port.
    static func listen(host: String, port: Int) throws -> (fd: Int32, port: Int) {
        var lastError = "no address"
        for (family, addr) in try resolve(host: host, port: port, passive: true) {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = errorText()
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if family == AF_INET6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
            let bound = addr.withUnsafeBytes { p in bind(fd, p.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(addr.count)) }  // trap-ok: a sockaddr is never empty
            guard bound == 0, Glibc.listen(fd, 4096) == 0 else {
                lastError = errorText()
                close(fd)
                continue
            }
            return (fd, localPort(fd))
        }
        let shown = host.contains(":") ? "[\(host)]" : host
        throw HTTPServerError("cannot listen on \(shown):\(port): \(lastError)")
    }

    /// The local port of a bound socket.
    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return portOf(&storage)
    }

    static func portOf(_ storage: inout sockaddr_storage) -> Int {
        withUnsafePointer(to: &storage) { p in
            if Int32(p.pointee.ss_family) == AF_INET {
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
            return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
        }
    }

    /// `address:port` text of a peer address.
    static func describe(_ storage: inout sockaddr_storage) -> String {
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let port = portOf(&storage)
        return withUnsafePointer(to: &storage) { p -> String in
            if Int32(p.pointee.ss_family) == AF_INET {
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    inet_ntop(AF_INET, &a, &buf, socklen_t(buf.count))
                    return "\(cText(buf)):\(port)"
                }
            }
            return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                var a = sin.pointee.sin6_addr
                inet_ntop(AF_INET6, &a, &buf, socklen_t(buf.count))
                return "[\(cText(buf))]:\(port)"
            }
        }
    }

    static func cText(_ buf: [CChar]) -> String {
        buf.withUnsafeBufferPointer { p in p.baseAddress.map { String(cString: $0) } ?? "" }
    }

    /// Raises the open-file limit to the hard limit (1,000+ connections need it).
    static func raiseFileLimit() {
        var lim = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim) == 0, lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim)
        }
    }
}
