import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `SIGINT` handler behind ``CancellationToken/interrupt``.
///
/// A signal handler may do almost nothing (no lock, no allocation, no Swift runtime call), so it
/// writes one byte to a pipe, and a thread of Courier's, parked in `read`, cancels the token in
/// ordinary code. That works whichever thread the kernel interrupts: a Dispatch signal source did
/// not (on Linux it reads a signalfd, which misses a signal the kernel gave to another thread while
/// the disposition is "ignore").
enum InterruptSignal {
    /// Made, and the handler set, on first use.
    static let token: CancellationToken = {
        let token = CancellationToken()
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return token }   // no pipe, no handler: Ctrl-C acts as before
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        interruptPipe = fds[1]
        let readEnd = fds[0]
        let waiter = Thread {
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) < 0, errno == EINTR {}
            // The first interrupt: from now on Ctrl-C does what it did before.
            signal(SIGINT, SIG_DFL)
            token.cancel()
        }
        waiter.name = "courier.interrupt"
        waiter.start()
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = interruptHandler
        #else
        action.__sigaction_u.__sa_handler = interruptHandler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        return token
    }()
}

/// The write end of the pipe: set once, before the handler that reads it is installed.
nonisolated(unsafe) private var interruptPipe: Int32 = -1

/// Async-signal-safe: one `write(2)`, `errno` kept as the interrupted code had it.
private let interruptHandler: @convention(c) (Int32) -> Void = { _ in
    let saved = errno
    var byte: UInt8 = 1
    _ = write(interruptPipe, &byte, 1)
    errno = saved
}
