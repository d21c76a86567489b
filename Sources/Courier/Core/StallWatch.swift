import Foundation

/// The idle and connect timeouts of one attempt's transport task, as its ``Transfer`` watches
/// them: pure bookkeeping (times in `DispatchTime` uptime nanoseconds), kept under the
/// transfer's lock and checked by one timer at a time.
///
/// Why Courier watches them itself: FoundationNetworking takes whole seconds only, libcurl's
/// stall limit too (and it measures an average speed, not the time since the last byte), and
/// URLSession has no connect timeout at all. One watch gives both engines the same limits, to the
/// fraction of a second; each engine keeps a backstop a second later (``TaskOptions/backstop(for:)``).
///
/// The timer is not re-armed for every byte: each check that finds the task alive arms the next
/// one for when the limit could pass at the earliest, from the last activity it saw.
struct StallWatch {
    /// The task watched (its identity), so that a timer armed for an earlier task does nothing.
    let task: ObjectIdentifier?
    private let idle: UInt64?
    /// Only where the transport does not keep the connect timeout itself (URLSession, the
    /// stub): then the connect timeout lasts until the task's first sign of life.
    private let connect: UInt64?
    private let startedAt: UInt64
    private var lastActivity: UInt64
    private var heardFrom = false
    /// Whether the transfer holds a chunk itself (a stream with no room): the wait is Courier's,
    /// not the server's, and does not count.
    var isHolding = false

    /// A watch that watches nothing.
    init() {
        task = nil
        idle = nil
        connect = nil
        startedAt = 0
        lastActivity = 0
    }

    init(task: ObjectIdentifier, options: TaskOptions, transportKeepsConnect: Bool, now: UInt64) {
        self.task = task
        idle = Self.nanoseconds(options.idleTimeout)
        connect = transportKeepsConnect ? nil : Self.nanoseconds(options.connectTimeout)
        startedAt = now
        lastActivity = now
    }

    /// Whether there is anything to watch.
    var isActive: Bool { idle != nil || connect != nil }

    /// A byte arrived or left (a head, a chunk, upload progress, a redirect).
    mutating func heard(at now: UInt64) {
        lastActivity = now
        heardFrom = true
    }

    /// What a check at `now` finds.
    enum Verdict: Equatable {
        /// Alive: look again at this instant.
        case checkAgain(at: UInt64)
        case idlePassed
        case connectPassed
    }

    func verdict(at now: UInt64) -> Verdict {
        if let connect, !heardFrom, !isHolding, now &- startedAt >= connect { return .connectPassed }
        if let idle, !isHolding, now &- lastActivity >= idle { return .idlePassed }
        var next = UInt64.max
        if let connect, !heardFrom { next = min(next, Self.sum(startedAt, connect)) }
        // A held chunk counts as activity until the transfer lets it go.
        if let idle { next = min(next, Self.sum(isHolding ? now : lastActivity, idle)) }
        return .checkAgain(at: max(next, now))
    }

    /// When the first check is due, or `nil` when nothing is watched.
    var firstCheck: UInt64? {
        guard isActive else { return nil }
        if case let .checkAgain(at) = verdict(at: startedAt) { return at }
        return startedAt
    }

    /// `a + b`, or the latest instant there is.
    private static func sum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : total
    }

    /// Seconds as nanoseconds, `nil` for no limit (or one so long, about 290 years, it never passes).
    private static func nanoseconds(_ seconds: TimeInterval?) -> UInt64? {
        guard let seconds, seconds.isFinite, seconds > 0, seconds < 9e9 else { return nil }
        return max(1, UInt64((seconds * 1e9).rounded(.up)))
    }
}
