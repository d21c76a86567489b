import Courier
import Foundation

/// Headers and credentials, shared by both kinds of plan.
///
/// `-H` lines follow curl's three forms: `Name: value` sets a header, `Name:` (nothing but
/// blanks after the colon) removes one courier would send itself, `Name;` sends it empty; a line
/// with neither a colon nor a semicolon is no header, and left out, as libcurl leaves it. Where
/// curl sends every `-H` line, courier sends one value per name: the last.
struct RequestHeaders: Sendable, Equatable {
    /// Names are unique regardless of case; the last `-H` for a name wins.
    private(set) var fields: [String: String] = [:]
    /// The names of ``fields`` in the order curl sends them: the order of the `-H` lines (a name
    /// given again takes the later place), then the ones courier adds (``setDefault(_:_:)``).
    private(set) var order: [String] = []
    /// Names given as `Name:`, lower-cased: headers not to send at all.
    private(set) var removed: Set<String> = []
    var authentication: Authentication?

    init(_ options: Options) throws(Failure) {
        for line in options.headers {
            let colon = line.firstIndex(of: ":")
            let semicolon = line.firstIndex(of: ";")
            if let semicolon, colon.map({ semicolon < $0 }) ?? true {
                // `Name;` (the semicolon last): the header, sent with an empty value. Anything
                // after the semicolon (`Name;  `, `Name;x`) makes libcurl skip the line, kept
                // for future use, and so does courier.
                guard line.index(after: semicolon) == line.endIndex else { continue }
                let name = String(line[..<semicolon]).trimmingCharacters(in: .whitespaces)
                try Self.checkName(name, line)
                set(name, "")
                continue
            }
            // A line with neither is no header: libcurl leaves it out, and so does courier.
            guard let colon else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            try Self.checkName(name, line)
            // Blanks after the value are the line's, sent as typed, as libcurl sends them.
            let value = String(line[line.index(after: colon)...].drop(while: \.isWhitespace))
            if value.allSatisfy(\.isWhitespace) {
                remove(name)
            } else {
                set(name, value)
            }
        }
        switch (options.libcurl.authMethods == nil ? options.user : nil, options.bearer) {
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

    private static func checkName(_ name: String, _ line: String) throws(Failure) {
        guard !name.isEmpty, !name.contains(" ") else { throw .usage("-H '\(line)' has no valid header name") }
    }

    /// Whether a header of that name was given (in any case), to send or to remove.
    func contains(_ name: String) -> Bool {
        isRemoved(name) || fields.keys.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// Whether `-H 'Name:'` asked for that header not to be sent.
    func isRemoved(_ name: String) -> Bool {
        removed.contains(name.lowercased())
    }

    /// The value given for `name`, if any.
    func value(_ name: String) -> String? {
        fields.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Sets a header unless one of that name was given on the command line.
    mutating func setDefault(_ name: String, _ value: String) {
        if !contains(name) {
            fields[name] = value
            order.append(name)
        }
    }

    /// Sets a header, replacing one given on the command line.
    mutating func set(_ name: String, _ value: String) {
        for key in fields.keys where key.caseInsensitiveCompare(name) == .orderedSame {
            fields[key] = nil
        }
        fields[name] = value
        order.removeAll { $0.caseInsensitiveCompare(name) == .orderedSame }
        order.append(name)
    }

    /// `Name:` removes the header courier would send itself (User-Agent, Content-Type, …), not
    /// one given with another `-H`, as in curl.
    private mutating func remove(_ name: String) {
        removed.insert(name.lowercased())
    }
}
