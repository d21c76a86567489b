/// curl's `--proto` list: which schemes a transfer may use.
///
/// The value is read as curl reads it: comma-separated words, each a protocol name or `all`,
/// with modifiers before it: `+` allows it (the default), `-` denies it, `=` allows it alone.
/// Each `--proto` starts from every protocol curl has, then applies its words in order, so
/// `--proto -all,+https` allows https only. An unknown name is warned about and skipped (with
/// `=`, it leaves nothing allowed); a modifier other than these is a usage error.
struct ProtocolList: Sendable, Equatable {
    /// curl 7.88.1's protocol names (its built-in set, as `curl --version` lists them).
    static let known: Set<String> = ["dict", "file", "ftp", "ftps", "gopher", "gophers", "http", "https", "imap", "imaps",
                                     "ldap", "ldaps", "mqtt", "pop3", "pop3s", "rtmp", "rtmpe", "rtmps", "rtmpt", "rtmpte",
                                     "rtmpts", "rtsp", "scp", "sftp", "smb", "smbs", "smtp", "smtps", "telnet", "tftp", "ws", "wss"]

    /// The allowed ones, lower case.
    private(set) var allowed: Set<String> = known

    /// Whether a URL with `scheme` may be used.
    func allows(_ scheme: String) -> Bool {
        allowed.contains(scheme.lowercased())
    }

    /// Reads one `--proto` value over every protocol; returns curl's warnings for unknown names.
    /// - Throws: A usage error for a word with a modifier curl does not know.
    mutating func apply(_ value: String) throws(Failure) -> [String] {
        allowed = Self.known
        var warnings: [String] = []
        for word in value.split(separator: ",", omittingEmptySubsequences: true) {
            enum Action { case allow, deny, only }
            var action = Action.allow
            var name = Substring(word.trimmingCharacters(in: .whitespaces))
            while let first = name.first, !(first.isASCII && (first.isLetter || first.isNumber)) {
                switch first {
                case "=": action = .only
                case "-": action = .deny
                case "+": action = .allow
                default: throw .usage("--proto: '\(first)' in '\(word)' is no modifier (+, - or =)")
                }
                name = name.dropFirst()
            }
            let lowered = name.lowercased()
            if lowered == "all" {
                allowed = action == .deny ? [] : Self.known
            } else if Self.known.contains(lowered) {
                switch action {
                case .allow: allowed.insert(lowered)
                case .deny: allowed.remove(lowered)
                case .only: allowed = [lowered]
                }
            } else {
                if action == .only { allowed = [] }
                warnings.append("unrecognized protocol '\(name)'")
            }
        }
        return warnings
    }
}
