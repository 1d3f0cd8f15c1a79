import Foundation

/// A value guarded by a pthread mutex, with `Synchronization.Mutex`'s `withLock` shape.
///
/// Why not `Mutex`: on Linux its futex lives in the standard library, which ThreadSanitizer does
/// not instrument, so TSan sees no ordering between two `withLock` bodies and reports every access
/// under the lock as a race (docs/reliability.md). TSan intercepts `pthread_mutex_lock`, so with
/// this lock a report under `-sanitize=thread` means a real race.
public final class Locked<Value>: @unchecked Sendable {
    // SAFETY: `value` is read and written only inside `withLock`, between pthread_mutex_lock and
    // pthread_mutex_unlock of `mutex`; values cross into and out of the lock as `sending`, as with
    // `Mutex`, so no non-Sendable state is shared through it.
    // The mutex is laid out first: a zero-sized `Value` (a bare lock) would otherwise share its
    // address with the mutex pointer, and TSan would take the pointer's read for a race with the
    // value's `inout` access.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        value = initialValue
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// A bare lock, for a critical section that guards no value of its own (a stream's writes).
/// Not `Locked<Void>`: TSan takes the `inout` access of a zero-sized value for an access at the
/// object's own address and reports it against the unlocked read of the mutex pointer.
public final class Lock: @unchecked Sendable {
    // SAFETY: the only state is the mutex, which is used only through pthread_mutex_lock/unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    public func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
