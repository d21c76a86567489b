import Foundation

/// Clocks and resource usage of this process.
///
/// Every case runs in its own process, so `getrusage(RUSAGE_SELF)` gives honest CPU seconds
/// (user + system, all threads: URLSession's and libcurl's included) and an honest peak RSS.
enum Measurement {
    /// Monotonic nanoseconds (`CLOCK_MONOTONIC`): never jumps with the wall clock.
    /// The calling thread's CPU time, in nanoseconds: what a call cost itself, apart from the
    /// time the scheduler gave other threads meanwhile.
    static func threadCPUNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// User + system CPU seconds used by the whole process so far.
    static func cpuSeconds() -> Double {
        let usage = resourceUsage()
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The process's peak resident set size in bytes (Linux reports `ru_maxrss` in KiB).
    static func peakRSSBytes() -> Int {
        Int(resourceUsage().ru_maxrss) * 1024
    }

    /// Context switches of the whole process so far (voluntary + involuntary). Each hand-off
    /// between threads that finds the next thread asleep costs at least one.
    static func contextSwitches() -> Int {
        let usage = resourceUsage()
        return Int(usage.ru_nvcsw) + Int(usage.ru_nivcsw)
    }

    /// What the calling thread has waited for so far: voluntary context switches (it waited: a
    /// lock, a system call), involuntary ones (the scheduler gave its core to another thread),
    /// and minor page faults (first touches of code or data pages, each a trip into the kernel).
    /// Linux only (zeros elsewhere): what tells a slow call that waited from one that was
    /// preempted or ran cold.
    static func threadStalls() -> ThreadStalls {
        #if os(Linux)
        let usage = resourceUsage(who: 1)   // RUSAGE_THREAD, which Glibc does not import
        return ThreadStalls(waits: Int(usage.ru_nvcsw), preemptions: Int(usage.ru_nivcsw), pageFaults: Int(usage.ru_minflt))
        #else
        return ThreadStalls()
        #endif
    }

    private static func resourceUsage() -> rusage {
        #if os(Linux)
        // Glibc imports RUSAGE_SELF as an enum case while getrusage takes its raw Int32.
        return resourceUsage(who: RUSAGE_SELF.rawValue)
        #else
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return usage
        #endif
    }

    #if os(Linux)
    /// `getrusage` for `who`, given as Glibc's raw value.
    private static func resourceUsage(who: Int32) -> rusage {
        var usage = rusage()
        getrusage(__rusage_who_t(who), &usage)
        return usage
    }
    #endif

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }
}

/// Wall time and CPU time of one timed region.
struct Stopwatch {
    private let startWall = Measurement.now()
    private let startCPU = Measurement.cpuSeconds()
    private let startSwitches = Measurement.contextSwitches()

    /// Seconds of wall time since the stopwatch was made.
    var elapsedSeconds: Double { Double(Measurement.now() - startWall) / 1e9 }

    /// CPU seconds the process used since the stopwatch was made.
    var cpuSeconds: Double { Measurement.cpuSeconds() - startCPU }

    /// Context switches the process made since the stopwatch was made.
    var contextSwitches: Int { Measurement.contextSwitches() - startSwitches }
}

/// Counts from ``Measurement/threadStalls()``; subtract two to get what happened between them.
struct ThreadStalls {
    var waits = 0
    var preemptions = 0
    var pageFaults = 0

    static func - (lhs: ThreadStalls, rhs: ThreadStalls) -> ThreadStalls {
        ThreadStalls(waits: lhs.waits - rhs.waits, preemptions: lhs.preemptions - rhs.preemptions,
                     pageFaults: lhs.pageFaults - rhs.pageFaults)
    }
}
