import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A reference, not a baseline: raw URLSession used the way any library on Linux has to use it
/// to offer progress and a cancel that does not block (delegate-based data tasks, one session
/// delegate routing callbacks by task identifier, the body gathered in the delegate). Courier
/// does this and more; the gap between this driver and the completion-handler one is what the
/// delegate path itself costs inside URLSession, which no library built on it can avoid.
struct URLSessionDelegateDriver: RequestDriver {
    let session: URLSession
    let delegate: RoutingDelegate
    let url: URL
    let check: ResponseCheck

    /// A session whose delegate is a new ``RoutingDelegate``, with the given configuration.
    init(configuration: URLSessionConfiguration, url: URL, check: ResponseCheck) {
        delegate = RoutingDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        self.url = url
        self.check = check
    }

    func run(count: Int, concurrency: Int, failures: FailureTally) {
        let request = URLRequest(url: url)
        runWithCallbacks(count: count, concurrency: concurrency) { done in
            let task = session.dataTask(with: request)
            delegate.register(task) { statusCode, bodyBytes, error in
                check.verify(statusCode: statusCode, bodyBytes: bodyBytes, error: error, into: failures)
                done()
            }
            task.resume()
        }
    }
}

/// The session delegate of ``URLSessionDelegateDriver``: per-task state in a table, as on Linux
/// per-task delegates are never called.
final class RoutingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // used on the session's serial delegate queue only.
    typealias Completion = @Sendable (_ statusCode: Int?, _ bodyBytes: Int, _ error: (any Error)?) -> Void

    private struct Entry {
        var body = Data()
        let completion: Completion
    }

    private let entries = Locked<[Int: Entry]>([:])

    func register(_ task: URLSessionTask, completion: @escaping Completion) {
        entries.withLock { $0[task.taskIdentifier] = Entry(completion: completion) }
    }

    // Implemented, as a library needs the response before the body (status, expected length).
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        entries.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        entry.completion((task.response as? HTTPURLResponse)?.statusCode, entry.body.count, error)
    }
}
