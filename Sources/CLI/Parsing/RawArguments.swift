import Foundation

/// The process's arguments as the kernel gave them: bytes, not yet text.
///
/// Swift's `CommandLine.arguments` has already decoded them, replacing invalid UTF-8 with
/// U+FFFD, so a Latin-1 `café` in a query, a file name or a header would silently become
/// `caf�`. `courier` reads the raw `argv` instead and refuses such an argument with a usage
/// error that says which one it is (by position, and the option before it), without echoing
/// its bytes, which may be a password.
enum RawArguments {
    /// This process's arguments after the program name, from `CommandLine.unsafeArgv`.
    static var ofProcess: [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
        }
    }

    /// Decodes every argument as UTF-8; throws a usage error naming the first that is not.
    static func decode(_ arguments: [[UInt8]]) throws(Failure) -> [String] {
        var decoded: [String] = []
        for (index, bytes) in arguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw .usage("argument \(index + 1)\(context(after: decoded)) is not valid UTF-8; "
                    + "courier takes its arguments as UTF-8 text")
            }
            decoded.append(text)
        }
        return decoded
    }

    /// " (after -o)" when the argument before is an option alone (`-o`, `--output`), whose value
    /// this one then is. Not for `--user=x` or `-ufoo`, which carry their value themselves.
    private static func context(after previous: [String]) -> String {
        guard let option = previous.last, option != "--" else { return "" }
        let standalone = option.hasPrefix("--") ? !option.contains("=") : option.hasPrefix("-") && option.count == 2
        return standalone ? " (after \(option))" : ""
    }
}
