/// The process-wide budget of request-body bytes (`RequestBodyBudget`) on the event loop, for
/// HTTP/1.1 bodies read whole: a body is charged as soon as its size is known (its
/// `Content-Length` when the head is in, before any `100 Continue`; chunk by chunk when chunked)
/// until its request is answered or its connection closes. A body that does not fit is answered
/// 503 with `Retry-After` and its connection closed before the rest of it is read: a refusal costs
/// one small answer, where pausing the connection until room frees would keep its buffered bytes
/// and its slot, and would need the loop that frees room to wake the loops that wait for it.
extension EventLoop {
    /// Charges `c`'s current body as `total` bytes; when the budget has no room, queues the 503
    /// answer, marks the connection to close after it and returns false.
    func coverRequestBody(_ c: Connection, _ total: Int) -> Bool {
        if c.bodyCharge.cover(total) { return true }
        c.output.append(contentsOf: bodyBudget.refusal.wireBytes(head: false, close: true))
        c.closeAfterWrite = true
        return false
    }
}
