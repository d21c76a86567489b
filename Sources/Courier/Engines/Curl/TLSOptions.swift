import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// TLS settings of the curl engine: what URLSession on Linux cannot offer (it never hands the
/// server-trust challenge to its delegate).
///
/// ```swift
/// var tls = TLSOptions()
/// tls.certificateAuthorities = URL(fileURLWithPath: "/etc/myorg/ca.pem")   // trust an internal CA
/// tls.pinnedPublicKeys = ["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]
/// let network = Network(engine: .curl, tls: tls)
/// ```
///
/// Verification of the server's certificate and host name is always on unless
/// ``allowsInsecureConnections`` is set. Failures are ``NetworkError/tls(_:_:)``, whose
/// ``TLSFailure`` says which check failed: ``TLSFailure/untrustedCertificate``,
/// ``TLSFailure/pinnedKeyMismatch``, ``TLSFailure/unusableClientCertificate``,
/// ``TLSFailure/unreadableCertificateAuthorities`` or ``TLSFailure/handshakeFailed``. See
/// <doc:TLS>.
public struct TLSOptions: Sendable, Hashable {
    /// A PEM file of certificate authorities to trust *instead of* the system's (curl's `--cacert`).
    public var certificateAuthorities: URL?
    /// Public keys the server must present, as `sha256//BASE64` (several joined with `;`), or a
    /// PEM/DER public key file path (curl's `--pinnedpubkey`).
    public var pinnedPublicKeys: [String]
    /// A client certificate (PEM) for servers that ask for one (curl's `--cert`).
    public var clientCertificate: URL?
    /// The client certificate's private key (PEM), if not in the certificate file (curl's `--key`).
    public var clientKey: URL?
    /// Skips verifying the server's certificate and host name (curl's `-k`). For self-signed test
    /// servers only: anyone on the path can then read and change the traffic.
    public var allowsInsecureConnections: Bool

    /// Verification on, the system's certificate authorities, no pin, no client certificate.
    public init(certificateAuthorities: URL? = nil, pinnedPublicKeys: [String] = [], clientCertificate: URL? = nil,
                clientKey: URL? = nil, allowsInsecureConnections: Bool = false) {
        self.certificateAuthorities = certificateAuthorities
        self.pinnedPublicKeys = pinnedPublicKeys
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.allowsInsecureConnections = allowsInsecureConnections
    }

    /// Whether anything differs from the defaults (URLSession cannot honour any of it).
    var isCustomized: Bool { self != TLSOptions() }

    /// What every request of a URLSession network given customised options fails with.
    static let unsupportedByURLSession = NetworkError.tls(.unsupportedByEngine, URLError(.secureConnectionFailed, userInfo: [
        NSLocalizedDescriptionKey: "TLSOptions need the curl engine: the URLSession engine cannot apply them",
    ]))

    func apply(to options: inout CurlOptionSetter) {
        if let certificateAuthorities { options.set(Int32(CCURLOPT_CAINFO), certificateAuthorities.path) }
        if !pinnedPublicKeys.isEmpty { options.set(Int32(CCURLOPT_PINNEDPUBLICKEY), pinnedPublicKeys.joined(separator: ";")) }
        if let clientCertificate { options.set(Int32(CCURLOPT_SSLCERT), clientCertificate.path) }
        if let clientKey { options.set(Int32(CCURLOPT_SSLKEY), clientKey.path) }
        if allowsInsecureConnections {
            options.set(Int32(CCURLOPT_SSL_VERIFYPEER), 0)
            options.set(Int32(CCURLOPT_SSL_VERIFYHOST), 0)
        }
    }
}
