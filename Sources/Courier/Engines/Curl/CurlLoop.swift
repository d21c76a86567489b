import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One thread per curl-engine `Network`, driving libcurl's multi interface; and, without a thread
/// of its own, the loop a blocking caller drives on its own thread (``CurlCallerDriver``).
///
/// Every libcurl call on the multi handle and its easy handles happens on the thread that drives
/// the loop: its own thread, or the one blocking caller that holds it (libcurl allows one thread
/// per handle at a time). Other threads hand work over through the inbox —
/// start this task, cancel that one, unpause a third, stop — and wake the thread with
/// `curl_multi_wakeup` if it waits in `curl_multi_poll` (see `Inbox.sleeping`), so `resume()`,
/// `cancel()` and `resumeReceiving()` return at once, whatever the transfer is doing.
///
/// Transport events (head, body bytes, completion) are delivered right here, one at a time per
/// task, with no hop to another queue: that hop would cost more than the small request it serves.
/// Easy handles are reused (reset between transfers) where libcurl allows it
/// (``CurlFeatures/reusesEasyHandles``), and the connections they open stay in the multi handle's
/// cache either way, so consecutive requests to a server share a connection.
final class CurlLoop: @unchecked Sendable {
    // @unchecked: `running`, `idle`, `deliveries` and `pollWait` are touched by the driving
    // thread only (the loop thread, or the one caller that holds a caller loop); the inbox is
    // behind its lock, and every curl_multi_wakeup is counted under it, so `close()` never frees
    // `multi` under one.
    //
    // The driving thread's state is `@exclusivity(unchecked)`: one thread touches it, and no
    // access to it spans a call back into the loop, so Swift's run-time check of overlapping
    // access (about 80 instructions each, five times a transfer) could never fail.

    private struct Inbox {
        var starts: [CurlTask] = []
        var cancels: [CurlTask] = []
        /// Tasks paused by a refused chunk whose transfer has room again.
        var unpauses: [CurlTask] = []
        var stopping = false
        /// The multi handle is freed (or about to be): nothing more is queued or woken.
        var closed = false
        /// Posters between queueing their work and waking the loop: ``close()`` waits for them
        /// before it frees the multi handle their wakeup goes to.
        var waking = 0
        /// Something was posted since the driving thread last took its inbox: it must take it
        /// before it may wait in `curl_multi_poll`.
        var posted = false
        /// The driving thread is in `curl_multi_poll`, or about to be, with nothing queued: the
        /// next poster wakes it. While it works, posters only queue: it looks at its inbox
        /// before it waits, so a `curl_multi_wakeup` then (a write to libcurl's wakeup pipe,
        /// drained by the next poll) would be two system calls for nothing.
        var sleeping = false
    }

    private let multi: OpaquePointer
    /// Whether finished easy handles are kept for the next transfer (libcurl 8.1.0+).
    private let reusesEasyHandles: Bool
    /// The multi option libcurl refused, if any: every transfer then fails with it, rather than
    /// run without the limit it asked for.
    private let refusedMultiOption: CurlTask.ConfigurationFailure?
    private let inbox = Locked(Inbox())
    /// Tasks whose easy handle is in the multi handle, by easy handle.
    @exclusivity(unchecked) private var running: [OpaquePointer: CurlTask] = [:]
    /// Easy handles of finished transfers, kept for reuse (always empty where libcurl cannot reuse them).
    @exclusivity(unchecked) private var idle: [OpaquePointer] = []
    private static let idleLimit = 64
    /// Completions of transfers that ended together, queued together (see ``DispatchBatch``).
    private let deliveries = DispatchBatch()
    /// The longest the next `curl_multi_poll` may wait (see ``CurlPollWait``).
    @exclusivity(unchecked) private var pollWait = CurlPollWait()

    /// The thread's name, for debuggers and profiles.
    static let threadName = "courier.curl-loop"

