import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Passwords and tokens never reach a log line or an error description: ``Redaction`` itself,
/// ``LoggingObserver`` over real requests (attempts and retries), and ``NetworkError``'s texts.
final class RedactionTests: XCTestCase {
    // MARK: - The rule

    func testURLPasswordIsHiddenAndTheUserNameKept() {
        let redaction = Redaction.standard
        XCTAssertEqual(redaction.redact(URL(string: "https://ann:s3cret@example.com:8443/a/b?page=2#top")!),
                       "https://ann:<redacted>@example.com:8443/a/b?page=2#top")
        // A user name alone is not a secret; nothing to hide.
        XCTAssertEqual(redaction.redact(URL(string: "https://ann@example.com/")!), "https://ann@example.com/")
        XCTAssertEqual(redaction.redact(URL(string: "https://example.com/users/@ann:x")!), "https://example.com/users/@ann:x")
        // Percent-encoded and raw `@` in the password.
        XCTAssertEqual(redaction.redact(urlString: "http://u:p%40ss@h/"), "http://u:<redacted>@h/")
        XCTAssertEqual(redaction.redact(urlString: "http://u:p@ss@h/"), "http://u:<redacted>@h/")
        // Text that does not parse as a URL (a raw `/` in the password) still hides it.
        XCTAssertFalse(redaction.redact(urlString: "http://u:pa/ss@h/").contains("pa/ss"))
        XCTAssertEqual(redaction.redact(urlString: "//u:pw@h/x"), "//u:<redacted>@h/x")
    }

    func testQueryAndFragmentParametersAreHiddenByNameWithoutRegardToCase() {
        let redaction = Redaction.standard
        XCTAssertEqual(redaction.redact(urlString: "https://h/p?ACCESS_TOKEN=t1&page=2&token=t2&x-amz-signature=s&Signature=s2&q=token"),
                       "https://h/p?ACCESS_TOKEN=<redacted>&page=2&token=<redacted>&x-amz-signature=<redacted>&Signature=<redacted>&q=token")
        // OAuth's implicit flow returns the token in the fragment.
        XCTAssertEqual(redaction.redact(urlString: "https://app/cb#access_token=t&state=1"), "https://app/cb#access_token=<redacted>&state=1")
        // A `@` or `:` in the query is not taken for user information.
        XCTAssertEqual(redaction.redact(urlString: "https://h/p?mail=a:b@c"), "https://h/p?mail=a:b@c")
        // Relative text (a Location value).
        XCTAssertEqual(redaction.redact(urlString: "/next?token=t"), "/next?token=<redacted>")
        // Percent-encoded names are compared decoded.
        XCTAssertEqual(redaction.redact(urlString: "https://h/?access%5Ftoken=t"), "https://h/?access%5Ftoken=<redacted>")

        let custom = Redaction(headerNames: [], queryParameters: ["Session"])
        XCTAssertEqual(custom.redact(urlString: "https://h/?session=s&token=t"), "https://h/?session=<redacted>&token=t")
    }

    func testHeaderValuesAreHiddenByNameAndURLValuedHeadersByTheURLRule() {
        let redaction = Redaction.standard
        for name in ["Authorization", "authorization", "PROXY-AUTHORIZATION", "Cookie", "set-cookie"] {
            XCTAssertEqual(redaction.redact(headerValue: "secret", name: name), "<redacted>", name)
        }
        XCTAssertEqual(redaction.redact(headerValue: "text/plain", name: "Content-Type"), "text/plain")
        XCTAssertEqual(redaction.redact(headerValue: "https://u:secret@h/x?token=secret", name: "location"),
                       "https://u:<redacted>@h/x?token=<redacted>")
        XCTAssertEqual(redaction.redact(headerValue: "https://u:secret@h/", name: "Referer"), "https://u:<redacted>@h/")
    }

    // MARK: - NetworkError

    func testNetworkErrorDescriptionsHideURLCredentials() throws {
        let url = try XCTUnwrap(URL(string: "http://user:secret@127.0.0.1:9/x?access_token=secret"))
        let errors: [NetworkError] = [
            .httpStatus(HTTPResponse(statusCode: 503, url: url)),
            .tooManyRedirects(HTTPResponse(statusCode: 302, headers: ["Location": url.absoluteString], url: url)),
        ]
        for error in errors {
            let text = try XCTUnwrap(error.errorDescription)
            XCTAssertFalse(text.contains("secret"), text)
            XCTAssertTrue(text.contains("<redacted>"), text)
        }
    }

    func testInvalidURLDetailsHideCredentials() throws {
        let network = makeNetwork()
        let requests = [
            Request<Data>.get("ftp://user:secret@host/file?token=secret"),
            Request<Data>.get("http://user:secret@[not a url"),
        ]
        for request in requests {
            let error = try XCTUnwrap(networkError(result(of: request, on: network)))
            guard case let .invalidURL(detail) = error else { return XCTFail("expected invalidURL, got \(error)") }
            XCTAssertFalse(detail.contains("secret"), detail)
            XCTAssertFalse(error.localizedDescription.contains("secret"), error.localizedDescription)
        }
    }

    // MARK: - LoggingObserver over real requests

    func testLoggingObserverNeverWritesTheURLPasswordOrTokenOnAttemptsAndRetries() throws {
        let server = try makeServer()
        server.routeBusyOnce("/flaky", then: "ok", headers: ["Content-Location": "/flaky?access_token=secret"])
        let lines = Box<[String]>([])
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
        network.observers = [LoggingObserver { line in lines.mutate { $0?.append(line) } }]
        let url = try XCTUnwrap(URL(string: "http://user:secret@127.0.0.1:\(server.port)/flaky?access_token=secret&page=1"))

        let body = try result(of: Request<Data>.get(url), on: network)?.get()
        XCTAssertEqual(body, Data("ok".utf8))
        XCTAssertEqual(server.receivedRequests.filter { $0.path == "/flaky" }.count, 2, "an attempt and a retry")

        let log = (lines.value ?? []).joined(separator: "\n")
        XCTAssertEqual(log.components(separatedBy: "→ GET").count - 1, 2, log)
        XCTAssertTrue(log.contains("↻ retrying"), log)
        XCTAssertTrue(log.contains("← 503"), log)
        XCTAssertTrue(log.contains("← 200"), log)
        XCTAssertTrue(log.contains("user:<redacted>@127.0.0.1"), log)
        XCTAssertTrue(log.contains("access_token=<redacted>&page=1"), log)
        XCTAssertFalse(log.contains("secret"), log)
    }

    func testLoggingObserverHidesTheQueryParametersItIsGivenWithoutRegardToCase() throws {
        let server = try makeServer().withStandardRoutes()
        let lines = Box<[String]>([])
        let network = makeNetwork()
        network.observers = [LoggingObserver(redactingQueryParameters: ["api_key"]) { line in lines.mutate { $0?.append(line) } }]
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(server.port)/status?code=404&API_KEY=k3y&token=visible"))

        _ = result(of: Request<Data>.get(url), on: network)

        let log = (lines.value ?? []).joined(separator: "\n")
        XCTAssertTrue(log.contains("API_KEY=<redacted>"), log)
        XCTAssertTrue(log.contains("✗ HTTP 404"), log)
        XCTAssertFalse(log.contains("k3y"), log)
        // The list replaces the defaults: `token` was not named, so it shows.
        XCTAssertTrue(log.contains("token=visible"), log)
    }
}
