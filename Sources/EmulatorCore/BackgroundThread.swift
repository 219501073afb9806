import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts detached OS threads for blocking work (event loops, blocking socket I/O, reaping child
/// processes, polling files) that must not occupy Swift concurrency's cooperative pool.
///
/// A thin `pthread_create` wrapper rather than Foundation's `Thread`: `Thread` exists only in the
/// full Foundation, which drags CoreFoundation and ICU's 37 MB of data into the statically linked
/// release binary; the emulator needs nothing from it but this. Stateless.
public enum BackgroundThread {
    /// Runs `body` on a new detached thread named `name` (Linux keeps the first 15 bytes) with a
    /// stack of `stackSize` bytes (0: the system default). Should the system refuse a thread
    /// (resource limits), `body` runs on a Dispatch global queue instead, so work is never lost.
    public static func detach(name: String? = nil, stackSize: Int = 0, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        if stackSize > 0 { pthread_attr_setstacksize(&attr, stackSize) }
        #if canImport(Glibc)
        var tid = pthread_t()
        #else
        var tid: pthread_t?
        #endif
        let rc = pthread_create(
            &tid, &attr,
            { raw in
                let b = Unmanaged<ThreadBody>.fromOpaque(UnsafeMutableRawPointer(raw)!).takeRetainedValue()  // trap-ok: pthread_create passes the non-nil context given below
                #if canImport(Glibc)
                if let name = b.name { nameCurrentThread(name) }
                #endif
                b.body()
                return nil
            }, box)
        if rc != 0 {
            let b = Unmanaged<ThreadBody>.fromOpaque(box).takeRetainedValue()
            DispatchQueue.global().async { b.body() }
        }
    }
}

#if canImport(Glibc)
/// Names the calling thread (as `top -H` and debuggers show it) through
/// `/proc/thread-self/comm`: `pthread_setname_np` is a GNU extension Swift's Glibc module does
/// not import. Linux keeps 15 bytes; a failure only leaves the default name.
private func nameCurrentThread(_ name: String) {
    var name = name
    while name.utf8.count > 15 { name.removeLast() }
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = Array(name.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}
#endif

/// What a new thread runs, carried through `pthread_create`'s context pointer. Immutable.
private final class ThreadBody: Sendable {
    let name: String?
    let body: @Sendable () -> Void

    init(name: String?, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
