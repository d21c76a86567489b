@testable import CourierCLI
import Courier
import Foundation
import XCTest

/// `--retry` by curl's rules, `-K` config files and the `.curlrc`, several URLs and `-Z`, and the
/// `User-Agent` and `Accept-Encoding` courier sends.
final class CLIRetryAndConfigTests: CLITestCase {
    func testRetryFollowsCurlsRulesOfWhatIsTransient() throws {
        let server = try makeServer().withStandardRoutes()
        // A 404 is final: one request.
        let notTransient = try courier("-s", "--retry", "3", server.url("/status?code=404").absoluteString)
        XCTAssertEqual(notTransient.status, 0)
        XCTAssertEqual(server.receivedRequests.filter { $0.path == "/status" }.count, 1)
        // With -f and --retry-all-errors it is retried.
        server.resetStatistics()
        let all = try courier("-sf", "--retry", "1", "--retry-all-errors", "--retry-delay", "0.1", server.url("/status?code=404").absoluteString)
        XCTAssertEqual(all.status, 22)
        XCTAssertEqual(server.receivedRequests.filter { $0.path == "/status" }.count, 2)
        // A refused connection only with --retry-connrefused.
        let port = TestServer.unusedPort()
        let refused = try courier("--retry", "1", "--retry-delay", "0.1", "http://127.0.0.1:\(port)/")
        XCTAssertEqual(refused.status, 7)
        XCTAssertFalse(refused.stderrText.contains("retrying"), refused.stderrText)
        let retried = try courier("--retry", "1", "--retry-connrefused", "--retry-delay", "0.1", "http://127.0.0.1:\(port)/")
        XCTAssertEqual(retried.status, 7)
        XCTAssertTrue(retried.stderrText.contains("retrying in 0.1 s, 0 retries left"), retried.stderrText)
    }

    func testRetryRulesDecideLikeCurl() {
        var rules = RetryRules(count: 2)
        var state = rules.start()
        XCTAssertEqual(rules.retryDelay(after: .ok, status: 503, retryAfter: nil, elapsed: 0, state: &state), 1)
        XCTAssertEqual(rules.retryDelay(after: .ok, status: 503, retryAfter: "5", elapsed: 0, state: &state), 5, "Retry-After wins")
        XCTAssertNil(rules.retryDelay(after: .ok, status: 503, retryAfter: nil, elapsed: 0, state: &state), "no retries left")
        state = rules.start()
        XCTAssertNil(rules.retryDelay(after: .ok, status: 404, retryAfter: nil, elapsed: 0, state: &state))
        XCTAssertNil(rules.retryDelay(after: .httpError, status: 503, retryAfter: nil, elapsed: 0, state: &state), "22 only with -f")
        XCTAssertEqual(rules.retryDelay(after: .timedOut, status: nil, retryAfter: nil, elapsed: 0, state: &state), 1)
        XCTAssertEqual(rules.retryDelay(after: .unknownHost, status: nil, retryAfter: nil, elapsed: 0, state: &state), 2, "doubling")
        rules = RetryRules(count: 5, maxTime: 10, fail: true)
        state = rules.start()
        XCTAssertEqual(rules.retryDelay(after: .httpError, status: 429, retryAfter: nil, elapsed: 1, state: &state), 1)
        XCTAssertNil(rules.retryDelay(after: .httpError, status: 429, retryAfter: "30", elapsed: 1, state: &state),
                     "a Retry-After past --retry-max-time")
        XCTAssertNil(rules.retryDelay(after: .timedOut, status: nil, retryAfter: nil, elapsed: 10, state: &state))
        XCTAssertNil(rules.retryDelay(after: .connectionRefused, status: nil, retryAfter: nil, elapsed: 0, state: &state))
        XCTAssertEqual(RetryRules.seconds(inRetryAfter: "Thu, 01 Jan 1970 00:01:00 GMT", now: Date(timeIntervalSince1970: 20)), 40)
    }

