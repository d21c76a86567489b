import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `Network.jsonEncoder` / `jsonDecoder`: used by `.json` bodies and decoding requests unless a
/// request names its own.
final class SharedCodersTests: XCTestCase {
    private struct Profile: Codable, Sendable, Equatable {
        let firstName: String
        let lastSeen: Date
    }

    private let profile = Profile(firstName: "Jo", lastSeen: Date(timeIntervalSince1970: 1_738_324_800))
    private let snakeJSON = #"{"first_name":"Jo","last_seen":"2025-01-31T12:00:00Z"}"#

    private struct GetProfile: DecodableRequest {
        typealias Output = Profile
        let url: URL
        func makeURL() throws -> URL { url }
    }

    private struct GetProfileOwnDecoder: DecodableRequest {
        typealias Output = Profile
        let url: URL
        func makeURL() throws -> URL { url }
        var decoder: JSONDecoder { JSONDecoder() }
    }

    private struct Problem: Decodable, Sendable { let errorCode: String }

    private struct GetProfileWithErrors: DecodableRequest, ErrorDecodingRequest {
        typealias Output = Profile
        typealias ErrorModel = Problem
        let url: URL
        func makeURL() throws -> URL { url }
    }

    private func snakeCaseNetwork() -> Network {
        let network = makeNetwork()
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        network.jsonEncoder = encoder
        network.jsonDecoder.keyDecodingStrategy = .convertFromSnakeCase   // in place, before any request
        network.jsonDecoder.dateDecodingStrategy = .iso8601
        return network
    }

