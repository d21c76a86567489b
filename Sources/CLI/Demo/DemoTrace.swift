import Courier
import Foundation

/// The last response head the demo's network received, as the library's observers see it
/// (`NetworkObserver`): a download returns only its file, and the resume step shows the `206`.
struct DemoTrace: NetworkObserver {
    private let last = Locked<HTTPResponse?>(nil)

    /// The last response head received, if any.
    var lastResponse: HTTPResponse? { last.current }

    func didReceive(_ response: HTTPResponse, context: RequestContext) {
        last.withLock { $0 = response }
    }
}
