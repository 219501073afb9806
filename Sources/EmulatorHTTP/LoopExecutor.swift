import Dispatch
import EmulatorCore

/// Runs Swift concurrency jobs on an event-loop thread, so a read-only HTTP/1.1 request (GET and
/// HEAD) is answered on the loop that parsed it, with no hop to the cooperative pool and back.
/// Tasks created with this executor as their preference (`Task(executorPreference:)`) run their
/// nonisolated code here; a job that suspends (a timer, a continuation resumed by another thread)
/// is enqueued again when it resumes, from whichever thread resumes it.
///
/// The queue is behind a `Mutex`; jobs run only on the loop thread (`runJobs`). Enqueueing from
/// another thread onto an empty queue calls `wake`, which writes the loop's eventfd; the loop
/// enqueueing onto its own queue does not (it runs the queue before it next waits). Once the loop
/// has stopped, jobs still arriving (a task that was suspended then) run on a Dispatch queue, so
/// no task is left hanging.
final class LoopExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = Mutex<(jobs: [UnownedJob], stopped: Bool)>(([], false))
    /// Wakes the loop thread (its eventfd); called with the queue unlocked.
    private let wake: @Sendable () -> Void
    /// True on the loop thread while it runs (set by `EventLoop.run`).
    private let onLoopThread: @Sendable () -> Bool

    /// Creates the executor of one loop.
    init(wake: @escaping @Sendable () -> Void, onLoopThread: @escaping @Sendable () -> Bool) {
        self.wake = wake
        self.onLoopThread = onLoopThread
    }

    /// Queues a job for the loop thread.
    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let state = queue.withLock { q -> (wasEmpty: Bool, stopped: Bool) in
            if q.stopped { return (false, true) }
            let e = q.jobs.isEmpty
            q.jobs.append(unowned)
            return (e, false)
        }
        if state.stopped {
            let me = asUnownedTaskExecutor()
            DispatchQueue.global().async { unowned.runSynchronously(on: me) }
        } else if state.wasEmpty && !onLoopThread() {
            wake()
        }
    }

    /// Whether jobs are waiting (the loop then does not block in `epoll_wait`).
    var hasJobs: Bool { queue.withLock { !$0.jobs.isEmpty } }

    /// Runs the jobs queued now (not the ones they queue in turn: the loop gets to its sockets
    /// between rounds). Loop thread only.
    func runJobs() {
        let jobs = queue.withLock { q -> [UnownedJob] in
            defer { q.jobs.removeAll(keepingCapacity: true) }
            return q.jobs
        }
        let me = asUnownedTaskExecutor()
        for job in jobs { job.runSynchronously(on: me) }
    }

    /// The loop is ending: jobs queued now and later run on a Dispatch queue instead.
    func stop() {
        let left = queue.withLock { q -> [UnownedJob] in
            q.stopped = true
            defer { q.jobs = [] }
            return q.jobs
        }
        guard !left.isEmpty else { return }
        let me = asUnownedTaskExecutor()
        DispatchQueue.global().async { for job in left { job.runSynchronously(on: me) } }
    }
}
