import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response head larger than libcurl reads, reported as ``NetworkError/invalidResponse(_:)``
/// with a message that says so, on both engines (both read heads with libcurl).
///
/// libcurl refuses two things, measured with 7.88.1 (and curl's exit codes the same):
/// - one line of the head (the status line, a reason phrase of 200 kB, a header of 1 MB) longer
///   than 100 KiB (`CURL_MAX_HTTP_HEADER`): `CURLE_OUT_OF_MEMORY` (27), "Out of memory", no
///   more said; FoundationNetworking passes it on as `URLError` -1 "Out of memory". Courier takes
///   that error for an oversized line only while no head has arrived (a real out-of-memory then is
///   unlikely; after the head it stays a transport error);
/// - more than 300 KiB of header lines in all (100,000 short headers): `CURLE_RECV_ERROR` (56),
///   "Too large response headers: 307212 > 307200"; `URLError` -1 with that message.
///
/// `package`: the `courier` tool exits with curl's code for each (27, 56), where any other reply
/// that is not HTTP exits 8.
package enum OversizedHead: Sendable, Equatable {
    /// A line of the head longer than libcurl's 100 KiB.
    case line
    /// More header bytes than libcurl reads for one head.
    case fields
    /// More header lines than libcurl reads for one head (libcurl 8.14 and later: 5,000).
    case fieldCount

    /// libcurl's limit on one line of a head.
    static let lineLimit = 100 << 10

    private static let linePrefix = "the response head has a line longer than"
    private static let fieldsPrefix = "the response head is larger than libcurl reads"
    private static let fieldCountPrefix = "the response head has more header lines than libcurl reads"

    /// The error for a head line longer than libcurl reads. The engines decide when libcurl's
    /// failure means that (see `LibcurlMessage.oversizedHead`); this only words it.
    static var lineError: NetworkError {
        .invalidResponse("\(linePrefix) \(LimitExceeded.bytes(Int64(lineLimit))) (libcurl's limit for the status line or one header)")
    }

    /// The error for more header bytes than libcurl reads, with libcurl's own `message`.
    static func fieldsError(libcurl message: String) -> NetworkError {
        .invalidResponse("\(fieldsPrefix) (\(message))")
    }

    /// The error for more header lines than libcurl reads, with libcurl's own `message`.
    static func fieldCountError(libcurl message: String) -> NetworkError {
        .invalidResponse("\(fieldCountPrefix) (\(message))")
    }

    /// Which limit the text of an ``NetworkError/invalidResponse(_:)`` reports, if it reports one.
    package init?(message: String) {
        if message.hasPrefix(Self.linePrefix) {
            self = .line
        } else if message.hasPrefix(Self.fieldsPrefix) {
            self = .fields
        } else if message.hasPrefix(Self.fieldCountPrefix) {
            self = .fieldCount
        } else {
            return nil
        }
    }
}

extension NetworkError {
    /// For an ``invalidResponse(_:)`` about a response head larger than libcurl reads: which of
    /// its limits. For the `courier` tool, which exits as curl does for each.
    package var oversizedHead: OversizedHead? {
        guard case let .invalidResponse(message) = self else { return nil }
        return OversizedHead(message: message)
    }
}
