import Foundation

// Before anything starts a thread: Ctrl-C and SIGTERM are taken by `Interrupts` alone.
Interrupts.start()
// Everything lives in `Tool`, so the test target can exercise it without running this file.
exit(Tool.runWithProcessArguments().rawValue)
