import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// What carries a ``Network``'s requests. Every behaviour Courier documents — exactly one
    /// completion, non-blocking cancel, queueing, deadlines, retries, redirects, resume,
    /// progress — is the same on both; see <doc:Engines> for what differs underneath.
    public enum Engine: String, Sendable, Hashable, CaseIterable {
        /// libcurl on Linux, URLSession on Apple platforms. The environment variable
        /// `COURIER_ENGINE=curl|urlsession` overrides this choice (and only this one).
        case automatic
        /// Foundation's URLSession (FoundationNetworking on Linux).
        case urlSession
        /// libcurl's multi interface, driven by one thread per `Network`: several times cheaper per
        /// request than URLSession on Linux, cancels that stop the bytes at once, and TLS control
        /// (``TLSOptions``). Loaded at run time, from libcurl 7.68.0 on (``CurlFeatures``): where
        /// libcurl cannot be loaded or is older, a `Network` asked for it uses URLSession instead
        /// (``Network/engine`` tells, ``curlUnavailableReason`` says why, and a warning goes to
        /// stderr once per process).
        case curl
        /// No network at all: a ``StubServer`` or a closure answers every request
        /// (`Network(stub:)`, see <doc:Testing>), through all of Courier's own code. Only those
        /// initializers make a network on this engine; given to
        /// ``Network/init(configuration:callbackQueue:maximumConcurrentRequests:engine:tls:connection:)``
        /// it is taken as ``automatic``, since that initializer has nothing to answer with.
        case stub

        /// The version line of the libcurl the curl engine uses, or `nil` if it cannot be loaded.
        public static var curlVersion: String? { CurlLibrary.version }

        /// Why the curl engine cannot be used here, or `nil` if it can.
        public static var curlUnavailableReason: String? { CurlLibrary.unavailableReason }

        /// The version and features of the libcurl the curl engine uses (TLS library, HTTP/2,
        /// decoders, which version-dependent options it takes), or `nil` if it cannot be loaded.
        public static var curlFeatures: CurlFeatures? { CurlFeatures.loaded }

        /// The engine a `Network` created with this choice uses here (its ``Network/engine``):
        /// `COURIER_ENGINE` and the platform decide ``automatic``, and ``curl`` is
        /// ``urlSession`` where libcurl cannot be loaded, and ``stub`` is taken as ``automatic``
        /// (only `Network(stub:)` makes a stub network). Never ``automatic``.
        public var resolved: Engine { Self.resolve(self) }

        /// The engine a `Network` asked for `requested` gets: never ``automatic``.
        static func resolve(_ requested: Engine, environment: [String: String] = ProcessInfo.processInfo.environment) -> Engine {
            let wanted = preferred(requested, environment: environment)
            if wanted == .curl, CurlLibrary.unavailableReason != nil { return .urlSession }
            return wanted
        }

        /// What `requested` asks for before libcurl is looked at: ``automatic`` decided by
        /// `COURIER_ENGINE` and the platform.
        static func preferred(_ requested: Engine, environment: [String: String] = ProcessInfo.processInfo.environment) -> Engine {
            guard requested == .automatic || requested == .stub else { return requested }
            switch environment["COURIER_ENGINE"]?.lowercased() {
            case "curl"?: return .curl
            case "urlsession"?: return .urlSession
            default:
                #if os(Linux)
                return .curl
                #else
                return .urlSession
                #endif
            }
        }

        /// The warning a `Network` that wanted libcurl but got URLSession prints, or `nil` when
        /// nothing fell back.
        static func fallbackWarning(requested: Engine, resolved: Engine,
                                    environment: [String: String] = ProcessInfo.processInfo.environment,
                                    reason: String? = CurlLibrary.unavailableReason) -> String? {
            guard resolved == .urlSession, preferred(requested, environment: environment) == .curl else { return nil }
            return "warning: Courier's curl engine is unavailable (\(reason ?? "unknown reason")); "
                + "requests use URLSession instead (Network.engine tells; see Sources/Courier/Courier.docc/Engines.md)"
        }

        /// Prints ``fallbackWarning(requested:resolved:environment:reason:)`` to stderr the first
        /// time a `Network` falls back, and never again in this process.
        static func warnOnceIfFallingBack(requested: Engine, resolved: Engine) {
            guard fallbackWarning(requested: requested, resolved: resolved) != nil else { return }
            _ = printedFallbackWarning
        }

        private static let printedFallbackWarning: Void = {
            guard let warning = fallbackWarning(requested: .curl, resolved: .urlSession) else { return }
            FileHandle.standardError.write(Data((warning + "\n").utf8))
        }()
    }
}
