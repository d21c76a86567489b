import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one attempt of a transfer sent and received, gathered from the network's observer
/// events: the URL and method last sent, the redirects followed (with their heads, for `-i` and
/// `-D` with `-L`), the last response and the metrics of its transfer.
///
/// One network runs one transfer at a time (see ``RequestCommand``), so the record is that
/// transfer's; ``reset()`` clears it before each attempt.
final class TransferRecord: NetworkObserver, Sendable {
    struct Facts: Sendable {
        var url: URL?
        var method: String?
        /// The heads of the redirects followed, in order.
        var redirectHeads: [HTTPResponse] = []
        /// How many of ``redirectHeads`` have been written out already (`-i`, `-D`).
        var redirectHeadsWritten = 0
        /// The last response of the attempt (a redirect left unfollowed included), if any came.
        var response: HTTPResponse?
        /// Whether a request went out.
        var sent = false
        /// The attempt's metrics, once its transfer is over (the last transfer's, after redirects
        /// Courier follows itself).
        var metrics: TransferMetrics?
    }

    private let facts = Locked(Facts())

    /// The facts so far.
    var current: Facts { facts.current }

    /// Clears the record for a new attempt.
    func reset() {
        facts.withLock { $0 = Facts() }
    }

    /// The redirect heads not written out yet, marked as written.
    func takeUnwrittenRedirectHeads() -> [HTTPResponse] {
        facts.withLock { facts in
            defer { facts.redirectHeadsWritten = facts.redirectHeads.count }
            return Array(facts.redirectHeads[facts.redirectHeadsWritten...])
        }
    }

    func willSend(_ request: URLRequest, context: RequestContext) {
        facts.withLock { facts in
            facts.url = request.url
            facts.method = request.httpMethod
            facts.sent = true
        }
    }

    func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
        facts.withLock { facts in
            facts.redirectHeads.append(response)
            facts.response = response
        }
    }

    /// Comes before the stream's `onResponse` (NetworkObserver promises it), so `-w` sees the
    /// head even when `onResponse` refuses it (`-f`) and the blocking stream returns at once.
    func didReceive(_ response: HTTPResponse, context: RequestContext) {
        facts.withLock { $0.response = response }
    }

    func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {
        facts.withLock { $0.metrics = metrics }
    }
}
