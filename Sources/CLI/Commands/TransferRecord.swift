import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `-w` reports about a request, gathered from the network's observer events: the URL
/// and method last sent, the redirects and status of the last attempt, the retries.
struct TransferRecord: NetworkObserver {
    struct Facts: Sendable {
        var attempt = 0
        var url: URL?
        var method: String?
        /// Redirects followed by the current attempt.
        var redirects = 0
        var retries = 0
        /// The last response of the current attempt (a redirect included), if any came.
        var statusCode: Int?
        var contentType: String?
        /// Body bytes of the last response held in memory (downloads report heads only).
        var bodyBytes: Int64 = 0
        /// The HTTP version of the last response.
        var httpVersion: HTTPVersion?
        /// The current attempt's metrics, once its transfer is over.
        var metrics: TransferMetrics?
    }

    private let facts = Locked(Facts())

    /// The facts so far.
    var current: Facts { facts.current }

    func willSend(_ request: URLRequest, context: RequestContext) {
        facts.withLock { facts in
            if facts.attempt != context.attempt {
                // A new attempt: as curl's retries, it is a transfer of its own.
                facts = Facts(attempt: context.attempt, retries: facts.retries)
            }
            facts.url = request.url
            facts.method = request.httpMethod
        }
    }

    func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
        facts.withLock { facts in
            facts.redirects += 1
            facts.statusCode = response.statusCode
            facts.contentType = response.headers["Content-Type"]
        }
    }

    func didReceive(_ response: HTTPResponse, context: RequestContext) {
        facts.withLock { facts in
            facts.httpVersion = response.httpVersion
            facts.statusCode = response.statusCode
            facts.contentType = response.headers["Content-Type"]
            facts.bodyBytes = Int64(response.body.count)
        }
    }

    func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {
        facts.withLock { $0.metrics = metrics }
    }

    func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {
        facts.withLock { $0.retries += 1 }
    }
}
