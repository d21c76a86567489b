#if canImport(Combine)
import Combine

extension NetworkRequest {
    /// HPNetwork 2.x's Combine publisher (Apple platforms): the request's output once, or its
    /// error, through the same validation and error conversion as ``Network/schedule(_:callbackQueue:progress:completion:)``.
    ///
    /// The request starts when the publisher is subscribed to (once per subscription), delivers on
    /// the request's ``HPNetworkRequestMembers/finishingQueue`` or the network's callback queue,
    /// and cancelling the subscription cancels it.
    ///
    /// ```swift
    /// let cancellable = GetPost(id: 1).dataTaskPublisher()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { post in print(post.title) })
    /// ```
    public func dataTaskPublisher(on network: Network = .shared) -> AnyPublisher<Output, any Error> {
        Deferred { () -> Publishers.HandleEvents<Future<Output, any Error>> in
            let task = Locked<NetworkTask?>(nil)
            return Future<Output, any Error> { promise in
                // Combine's promise is not Sendable; it is called once, from the one completion.
                let promise = UncheckedSendable(promise)
                let started = self.schedule(on: network) { result in promise.value(result) }
                task.withLock { $0 = started }
            }
            .handleEvents(receiveCancel: { task.withLock { $0 }?.cancel() })
        }
        .eraseToAnyPublisher()
    }
}
#endif
