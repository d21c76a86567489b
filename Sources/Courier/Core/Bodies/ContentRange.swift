import Foundation

/// A parsed `Content-Range: bytes START-END/TOTAL` header (`TOTAL` may be `*`).
struct ContentRange: Equatable {
    let start: Int64
    let end: Int64
    let total: Int64?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0].trimmingCharacters(in: .whitespaces)),
              let end = Int64(bounds[1].trimmingCharacters(in: .whitespaces)), start <= end else { return nil }
        self.start = start
        self.end = end
        self.total = halves[1] == "*" ? nil : Int64(halves[1].trimmingCharacters(in: .whitespaces))
    }
}
