import Courier
import Foundation

/// Headers and credentials, shared by both kinds of plan.
struct RequestHeaders: Sendable, Equatable {
    /// Names are unique regardless of case; the last `-H` for a name wins.
    private(set) var fields: [String: String] = [:]
    var authentication: Authentication?

    init(_ options: Options) throws(Failure) {
        for line in options.headers {
            guard let colon = line.firstIndex(of: ":") else {
                throw .usage("-H needs 'Name: value', not '\(line)'")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else { throw .usage("-H '\(line)' has no valid header name") }
            set(name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        switch (options.user, options.bearer) {
        case (nil, nil):
            authentication = nil
        case let (user?, nil):
            guard let colon = user.firstIndex(of: ":") else { throw .usage("-u needs user:password, not '\(user)'") }
            authentication = .basic(username: String(user[..<colon]), password: String(user[user.index(after: colon)...]))
        case let (nil, token?):
            authentication = .bearer(token)
        case (_?, _?):
            throw .usage("give either -u or --bearer, not both")
        }
    }

    /// Whether a header of that name was given (in any case).
    func contains(_ name: String) -> Bool {
        fields.keys.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// Sets a header unless one of that name was given on the command line.
    mutating func setDefault(_ name: String, _ value: String) {
        if !contains(name) { fields[name] = value }
    }

    private mutating func set(_ name: String, _ value: String) {
        for key in fields.keys where key.caseInsensitiveCompare(name) == .orderedSame {
            fields[key] = nil
        }
        fields[name] = value
    }
}
