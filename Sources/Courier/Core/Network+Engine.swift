import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// What carries a ``Network``'s requests. Every behaviour Courier documents — exactly one
    /// completion, non-blocking cancel, queueing, deadlines, retries, redirects, resume,
    /// progress — is the same on both; see Docs/Engines.md for what differs underneath.
    public enum Engine: String, Sendable, Hashable, CaseIterable {
        /// libcurl on Linux, URLSession on Apple platforms. The environment variable
        /// `COURIER_ENGINE=curl|urlsession` overrides this choice (and only this one).
        case automatic
        /// Foundation's URLSession (FoundationNetworking on Linux).
        case urlSession
        /// libcurl's multi interface, driven by one thread per `Network`: several times cheaper per
        /// request than URLSession on Linux, cancels that stop the bytes at once, and TLS control
        /// (``TLSOptions``). Loaded at run time: where libcurl cannot be loaded, a `Network` asked
        /// for it uses URLSession instead (``Network/engine`` tells, ``curlUnavailableReason`` says why).
        case curl

        /// The version line of the libcurl the curl engine uses, or `nil` if it cannot be loaded.
        public static var curlVersion: String? { CurlLibrary.version }

        /// Why the curl engine cannot be used here, or `nil` if it can.
        public static var curlUnavailableReason: String? { CurlLibrary.unavailableReason }

        /// The engine a `Network` created with this choice uses here (its ``Network/engine``):
        /// `COURIER_ENGINE` and the platform decide ``automatic``, and ``curl`` is
        /// ``urlSession`` where libcurl cannot be loaded. Never ``automatic``.
        public var resolved: Engine { Self.resolve(self) }

        /// The engine a `Network` asked for `requested` gets: never ``automatic``.
        static func resolve(_ requested: Engine, environment: [String: String] = ProcessInfo.processInfo.environment) -> Engine {
            var wanted = requested
            if wanted == .automatic {
                switch environment["COURIER_ENGINE"]?.lowercased() {
                case "curl"?: wanted = .curl
                case "urlsession"?: wanted = .urlSession
                default:
                    #if os(Linux)
                    wanted = .curl
                    #else
                    wanted = .urlSession
                    #endif
                }
            }
            if wanted == .curl, CurlLibrary.unavailableReason != nil { return .urlSession }
            return wanted
        }
    }
}
