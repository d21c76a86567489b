/// How long a ``CurlLoop``'s driving thread may wait in `curl_multi_poll` for a socket, a libcurl
/// timer or a wakeup: what libcurl asks for, but no longer than this.
///
/// Why not always a second: libcurl before 8.14 (measured here: 7.74 and 7.88; never on 8.14)
/// can leave transfers in its multi handle with nothing to wake them, no socket to watch and no
/// timer, once other transfers have ended or started; the next `curl_multi_perform` gets them
/// going. With a one-second wait that was a one-second stall: blocking calls, 32 in flight,
/// 5,000 requests a run, 1 to 6 runs in 100 took over a second instead of 0.2 s. So after a turn
/// that started, ended or changed a transfer, the loop looks again within 10 ms, then waits
/// twice as long after each turn that did nothing, up to a second. An idle loop with transfers
/// in flight (a slow server, a quiet event stream) so wakes a few times and settles at once a
/// second, as before; a loop with no transfers waits a second (a wakeup ends any wait).
struct CurlPollWait {
    static let shortest: Int32 = 10
    static let longest: Int32 = 1000

    /// The wait for the next poll, in milliseconds.
    private(set) var milliseconds: Int32 = longest

    /// After a turn of the loop: whether it started, ended, cancelled or unpaused a transfer, and
    /// how many transfers are in the multi handle now.
    mutating func turnEnded(didWork: Bool, transfers: Int) {
        if transfers == 0 {
            milliseconds = Self.longest
        } else if didWork {
            milliseconds = Self.shortest
        } else {
            milliseconds = min(Self.longest, milliseconds * 2)
        }
    }
}
