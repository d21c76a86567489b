import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension XCTestCase {
    /// A network on the curl engine, whatever `COURIER_ENGINE` says, with no retries, callbacks
    /// on a private queue, and cancelled when the test ends; skips the test where libcurl cannot
    /// be loaded (the network would then be on URLSession).
    func makeCurlNetwork(configuration: URLSessionConfiguration = .ephemeral, tls: TLSOptions = TLSOptions()) throws -> Network {
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"),
                              engine: .curl, tls: tls)
        network.retryPolicy = .none
        addTeardownBlock { network.cancelAll() }
        guard network.engine == .curl else { throw XCTSkip("the curl engine cannot be used here") }
        return network
    }

    /// A loopback server standing in for a proxy: `/hello` answers with the `Host` it was asked for.
    func makeProxy() throws -> TestServer {
        let proxy = try makeServer()
        proxy.route("/hello") { request, writer in
            writer.respond(status: 200, text: "proxied for \(request.header("Host") ?? "?")")
        }
        return proxy
    }
}
