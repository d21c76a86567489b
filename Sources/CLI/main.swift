import Foundation

// Everything lives in `Tool`, so the test target can exercise it without running this file.
exit(Tool.run(Array(CommandLine.arguments.dropFirst())).rawValue)