    func testAConfigFileAndTheCurlrcAreReadAsCurlReadsThem() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let config = folder.appendingPathComponent("job.conf")
        try Data("""
            # curl's syntax
            url = "\(server.url("/echo").absoluteString)"
            header = "X-From: config"
            -A "job/1.0"
            silent
            """.utf8).write(to: config)
        let result = try courier("-K", config.path)
        XCTAssertEqual(result.status, 0, result.stderrText)
        var request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.header("X-From"), "config")
        XCTAssertEqual(request.header("User-Agent"), "job/1.0")

        // ~/.curlrc applies to every request unless -q comes first.
        let home = try makeTemporaryDirectory()
        try Data("-H \"X-Rc: 1\"\n".utf8).write(to: home.appendingPathComponent(".curlrc"))
        XCTAssertEqual(try courier("-s", server.url("/echo").absoluteString, environment: ["HOME": home.path]).status, 0)
        request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.header("X-Rc"), "1")
        XCTAssertEqual(try courier("-q", "-s", server.url("/echo").absoluteString, environment: ["HOME": home.path]).status, 0)
        XCTAssertNil(try lastRequest(to: "/echo", on: server).header("X-Rc"))
    }

    func testSeveralURLsRunInTurnOrAtOnceWithCurlsExitStatus() throws {
        let server = try makeServer().withStandardRoutes()
        let refused = "http://127.0.0.1:\(TestServer.unusedPort())/"
        let last = try courier("-s", refused, server.url("/hello").absoluteString)
        XCTAssertEqual(last.status, 0, "the last transfer's status, as curl")
        XCTAssertEqual(last.stdoutText, "hello")
        XCTAssertEqual(try courier("-s", server.url("/hello").absoluteString, refused).status, 7)

        let folder = try makeTemporaryDirectory()
        let parallel = try start(["-sZ", "--parallel-max", "2", "-o", "a.txt", server.url("/hello").absoluteString,
                                  "-o", "b.txt", server.url("/status?code=404").absoluteString, "-f",
                                  "-o", "c.txt", server.url("/bytes?n=10").absoluteString], in: folder).finish()
        XCTAssertEqual(parallel.status, 22, "the first failure, in the order given")
        XCTAssertEqual(fileNames(in: folder), ["a.txt", "c.txt"])
        XCTAssertEqual(parallel.stderr, Data(), "-s is silent with -Z too")
    }

    func testWhatCourierSaysAboutItselfAndWhatItOffers() throws {
        let server = try makeServer().withStandardRoutes()
        XCTAssertEqual(try courier("-s", server.url("/echo").absoluteString).status, 0)
        var request = try lastRequest(to: "/echo", on: server)
        // curl's own: curl/ and the version of the libcurl in use, which servers look for.
        let curlAgent = try XCTUnwrap(Network.Engine.curlFeatures.map { "curl/\($0.version)" })
        XCTAssertEqual(request.header("User-Agent"), curlAgent, "curl's User-Agent, on both engines")
        if let curl = try RealCurl.run(["-s", server.url("/echo").absoluteString]) {
            XCTAssertEqual(curl.status, 0)
            // The real curl (the last request now) sends the same words where courier runs on the
            // libcurl that curl does: curl's User-Agent carries the tool's own version, which a
            // libcurl loaded in its place (the matrix's 7.68 shim) does not change.
            if RealCurl.courierRunsOnTheMeasuredLibcurl {
                XCTAssertEqual(try lastRequest(to: "/echo", on: server).header("User-Agent"), curlAgent)
            }
        }
        XCTAssertEqual(try courier("-s", "-H", "User-Agent:", server.url("/echo").absoluteString).status, 0)
        let removed = try lastRequest(to: "/echo", on: server).header("User-Agent")
        let engine = Network.Engine.automatic.resolved
        if engine == .curl { XCTAssertNil(removed, "-H 'User-Agent:' sends none, as curl") }
        XCTAssertEqual(try courier("-s", "-A", "a", "-H", "User-Agent: b", server.url("/echo").absoluteString).status, 0)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).header("User-Agent"), "b", "-H wins over -A, as in curl")
        if engine == .curl {
            XCTAssertNil(request.header("Accept-Encoding"), "nothing offered without --compressed")
        }
        XCTAssertEqual(try courier("-s", "-A", "", server.url("/echo").absoluteString).status, 0)
        request = try lastRequest(to: "/echo", on: server)
        if engine == .curl {
            XCTAssertNil(request.header("User-Agent"), "-A '' sends none, as curl")
        } else {
            XCTAssertNotEqual(request.header("User-Agent"), curlAgent, "URLSession adds its own")
        }
        XCTAssertEqual(try courier("-s", "--compressed", server.url("/echo").absoluteString).status, 0)
        XCTAssertTrue(try lastRequest(to: "/echo", on: server).header("Accept-Encoding")?.contains("gzip") == true)
        XCTAssertTrue(try courier("--version").stdoutText.hasPrefix("courier \(CourierVersion.current)\n"))
    }

    func testURLQueryAndShowError() throws {
        let server = try makeServer().withStandardRoutes()
        XCTAssertEqual(try courier("-s", "--url-query", "q=a b&c", "--url-query", "+raw=%41", server.url("/echo?x=1").absoluteString).status, 0)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).query, "x=1&q=a+b%26c&raw=%41")
        let refused = "http://127.0.0.1:\(TestServer.unusedPort())/"
        XCTAssertEqual(try courier("-s", refused).stderr, Data(), "-s: no message, as curl")
        XCTAssertTrue(try courier("-sS", refused).stderrText.contains("could not connect"))
    }
}
