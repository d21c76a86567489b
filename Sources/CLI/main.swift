import Foundation

// Before anything starts a thread: Ctrl-C and SIGTERM are taken by `Interrupts` alone.
Interrupts.start()
// A reader of stdout that goes away (`courier URL | head -c 10`) makes the next write fail with
// EPIPE, reported as a write error (exit 23, as curl does), rather than kill the process.
signal(SIGPIPE, SIG_IGN)
// Everything lives in `Tool`, so the test target can exercise it without running this file.
exit(Tool.runWithProcessArguments().rawValue)