    func testJSONBodiesUseTheNetworksEncoder() throws {
        let server = try makeServer().withStandardRoutes()
        let network = snakeCaseNetwork()
        let sent = try XCTUnwrap(result(of: Request<Data>(method: .post, url: server.url("/echo"), body: .json(profile)).string(), on: network)).get()
        XCTAssertEqual(sent, snakeJSON)
        XCTAssertEqual(server.receivedRequests.last?.header("Content-Type"), "application/json")

        // Downloads build their request the same way.
        let file = try makeTemporaryDirectory().appendingPathComponent("echo.json")
        _ = try network.downloadSynchronously(Request<Data>(method: .post, url: server.url("/echo"), body: .json(profile)), to: file, timeout: 10).get()
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), snakeJSON)
    }

    func testABodyWithItsOwnEncoderOverrides() throws {
        let server = try makeServer().withStandardRoutes()
        let own = JSONEncoder()
        own.outputFormatting = .sortedKeys
        own.dateEncodingStrategy = .secondsSince1970
        let request = Request<Data>(method: .post, url: server.url("/echo"), body: .json(profile, encoder: own)).string()
        let sent = try XCTUnwrap(result(of: request, on: snakeCaseNetwork())).get()
        XCTAssertEqual(sent, #"{"firstName":"Jo","lastSeen":1738324800}"#)
        XCTAssertEqual(server.receivedRequests.last?.header("Content-Type"), "application/json")
    }

    func testOutsideANetworkAPlainEncoderIsUsed() throws {
        _ = snakeCaseNetwork()
        let request = try Request<Data>(method: .post, url: URL(string: "http://127.0.0.1:1/")!, body: .json(["someKey": 1])).makeURLRequest()
        XCTAssertEqual(request.httpBody.map { String(decoding: $0, as: UTF8.self) }, #"{"someKey":1}"#)
    }

    func testDecodingRequestsUseTheNetworksDecoder() async throws {
        let server = try makeServer()
        let json = snakeJSON
        server.route("/profile") { _, writer in writer.respond(json: json) }
        server.route("/problem") { _, writer in writer.respond(json: #"{"error_code":"E42"}"#, status: 409) }
        let network = snakeCaseNetwork()

        // A DecodableRequest, every convention.
        let decodable = GetProfile(url: server.url("/profile"))
        XCTAssertEqual(try result(of: decodable, on: network)?.get(), profile)
        XCTAssertEqual(try network.scheduleSynchronously(decodable, timeout: 10).get(), profile)
        let viaAsync = try await network.response(for: decodable)
        XCTAssertEqual(viaAsync, profile)

        // Request.decoding without a decoder, and with responses.
        let adHoc = try await network.response(for: Request<Data>.get(server.url("/profile")).decoding(Profile.self).withResponse())
        XCTAssertEqual(adHoc.value, profile)

        // Error bodies: ErrorDecodingRequest and Request.decodingErrors(as:).
        do {
            _ = try await network.response(for: GetProfileWithErrors(url: server.url("/problem")))
            XCTFail("expected a ServerError")
        } catch let error as ServerError<Problem> {
            XCTAssertEqual(error.model.errorCode, "E42")
        }
        do {
            _ = try await network.response(for: Request<Data>.get(server.url("/problem")).decodingErrors(as: Problem.self))
            XCTFail("expected a ServerError")
        } catch let error as ServerError<Problem> {
            XCTAssertEqual(error.model.errorCode, "E42")
        }
    }

    func testARequestsOwnDecoderOverrides() throws {
        let server = try makeServer()
        let json = snakeJSON
        server.route("/profile") { _, writer in writer.respond(json: json) }
        let network = snakeCaseNetwork()
        // Its own plain decoder knows neither snake_case nor ISO dates.
        guard case .decodingFailed? = networkError(result(of: GetProfileOwnDecoder(url: server.url("/profile")), on: network)) else {
            return XCTFail("expected decodingFailed")
        }
        guard case .decodingFailed? = networkError(result(of: Request<Data>.get(server.url("/profile")).decoding(Profile.self, decoder: JSONDecoder()), on: network)) else {
            return XCTFail("expected decodingFailed")
        }
        // The same requests on a network with default coders fail too: the snake_case network's
        // decoder is its own, not a global.
        guard case .decodingFailed? = networkError(result(of: GetProfile(url: server.url("/profile")), on: makeNetwork())) else {
            return XCTFail("expected decodingFailed")
        }
    }

    func testCodersAreTakenWhenARequestIsScheduled() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let gate = holdRequests(at: "/held", on: server, text: #"{"first_name":"Jo","last_seen":"2025-01-31T12:00:00Z"}"#)
        let done = expectation(description: "completion")
        let outcome = Box<Result<Profile, any Error>>()
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        network.jsonDecoder = decoder
        network.schedule(GetProfile(url: server.url("/held"))) { result in
            outcome.value = result
            done.fulfill()
        }
        network.jsonDecoder = JSONDecoder()   // replaced, not mutated: the scheduled request keeps its decoder
        gate.open()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try XCTUnwrap(outcome.value).get(), profile)
        XCTAssertTrue(network.jsonDecoder !== decoder)
    }

    /// A profile request whose `output` first schedules another request, with a `.json` body, on
    /// another network: that request's body is built (on this thread, inside this request's own
    /// code) with its own network's encoder, and this request then still decodes with its own.
    private struct GetProfileSchedulingAnother: DecodableRequest {
        typealias Output = Profile
        let url: URL
        let other: Network
        let otherURL: URL
        let echoed: Box<String>
        let otherDone: XCTestExpectation
        func makeURL() throws -> URL { url }
        func output(from body: Data, response: HTTPResponse) throws -> Profile {
            let inner = Request<Data>(method: .post, url: otherURL, body: .json(Profile(firstName: "In", lastSeen: Date(timeIntervalSinceReferenceDate: 0)))).string()
            let echoed = self.echoed, done = otherDone
            other.schedule(inner) { result in
                echoed.value = try? result.get()
                done.fulfill()
            }
            return try decoder.decode(Profile.self, from: body)
        }
    }

    func testCodersBoundInsideAnotherRequestsCodeAreRestoredAfterwards() throws {
        let server = try makeServer().withStandardRoutes()
        let json = snakeJSON
        server.route("/profile") { _, writer in writer.respond(json: json) }
        let echoed = Box<String>()
        let otherDone = expectation(description: "the other network's request")
        let request = GetProfileSchedulingAnother(url: server.url("/profile"), other: makeNetwork(), otherURL: server.url("/echo"),
                                                  echoed: echoed, otherDone: otherDone)
        let outcome = result(of: request, on: snakeCaseNetwork())
        wait(for: [otherDone], timeout: 10)
        // The outer request decoded snake_case after the inner one had bound its plain coders.
        XCTAssertEqual(try XCTUnwrap(outcome).get(), profile)
        // The inner body was encoded by its own network's plain encoder, not the outer's.
        let inner = try XCTUnwrap(echoed.value)
        XCTAssertTrue(inner.contains(#""firstName":"In""#), inner)
        XCTAssertFalse(inner.contains("first_name"), inner)
    }

    func testSettingsAreThreadSafe() {
        let network = makeNetwork()
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            if index.isMultiple(of: 2) {
                network.jsonEncoder = JSONEncoder()
                network.jsonDecoder = JSONDecoder()
            } else {
                _ = network.jsonEncoder.outputFormatting
                _ = network.jsonDecoder.keyDecodingStrategy
            }
        }
        let encoder = JSONEncoder()
        network.jsonEncoder = encoder
        XCTAssertTrue(network.jsonEncoder === encoder, "the network keeps the very instance given")
    }
}
