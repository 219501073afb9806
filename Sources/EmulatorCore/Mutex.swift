#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `pthread_mutex`. Used instead of `Synchronization.Mutex` because that one is
/// built on raw futexes on Linux, which ThreadSanitizer cannot see, so every access through it is
/// reported as a race; a pthread mutex keeps `swift test --sanitize=thread` meaningful.
///
/// The value lives in its own allocation, reached through a pointer, not in a stored `var`: an
/// `inout` access to a class's stored property is checked at run time for exclusivity (a
/// thread-local access set, searched on every access), which the lock already guarantees. Hot
/// paths take a dozen locks per request, so the check cost a gRPC call about 3,000 instructions.
public final class Mutex<Value>: @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<Value>
    @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates a lock around `value`.
    public init(_ value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&storage.pointee)
    }

    /// Runs `body` with exclusive access when the lock is free now; nil, without running it, when
    /// another thread holds it. For a thread that must not wait (an event loop answering a read
    /// inline hands the request on instead).
    @inlinable
    public func withLockIfAvailable<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R? {
        guard pthread_mutex_trylock(lock) == 0 else { return nil }
        defer { pthread_mutex_unlock(lock) }
        return try body(&storage.pointee)
    }
}

/// A closure wrapped in a struct, for keeping callbacks in a `Mutex`.
///
/// Storing a bare function type (or an optional one) as a `Mutex`'s value is a trap: `withLock`
/// passes the value `inout` across the generic boundary, so every call re-abstracts the closure
/// on the way in and again on the way back, wrapping it in two more thunks each time. The chain
/// grows with every read (it slowed each function invocation and eventually overflowed the
/// stack). A struct field keeps one representation, so `Mutex<Callback<F>?>` does not grow.
public struct Callback<F: Sendable>: Sendable {
    /// The closure.
    public let call: F

    /// Wraps `call`.
    public init(_ call: F) { self.call = call }
}
