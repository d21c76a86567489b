/// Which part of a TLS connection failed, carried by ``NetworkError/tls(_:_:)``.
///
/// Each case names one thing to check, so that a caller (or `courier`, which exits with curl's
/// code for each) can tell an untrusted server from a wrong pin or an unusable client certificate.
///
/// ```swift
/// catch NetworkError.tls(.untrustedCertificate, let error) {
///     print("not trusted:", error.localizedDescription)   // libcurl's reason, e.g. "self-signed certificate"
/// }
/// ```
public enum TLSFailure: Sendable, Hashable {
    /// The server's certificate could not be verified: not issued by a trusted authority (the
    /// system's, or ``TLSOptions/certificateAuthorities``), expired, or not for this host name.
    /// curl's exit code 60.
    case untrustedCertificate
    /// The server's public key is none of ``TLSOptions/pinnedPublicKeys``. curl's exit code 90.
    case pinnedKeyMismatch
    /// ``TLSOptions/clientCertificate`` or ``TLSOptions/clientKey`` could not be used: a missing
    /// or unreadable file, not PEM, or a key that does not belong to the certificate. Nothing
    /// was sent. curl's exit code 58.
    case unusableClientCertificate
    /// ``TLSOptions/certificateAuthorities`` could not be read. Nothing was sent. curl's exit code 77.
    case unreadableCertificateAuthorities
    /// The handshake failed or the server refused the session with a TLS alert: it required a
    /// client certificate and got none, did not accept the one it got, or shares no protocol
    /// version or cipher with us. curl's exit code 35, or 56 when the alert comes after the
    /// handshake (TLS 1.3 servers refuse a client certificate that way).
    case handshakeFailed
    /// The network's ``TLSOptions`` cannot be honoured by its engine (URLSession has no TLS
    /// control on Linux): every request fails with this before anything is sent, rather than run
    /// without them. Use ``Network/Engine/curl``.
    case unsupportedByEngine
}

extension TLSFailure {
    /// What failed, as the start of ``NetworkError``'s description.
    var summary: String {
        switch self {
        case .untrustedCertificate: return "The server's TLS certificate is not trusted"
        case .pinnedKeyMismatch: return "The server's public key matches no pinned key"
        case .unusableClientCertificate: return "The client certificate or key cannot be used"
        case .unreadableCertificateAuthorities: return "The certificate authorities file cannot be read"
        case .handshakeFailed: return "The TLS handshake failed"
        case .unsupportedByEngine: return "TLS options are not supported by this engine"
        }
    }
}
