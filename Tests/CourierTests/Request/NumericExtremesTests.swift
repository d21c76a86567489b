import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Every public numeric knob set to every extreme of its type: none may trap. Each is clamped
/// (the clamped value observable) or reported as a typed error, as its documentation says; the
/// knobs on the request path are then used for a real request to a loopback server, on the
/// engine in use.
final class NumericExtremesTests: XCTestCase {
    private static let ints: [Int] = [.min, -5, -1, 0, 1, .max]
    private static let int64s: [Int64] = [.min, -1, 0, 1, .max]
    private static let doubles: [Double] = [-.infinity, .infinity, .nan, -0.0, 0, -1,
                                            .greatestFiniteMagnitude, .leastNonzeroMagnitude]

    private func server() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        server.route("/redirect") { _, writer in writer.respond(status: 302, headers: ["Location": "/hello"]) }
        server.route("/unavailable") { _, writer in writer.respond(status: 503, text: "later") }
        server.route("/events") { _, writer in writer.respond(status: 200, headers: ["Content-Type": "text/event-stream"], text: "data: one\n\n") }
        return server
    }

    private func hello(_ server: TestServer, on network: Network, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/hello")).string(), on: network)?.get(), "hello",
                       file: file, line: line)
    }

    // MARK: - Network

    func testMaximumConcurrentRequestsTakesAnyIntInTheInitializerAndTheSetter() throws {
        let server = try server()
        for value in Self.ints {
            let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test.callbacks"),
                                  maximumConcurrentRequests: value)
            addTeardownBlock { network.cancelAll() }
            XCTAssertEqual(network.maximumConcurrentRequests, max(1, value), "init(maximumConcurrentRequests: \(value))")
            hello(server, on: network)
            for other in Self.ints {
                network.maximumConcurrentRequests = other
                XCTAssertEqual(network.maximumConcurrentRequests, max(1, other), "maximumConcurrentRequests = \(other)")
            }
            hello(server, on: network)
        }
    }

    func testMaximumResponseSizeClampsAtZero() throws {
        let server = try server()
        let network = makeNetwork()
        for value in Self.int64s {
            network.maximumResponseSize = value
            XCTAssertEqual(network.maximumResponseSize, max(0, value))
            let outcome = result(of: Request<Data>.get(server.url("/hello")).string(), on: network)
            if value >= 5 {
                XCTAssertEqual(try outcome?.get(), "hello")
            } else {
                guard case .responseTooLarge? = networkError(outcome) else { return XCTFail("\(value): \(String(describing: outcome))") }
            }
        }
    }

    func testMaximumRedirectsClampsAtZero() throws {
        let server = try server()
        let network = makeNetwork()
        for value in Self.ints {
            network.maximumRedirects = value
            XCTAssertEqual(network.maximumRedirects, max(0, value))
            let outcome = result(of: Request<Data>.get(server.url("/redirect")).string(), on: network)
            if value >= 1 {
                XCTAssertEqual(try outcome?.get(), "hello", "maximumRedirects \(value)")
            } else {
                guard case .tooManyRedirects? = networkError(outcome) else { return XCTFail("\(value): \(String(describing: outcome))") }
            }
        }
    }

    func testDecompressionLimitClampsBothValues() throws {
        let server = try server()
        let network = makeNetwork()
        for ratio in Self.int64s {
            for minimumSize in Self.int64s {
                var limit = DecompressionLimit(ratio: ratio, minimumSize: minimumSize)
                XCTAssertEqual(limit.ratio, max(1, ratio))
                XCTAssertEqual(limit.minimumSize, max(0, minimumSize))
                limit.ratio = ratio
                limit.minimumSize = minimumSize
                XCTAssertEqual(limit.ratio, max(1, ratio))
                XCTAssertEqual(limit.minimumSize, max(0, minimumSize))
                network.decompressionLimit = limit
            }
        }
        hello(server, on: network)
    }

    func testConfigurationLimitsOfAnyValueStillRunRequests() throws {
        let server = try server()
        let timeouts = Self.doubles + [1e16, 1e300]
        for (index, timeout) in timeouts.enumerated() {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = Self.ints[index % Self.ints.count]
            configuration.timeoutIntervalForRequest = timeout
            configuration.timeoutIntervalForResource = timeout
            let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"))
            addTeardownBlock { network.cancelAll() }
            let outcome = result(of: Request<Data>.get(server.url("/hello")).string(), on: network)
            if timeout > 0, timeout < 1 {
                // An idle timeout that short (the network's, from the configuration) may run out
                // before the answer: then it says so, with the value it was given.
                if case .success = outcome { continue }
                guard case let .timedOut(limit)? = networkError(outcome), limit.kind == .idle, limit.seconds == timeout else {
                    return XCTFail("\(timeout): \(String(describing: outcome))")
                }
            } else {
                XCTAssertEqual(try outcome?.get(), "hello", "timeoutIntervalForRequest \(timeout)")
            }
        }
    }

    // MARK: - Rate limits

    func testRateLimitsBelowOneAreInvalidRequestsAndAnyPositiveOneWorks() throws {
        let server = try server()
        for value in Self.int64s {
            for limit in [RateLimit(bytesPerSecond: value), RateLimit(receiveBytesPerSecond: value),
                          RateLimit(sendBytesPerSecond: value)] {
                var request = Request<Data>.get(server.url("/hello"))
                request.rateLimit = limit
                let perRequest = result(of: request.string(), on: makeNetwork())
                let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test.callbacks"),
                                      connection: ConnectionOptions(rateLimit: limit))
                addTeardownBlock { network.cancelAll() }
                let perNetwork = result(of: Request<Data>.get(server.url("/hello")).string(), on: network)
                for outcome in [perRequest, perNetwork] {
                    if value >= 1, network.engine == .curl {
                        XCTAssertEqual(try outcome?.get(), "hello", "\(limit)")
                    } else {
                        guard case .invalidRequest? = networkError(outcome) else { return XCTFail("\(limit): \(String(describing: outcome))") }
                    }
                }
            }
        }
    }

    // MARK: - Deadlines and waits

    func testRequestTimeoutsAreCheckedClampedOrHonoured() throws {
        let server = try server()
        let network = makeNetwork()
        for timeout in Self.doubles {
            let outcome = result(of: Request<Data>(url: server.url("/hello"), timeout: timeout).string(), on: network)
            switch timeout {
            case _ where timeout.isNaN || timeout < 0:
                guard case .invalidRequest? = networkError(outcome) else { return XCTFail("\(timeout): \(String(describing: outcome))") }
            case .infinity, .greatestFiniteMagnitude:
                XCTAssertEqual(try outcome?.get(), "hello", "timeout \(timeout)")
            default:
                guard case .timedOut? = networkError(outcome) else { return XCTFail("\(timeout): \(String(describing: outcome))") }
            }
        }
    }

    func testBlockingWaitsOfAnyLength() throws {
        let server = try server()
        let network = makeNetwork()
        let request = Request<Data>.get(server.url("/hello"))
        for timeout in Self.doubles {
            let outcomes: [Result<Data, any Error>] = [
                network.scheduleSynchronously(request, timeout: timeout),
                network.streamSynchronously(request, timeout: timeout, onData: { _ in }).map { _ in Data("hello".utf8) },
            ]
            for outcome in outcomes {
                if timeout > 1 {
                    XCTAssertEqual(try outcome.get(), Data("hello".utf8), "timeout \(timeout)")
                } else {
                    // Negative, NaN, or too short to measure: the wait is over before the request starts.
                    guard case .timedOut? = networkError(outcome) else { return XCTFail("\(timeout): \(outcome)") }
                }
            }
        }
    }

    // MARK: - Retries

    func testRetryPolicyDelaysOfAnyValueAreFiniteAndNeverNegative() {
        let error = NetworkError.transport(URLError(.timedOut))
        for attempts in Self.ints {
            XCTAssertEqual(RetryPolicy(maxAttempts: attempts).maxAttempts, max(1, attempts))
            var policy = RetryPolicy()
            policy.maxAttempts = attempts
            XCTAssertEqual(policy.maxAttempts, max(1, attempts))
        }
        for base in Self.doubles {
            for maximum in Self.doubles {
                let policy = RetryPolicy(maxAttempts: 10, baseDelay: base, maximumDelay: maximum, maximumRetryAfter: maximum)
                for attempts in Self.ints {
                    guard let delay = policy.delay(afterAttempt: attempts, method: .get, error: error) else {
                        XCTAssertGreaterThanOrEqual(attempts, 10, "only the attempt limit stops these retries")
                        continue
                    }
                    XCTAssertTrue(delay.isFinite && delay >= 0, "base \(base), maximum \(maximum), attempt \(attempts): \(delay)")
                    if base.isNaN || maximum.isNaN || !(min(base, maximum) > 0) { XCTAssertEqual(delay, 0) }
                }
            }
        }
    }

    func testRetriesWithExtremeDelaysRunOrWaitForTheDeadline() throws {
        let server = try server()
        for base in Self.doubles {
            let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: base, maximumDelay: .infinity))
            let waitsForEver = base == .infinity || base == .greatestFiniteMagnitude
            let outcome = result(of: Request<Data>(url: server.url("/unavailable"), timeout: waitsForEver ? 0.2 : 10), on: network)
            if waitsForEver {
                guard case .timedOut? = networkError(outcome) else { return XCTFail("\(base): \(String(describing: outcome))") }
            } else {
                guard case .httpStatus(let response)? = networkError(outcome) else { return XCTFail("\(base): \(String(describing: outcome))") }
                XCTAssertEqual(response.statusCode, 503)
            }
        }
    }

    // MARK: - Request values

    func testAcceptableStatusCodesTakeAnyRange() throws {
        let server = try server()
        let network = makeNetwork()
        var request = Request<Data>.get(server.url("/hello"))
        for range in [Int.min..<Int.max, 0..<Int.max, Int.min..<0, Int.max..<Int.max, 200..<Int.max, 0..<0] {
            request.acceptableStatusCodes = range
            let kept = range.clamped(to: 0..<1000)
            XCTAssertEqual(request.acceptedStatusCodes, Set(kept), "\(range)")
            let outcome = result(of: request, on: network)
            if kept.contains(200) {
                XCTAssertEqual(try outcome?.get(), Data("hello".utf8), "\(range)")
            } else {
                guard case .httpStatus? = networkError(outcome) else { return XCTFail("\(range): \(String(describing: outcome))") }
            }
        }
        request.acceptedStatusCodes = [Int.min, 200, Int.max]
        XCTAssertEqual(request.acceptableStatusCodes, Int.min..<Int.max)
        request.acceptedStatusCodes = [Int.max]
        XCTAssertEqual(request.acceptableStatusCodes, Int.max..<Int.max)
    }

    func testURLBuilderPortsAndDigitsOfAnyValue() throws {
        for port in Self.ints {
            let built = try? URLBuilder(host: "127.0.0.1", scheme: "http", port: port).build()
            if (0...65_535).contains(port) {
                XCTAssertEqual(built?.port, port)
            } else {
                XCTAssertNil(built, "port \(port) is refused with invalidURL")
            }
        }
        for digits in Self.ints {
            for value in Self.doubles {
                let builder = URLBuilder(host: "example.com").addingQueryItem(name: "v", value: value, digits: digits)
                let text = try XCTUnwrap(builder.queryItems.first?.value)
                XCTAssertFalse(text.isEmpty)
                XCTAssertLessThanOrEqual(text.utf8.count, 1_500, "\(digits) digits of \(value)")
            }
        }
        XCTAssertEqual(URLBuilder(host: "h").addingQueryItem(name: "v", value: 1.5, digits: -1).queryItems.first?.value, "2")
    }

    func testStreamLimitsBelowOneRefuseEveryLineAndEvent() async throws {
        let server = try server()
        let network = makeNetwork()
        for limit in Self.ints {
            let (_, body) = try await network.bytes(for: Request<Data>.get(server.url("/hello")))
            var lines: [String] = []
            do {
                for try await line in body.lines(maximumLength: limit) { lines.append(line) }
                XCTAssertGreaterThanOrEqual(limit, 5, "a 5-byte line passed a limit of \(limit)")
                XCTAssertEqual(lines, ["hello"])
            } catch {
                XCTAssertLessThan(limit, 5, "\(limit): \(error)")
            }
            let (_, events) = try await network.bytes(for: Request<Data>.get(server.url("/events")))
            var received: [ServerSentEvent] = []
            do {
                for try await event in events.serverSentEvents(maximumEventSize: limit) { received.append(event) }
                XCTAssertGreaterThanOrEqual(limit, 3, "a 3-byte event passed a limit of \(limit)")
                XCTAssertEqual(received.map(\.data), ["one"])
            } catch {
                XCTAssertLessThan(limit, 10, "\(limit): \(error)")
            }
        }
    }

    // MARK: - Values made by hand

    func testValuesMadeByHandPrintAndComputeWithoutTrapping() {
        for value in Self.ints {
            let version = HTTPVersion(major: value, minor: value)
            XCTAssertTrue((0...255).contains(version.major) && (0...255).contains(version.minor))
            let response = HTTPResponse(statusCode: value)
            XCTAssertFalse(response.description.isEmpty)
            XCTAssertFalse(RequestContext(id: .max, attempt: value, method: .get, url: nil).description.isEmpty)
            XCTAssertEqual(ServerSentEvent(data: "x", retry: value).retry, value)
        }
        for completed in Self.int64s {
            for total in Self.int64s + [nil] as [Int64?] {
                let fraction = TransferProgress(completedBytes: completed, totalBytes: total).fractionCompleted
                if let fraction { XCTAssertTrue((0...1).contains(fraction), "\(completed) of \(String(describing: total)): \(fraction)") }
                XCTAssertFalse(LimitExceeded(kind: .decompressionRatio, limit: completed, received: total ?? 0,
                                             encodedBytes: total).description.isEmpty)
            }
        }
        for seconds in Self.doubles {
            let metrics = TransferMetrics(total: seconds, nameLookup: seconds, firstByte: seconds, redirectTime: seconds)
            XCTAssertFalse(metrics.timeline.isEmpty)
            let log = Box<[String]>([])
            let observer = LoggingObserver(write: { line in log.mutate { $0?.append(line) } })
            observer.didRetry(after: .timedOut, delay: seconds, context: RequestContext(id: 1, attempt: 1, method: .get, url: nil))
            XCTAssertEqual(log.value?.count, 1)
        }
    }

    func testStubLatenciesAndStatusesOfAnyValue() throws {
        for seconds in Self.doubles where !(seconds > 1) {
            let stub = StubServer()
            stub.on(.get, "/a", reply: .text("a").delay(seconds))
            let network = Network(stub: stub, callbackQueue: DispatchQueue(label: "test.callbacks"))
            XCTAssertEqual(try result(of: Request<Data>.get("https://stub.test/a").string(), on: network)?.get(), "a", "delay \(seconds)")
        }
        for limit in Self.ints {
            let stub = StubServer()
            stub.on(.get, "/a", reply: .text("a"))
            let network = Network(stub: stub, callbackQueue: DispatchQueue(label: "test.callbacks"), maximumConcurrentRequests: limit)
            XCTAssertEqual(network.maximumConcurrentRequests, max(1, limit))
            XCTAssertEqual(try result(of: Request<Data>.get("https://stub.test/a").string(), on: network)?.get(), "a")
        }
        for status in Self.ints {
            let stub = StubServer()
            stub.on(.get, "/a", reply: .status(status))
            let network = Network(stub: stub, callbackQueue: DispatchQueue(label: "test.callbacks"))
            var request = Request<Data>.get("https://stub.test/a")
            request.acceptableStatusCodes = Int.min..<Int.max
            _ = result(of: request, on: network)
        }
    }
}
