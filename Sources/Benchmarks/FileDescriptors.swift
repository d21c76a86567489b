import Foundation

/// The process's file descriptors: its limit, raised for thousands of connections, and the
/// sockets it holds open (how many connections a client really opened).
enum FileDescriptors {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (an unprivileged process may) and returns
    /// the new soft limit. 10,000 requests in flight need 10,000 connections, each a descriptor;
    /// the usual soft limit is 1,024.
    @discardableResult
    static func raiseLimitToHard() -> Int {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)  // RLIM_INFINITY is all ones
    }

    /// The sockets this process has open (`/proc/self/fd` entries that are sockets), or `nil` off
    /// Linux. After a run, that is the connections its client kept plus a few of its own (the
    /// curl loops' wake-up socket pairs).
    static func openSockets() -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        var sockets = 0
        var buffer = [CChar](repeating: 0, count: 64)
        for entry in entries {
            let length = readlink("/proc/self/fd/" + entry, &buffer, buffer.count - 1)
            guard length > 0 else { continue }
            if String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("socket:") {
                sockets += 1
            }
        }
        return sockets
    }
}
