import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The baseline: raw `URLSession` data tasks with a completion handler, the way most code on
/// Linux uses it. One long-lived session, so connections are kept alive like Courier's.
struct URLSessionDriver: RequestDriver {
    let session: URLSession
    let url: URL
    let check: ResponseCheck

    func run(count: Int, concurrency: Int, failures: FailureTally) {
        let request = URLRequest(url: url)
        runWithCallbacks(count: count, concurrency: concurrency) { done in
            session.dataTask(with: request) { data, response, error in
                check.verify(statusCode: (response as? HTTPURLResponse)?.statusCode, bodyBytes: data?.count ?? 0,
                             error: error, into: failures)
                done()
            }.resume()
        }
    }
}