    /// Marks the loop threads, where a blocking call could never finish: a thread-specific value,
    /// which every blocking call reads (cheaper than a thread dictionary).
    private static let loopThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Starts the loop thread. `maximumConnectionsPerHost` is the configuration's limit;
    /// `connectionCacheSize` how many open connections the multi handle keeps (see
    /// ``connectionCacheSize(forConcurrentRequests:)``); `features` the loaded libcurl's.
    init(maximumConnectionsPerHost: Int, connectionCacheSize: Int = 0, features: CurlFeatures, startsThread: Bool = true) {
        multi = ccurl_multi_init()
        reusesEasyHandles = features.reusesEasyHandles
        var refused: CurlTask.ConfigurationFailure?
        if connectionCacheSize > 0 {
            let code = ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAXCONNECTS), connectionCacheSize)
            if code != 0 {
                refused = CurlTask.ConfigurationFailure(code: Int32(CCURLE_UNKNOWN_OPTION),
                                                        detail: "curl_multi_setopt failed with CURLMcode \(code)",
                                                        option: "CURLMOPT_MAXCONNECTS", libcurlVersion: CurlFeatures.loaded?.version)
            }
        }
        if maximumConnectionsPerHost > 0, refused == nil {
            // Kept to `Int32.max`, as the cache size above: any `Int` may come from the configuration.
            let code = ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), min(maximumConnectionsPerHost, Int(Int32.max)))
            if code != 0 {
                // A CURLMcode, not a CURLcode: reported as libcurl's "unknown option" with the real code in the text.
                refused = CurlTask.ConfigurationFailure(code: Int32(CCURLE_UNKNOWN_OPTION),
                                                        detail: "curl_multi_setopt failed with CURLMcode \(code)",
                                                        option: "CURLMOPT_MAX_HOST_CONNECTIONS", libcurlVersion: CurlFeatures.loaded?.version)
            }
        }
        refusedMultiOption = refused
        guard startsThread else { return }
        let key = Self.loopThreadKey
        let thread = Thread { [self] in
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
            run()
        }
        thread.name = Self.threadName
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// The connections a `Network` allowing `concurrentRequests` at once keeps open: four for
    /// each, as libcurl's default, but at least 64, and fixed. libcurl's default is four times the
    /// transfers in its multi handle *at the moment* one ends: between requests that is a few,
    /// and each end then closed an idle connection (measured: 32 HTTP/1.1 requests in flight
    /// went over 36 to 56 connections in 5,000 requests, 8 in flight over 34).
    ///
    /// `concurrentRequests` is whatever the caller gave `Network.init`: any `Int`. The product is
    /// kept to `Int32.max` (plain `4 * Int.min` trapped, and libcurl 8 refuses a count beyond
    /// `UINT_MAX`, which would fail every request).
    static func connectionCacheSize(forConcurrentRequests concurrentRequests: Int) -> Int {
        max(64, 4 * min(max(1, concurrentRequests), Int(Int32.max) / 4))
    }

    /// Whether the calling thread is a curl loop thread, or a blocking caller's while it drives its loop.
    static var isCurrentThreadALoop: Bool {
        pthread_getspecific(loopThreadKey) != nil
    }

    func start(_ task: CurlTask) {
        let queued = post { $0.starts.append(task) }
        // A caller loop already closed: its call is over, and so is this task's transfer.
        if !queued { task.markCancelled() }
    }

    func cancel(_ task: CurlTask) {
        if !post({ $0.cancels.append(task) }) { task.markCancelled() }
    }

    /// Resumes a transfer its write callback paused (see ``CurlTask/write(_:)``).
    func unpause(_ task: CurlTask) {
        post { $0.unpauses.append(task) }
    }

    /// Ends the loop once its Network is gone and every transfer has ended: cancels whatever is
    /// still running, frees the handles and lets the thread exit.
    func stop() {
        post { $0.stopping = true }
    }

    /// Wakes the thread driving the loop, so that it looks at its inbox and its caller's result again.
    func wake() {
        post { _ in }
    }

    /// Queues work for the driving thread and wakes it if it waits (see `Inbox.sleeping`),
    /// unless the loop is closed. The wakeup is made outside the lock (the woken thread takes
    /// that lock first thing), and counted, so that ``close()`` never frees the multi handle under it.
    @discardableResult
    private func post(_ change: (inout Inbox) -> Void) -> Bool {
        let wakes = inbox.withLock { inbox -> Bool? in
            guard !inbox.closed else { return nil }
            change(&inbox)
            inbox.posted = true
            guard inbox.sleeping else { return false }
            inbox.sleeping = false   // one wakeup is enough, however many post before the thread runs
            inbox.waking += 1
            return true
        }
        guard let wakes else { return false }
        if wakes {
            _ = ccurl_multi_wakeup(multi)
            inbox.withLock { $0.waking -= 1 }
        }
        return true
    }

    /// Whether the driving thread may wait in `curl_multi_poll`: not if anything was posted since
    /// it took its inbox. If it may, posters from now on wake it.
    private func maySleep() -> Bool {
        inbox.withLock { inbox in
            if inbox.posted { return false }
            inbox.sleeping = true
            return true
        }
    }

    // MARK: - The driving thread

    private func run() {
        while turn() {
            guard maySleep() else { continue }
            var ready: Int32 = 0
            // libcurl shortens the wait to its own next timeout; a wakeup ends it at once.
            _ = ccurl_multi_poll(multi, pollWait.milliseconds, &ready)
        }
        close()
    }

    /// One turn of the loop, on the driving thread: the inbox, libcurl's work, finished transfers.
    /// `false` once the loop is stopping.
    private func turn() -> Bool {
        let work = takeInbox()
        for task in work.starts { add(task) }
        for task in work.cancels { remove(task) }
        for task in work.unpauses { unpause(running: task) }
        if work.stopping { return false }
        var active: Int32 = 0
        _ = ccurl_multi_perform(multi, &active)
        let finished = collectFinished()
        let changed = !work.starts.isEmpty || !work.cancels.isEmpty || !work.unpauses.isEmpty || finished
        pollWait.turnEnded(didWork: changed, transfers: running.count)
        return true
    }

    /// The work queued so far, taken out of the inbox (its flags stay).
    private func takeInbox() -> Inbox {
        inbox.withLock { inbox -> Inbox in
            defer {
                inbox.starts.removeAll(); inbox.cancels.removeAll(); inbox.unpauses.removeAll()
                inbox.posted = false
                inbox.sleeping = false
            }
            return inbox
        }
    }

    /// A caller loop: runs it on the calling thread until `isDone()` or `deadline`.
    ///
    /// Meanwhile the thread counts as a loop thread (``isCurrentThreadALoop``): code that runs
    /// here (an observer, `validate`, `output`) and makes a blocking call gets
    /// ``NetworkError/wouldDeadlock(_:)``, as on the loop thread, instead of waiting on a slot
    /// or a loop that only this thread could free.
    func drive(until deadline: DispatchTime, isDone: () -> Bool) {
        let key = Self.loopThreadKey
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, outer) }
        while turn() {
            if isDone() { return }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline.uptimeNanoseconds else { return }
            let milliseconds = (deadline.uptimeNanoseconds - now) / 1_000_000
            guard maySleep() else { continue }
            var ready: Int32 = 0
            _ = ccurl_multi_poll(multi, Int32(min(UInt64(pollWait.milliseconds), max(1, milliseconds))), &ready)
        }
    }

    /// A caller loop whose call is over: whatever is left of it (a task its deadline cancelled, a
    /// start that lost a race with the end) is removed, so that nothing of it runs on the next call.
    func abandonAll() {
        let work = takeInbox()
        for task in work.starts + work.cancels { remove(task) }
        for task in Array(running.values) { remove(task) }
    }

    /// Frees everything, on the driving thread (or on any thread once nothing drives the loop):
    /// running transfers are cancelled, idle handles and the multi handle freed.
    func close() {
        inbox.withLock { $0.closed = true }
        // A poster that queued before the close may still be about to wake the handle: a few
        // instructions away, so a yield or two at most, and only when a loop closes.
        while inbox.withLock({ $0.waking }) > 0 { sched_yield() }
        for task in Array(running.values) { remove(task) }
        for easy in idle { ccurl_easy_cleanup(easy) }
        idle.removeAll()
        _ = ccurl_multi_cleanup(multi)
    }

    private func add(_ task: CurlTask) {
        guard !task.isFinished else { return }   // cancelled before it was started
        begin(task)
    }

    /// Starts a transfer of `task`: its request, or `next`, a redirect it follows.
    private func begin(_ task: CurlTask, next: WireRequest? = nil) {
        if let refusedMultiOption {
            task.complete(refusedMultiOption)
            return
        }
        let easy: OpaquePointer
        if let reused = idle.popLast() {
            ccurl_easy_reset(reused)
            easy = reused
        } else {
            guard let made = ccurl_easy_init() else {
                task.complete(code: Int32(CCURLE_OUT_OF_MEMORY), detail: "libcurl could not make an easy handle")
                return
            }
            easy = made
        }
        if let failure = task.configure(easy, for: next) {
            recycle(easy)
            task.complete(failure)
            return
        }
        let added = ccurl_multi_add_handle(multi, easy)
        guard added == 0 else {
            // Never left waiting for a completion that cannot come.
            ccurl_easy_cleanup(easy)
            task.complete(code: Int32(CCURLE_OUT_OF_MEMORY), detail: "curl_multi_add_handle failed with CURLMcode \(added)")
            return
        }
        running[easy] = task
    }

    /// A cancel: the handle leaves the multi handle at once, so not one more byte is read for it,
    /// and its connection (half-read) is closed rather than reused.
    private func remove(_ task: CurlTask) {
        guard let easy = task.easy, running.removeValue(forKey: easy) != nil else {
            task.markCancelled()
            return
        }
        _ = ccurl_multi_remove_handle(multi, easy)
        task.markCancelled()
        // A handle removed mid-transfer is not reused: its connection state is unknown.
        ccurl_easy_cleanup(easy)
    }

    /// Lets a paused transfer go on, unless it has ended (cancelled, or its handle reused). libcurl
    /// delivers the chunk it kept within this call, and may be paused again by it.
    private func unpause(running task: CurlTask) {
        guard let easy = task.easy, running[easy] === task else { return }
        _ = ccurl_easy_pause(easy, Int32(CCURLPAUSE_CONT))
    }

    /// Hands every transfer libcurl has finished to its task. Returns whether there was any.
    private func collectFinished() -> Bool {
        var found = false
        var easy: OpaquePointer?
        var result: Int32 = 0
        var queued: Int32 = 0
        while ccurl_multi_next_done(multi, &easy, &result, &queued) != 0 {
            guard let easy, let task = running.removeValue(forKey: easy) else { continue }
            found = true
            _ = ccurl_multi_remove_handle(multi, easy)
            // More ended in this turn: this completion waits for theirs, and all go to their
            // queues together, just before the last one's (see DispatchBatch).
            let next: WireRequest?
            if queued > 0 {
                next = deliveries.holding { task.curlDone(code: result) }
            } else {
                deliveries.flush()
                next = task.curlDone(code: result)
            }
            recycle(easy)
            if let next {
                // A redirect Courier follows within the same task: the next request, on the same
                // handle where it can be reused.
                begin(task, next: next)
            }
        }
        // Nothing stays held if the last message was not one of this loop's transfers.
        deliveries.flush()
        return found
    }

    private func recycle(_ easy: OpaquePointer) {
        if reusesEasyHandles, idle.count < Self.idleLimit { idle.append(easy) } else { ccurl_easy_cleanup(easy) }
    }
}
