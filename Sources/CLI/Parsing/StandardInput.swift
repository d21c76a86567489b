import Foundation

/// The process's stdin, read at most once: by `-K -` (whose bytes are kept, since the line may
/// be parsed twice, with and without the `.curlrc`) or by a body option (`-d @-`, `-T -`), which
/// then finds nothing if `-K -` took it, as in curl.
final class StandardInput {
    private let read: () -> Data
    private var configuration: Data?

    init(read: @escaping () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }) {
        self.read = read
    }

    /// For `-K -`: the same bytes however often it is asked.
    func forConfiguration() -> Data {
        if let configuration { return configuration }
        let data = read()
        configuration = data
        return data
    }

    /// For a body: all of stdin, or nothing if `-K -` took it.
    func forBody() -> Data {
        configuration == nil ? read() : Data()
    }
}
