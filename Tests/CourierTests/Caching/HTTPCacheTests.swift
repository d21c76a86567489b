import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// RFC 9111's rules, one test each, against a loopback route that counts what reaches it, on
/// both engines (the suite runs once per engine).
final class HTTPCacheTests: XCTestCase {
    func testAFreshResponseIsAnsweredFromTheCacheWithNoRequestSent() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60"), ("Date", httpDate())]))
        let network = makeCachingNetwork()
        let first = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(first.response.cacheStatus, .network)
        let second = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(route.count, 1, "the second request never reached the server")
        XCTAssertEqual(second.response.cacheStatus, .cached)
        XCTAssertEqual(second.value, Data("stored body".utf8))
        XCTAssertEqual(second.statusCode, 200)
        XCTAssertNotNil(second.headers["Age"].flatMap(Int.init), "a cached answer says how old it is")
        XCTAssertEqual(second.headers["Cache-Control"], "max-age=60")
    }

    /// RFC 9111 §4: a stored `GET` may answer a `HEAD`; a `HEAD` itself stores nothing.
    func testAHeadIsAnsweredFromAFreshStoredGetAndStoresNothingItself() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\""),
                                                                           ("Date", httpDate())]))
        let network = makeCachingNetwork()
        let head = Request<Data>(method: .head, url: server.url("/r")).withResponse()
        let beforeGET = try network.scheduleSynchronously(head, timeout: 20).get()
        XCTAssertEqual(beforeGET.response.cacheStatus, .network)
        let stillNothing = try network.scheduleSynchronously(head, timeout: 20).get()
        XCTAssertEqual(stillNothing.response.cacheStatus, .network, "a HEAD's answer is not stored")
        XCTAssertEqual(route.count, 2)

        _ = try cachedGET(server.url("/r"), on: network)
        let answered = try network.scheduleSynchronously(head, timeout: 20).get()
        XCTAssertEqual(route.count, 3, "the HEAD after the GET never reached the server")
        XCTAssertEqual(answered.response.cacheStatus, .cached)
        XCTAssertEqual(answered.value, Data())
        XCTAssertEqual(answered.headers["ETag"], "\"v1\"")
        XCTAssertEqual(answered.headers["Content-Length"], "11", "the GET's length, as a HEAD's answer carries it")
        XCTAssertEqual(route.requests.map(\.method), ["HEAD", "HEAD", "GET"])
    }

    func testNoStoreIsNeverStoredAndANetworkWithoutACacheStoresNothing() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "no-store, max-age=60")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        _ = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(route.count, 2)

        route.answer(200, [("Cache-Control", "max-age=60")])
        network.cache = nil
        _ = try cachedGET(server.url("/r"), on: network)
        _ = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(route.count, 4, "no cache, no cached answers")
    }

    func testAStaleResponseIsRevalidatedWithItsETagAndA304ServesTheStoredBodyWithTheNewFields() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v1\""),
                                                                          ("X-Version", "1")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        route.answer(304, [("ETag", "\"v1\""), ("X-Version", "2"), ("Cache-Control", "max-age=0")], body: "")
        let second = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(route.count, 2)
        XCTAssertEqual(route.requests.last?.header("If-None-Match"), "\"v1\"")
        XCTAssertEqual(second.response.cacheStatus, .revalidated)
        XCTAssertEqual(second.statusCode, 200, "the stored status, not the 304")
        XCTAssertEqual(second.value, Data("stored body".utf8))
        XCTAssertEqual(second.headers["X-Version"], "2", "the 304's fields replace the stored ones")
        XCTAssertEqual(second.headers["Content-Length"], "11", "but not the framing of the stored body")

        // A changed resource: the full answer replaces the stored one.
        route.answer(200, [("Cache-Control", "max-age=0"), ("ETag", "\"v2\"")], body: "new body")
        let third = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(third.response.cacheStatus, .network)
        XCTAssertEqual(third.value, Data("new body".utf8))
        route.answer(304, [("ETag", "\"v2\"")], body: "")
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).value, Data("new body".utf8))
        XCTAssertEqual(route.requests.last?.header("If-None-Match"), "\"v2\"")
    }

    func testLastModifiedIsSentAsIfModifiedSince() throws {
        let server = try makeServer()
        let modified = httpDate(-3600)
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "no-cache"), ("Last-Modified", modified)]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        route.answer(304, [], body: "")
        let second = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(route.requests.last?.header("If-Modified-Since"), modified)
        XCTAssertNil(route.requests.last?.header("If-None-Match"))
        XCTAssertEqual(second.response.cacheStatus, .revalidated, "no-cache: stored, but asked about every time")
    }

    func testVarySelectsTheStoredResponseByTheRequestsFieldsAndVaryStarIsNeverStored() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network, headers: ["Accept-Language": "fr"])
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Accept-Language": "en"]).response.cacheStatus, .network)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Accept-Language": "fr"]).response.cacheStatus, .cached)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Accept-Language": "en"]).response.cacheStatus, .cached)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).response.cacheStatus, .network, "no field is another variant")
        XCTAssertEqual(route.count, 3)

        let star = CountingRoute(on: server, path: "/star", .init(headers: [("Cache-Control", "max-age=60"), ("Vary", "*")]))
        _ = try cachedGET(server.url("/star"), on: network)
        _ = try cachedGET(server.url("/star"), on: network)
        XCTAssertEqual(star.count, 2)
    }

    func testASuccessfulUnsafeRequestDropsWhatWasStoredForItsURL() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).response.cacheStatus, .cached)
        _ = try network.scheduleSynchronously(Request<Data>(method: .post, url: server.url("/r"), body: .text("x")), timeout: 20).get()
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).response.cacheStatus, .network)
        XCTAssertEqual(route.count, 3)
        XCTAssertEqual(route.requests.map(\.method), ["GET", "POST", "GET"])
    }

    func testARequestWithAuthorizationIsStoredOnlyWhereTheResponseAllowsIt() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60")]))
        let network = makeCachingNetwork()
        let credentials = ["Authorization": "Bearer secret"]
        _ = try cachedGET(server.url("/r"), on: network, headers: credentials)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: credentials).response.cacheStatus, .network)
        route.answer(200, [("Cache-Control", "public, max-age=60")])
        _ = try cachedGET(server.url("/r"), on: network, headers: credentials)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: credentials).response.cacheStatus, .cached)
        XCTAssertEqual(route.count, 3)
    }

    func testFreshnessFromExpiresAgainstDateAndFromLastModifiedByHeuristic() throws {
        let server = try makeServer()
        let expires = CountingRoute(on: server, path: "/expires", .init(headers: [("Date", httpDate()), ("Expires", httpDate(120))]))
        let expired = CountingRoute(on: server, path: "/expired", .init(headers: [("Date", httpDate()), ("Expires", httpDate(-120))]))
        let invalid = CountingRoute(on: server, path: "/invalid", .init(headers: [("Date", httpDate()), ("Expires", "0"),
                                                                                  ("ETag", "\"e\"")]))
        let heuristic = CountingRoute(on: server, path: "/heuristic", .init(headers: [("Date", httpDate()),
                                                                                      ("Last-Modified", httpDate(-10 * 86_400))]))
        let network = makeCachingNetwork()
        for path in ["/expires", "/expired", "/invalid", "/heuristic"] {
            _ = try cachedGET(server.url(path), on: network)
            _ = try cachedGET(server.url(path), on: network)
        }
        XCTAssertEqual(expires.count, 1)
        XCTAssertEqual(expired.count, 0 + 2, "an Expires in the past is stale at once")
        XCTAssertEqual(invalid.count, 2, "an Expires that is no date has passed")
        XCTAssertEqual(heuristic.count, 1, "a tenth of ten days since Last-Modified is fresh")
    }

    func testAgeCountsAgainstTheLifetimeAndHostileNumbersNeverMakeAStaleResponseFresh() throws {
        let server = try makeServer()
        let old = CountingRoute(on: server, path: "/old", .init(headers: [("Cache-Control", "max-age=60"), ("Age", "100")]))
        let negative = CountingRoute(on: server, path: "/negative", .init(headers: [("Cache-Control", "max-age=60"), ("Age", "-5")]))
        let huge = CountingRoute(on: server, path: "/huge", .init(headers: [("Cache-Control", "max-age=99999999999999999999999")]))
        let ancient = CountingRoute(on: server, path: "/ancient", .init(headers: [("Cache-Control", "max-age=60"),
                                                                                  ("Date", "Sat, 01 Jan 1000 00:00:00 GMT")]))
        let garbage = CountingRoute(on: server, path: "/garbage", .init(headers: [("Cache-Control", "max-age=\"x\", max-age=5")]))
        let network = makeCachingNetwork()
        for path in ["/old", "/negative", "/huge", "/ancient", "/garbage"] {
            _ = try cachedGET(server.url(path), on: network)
            _ = try cachedGET(server.url(path), on: network)
        }
        XCTAssertEqual(old.count, 2, "100 s old at 60 s of life: stale")
        XCTAssertEqual(negative.count, 1, "a negative Age is no age")
        XCTAssertEqual(huge.count, 1, "a lifetime past 2^31 s is 2^31 s")
        XCTAssertEqual(ancient.count, 2, "dated a millennium ago: stale")
        XCTAssertEqual(garbage.count, 2, "a lifetime that is no number, or given twice, is none")
    }

    func testTheRequestsOwnDirectives() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v\"")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        route.answer(304, [("ETag", "\"v\"")], body: "")
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Cache-Control": "no-cache"]).response.cacheStatus, .revalidated)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Cache-Control": "max-age=0"]).response.cacheStatus, .revalidated)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Pragma": "no-cache"]).response.cacheStatus, .revalidated)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Cache-Control": "min-fresh=3600"]).response.cacheStatus,
                       .revalidated)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).response.cacheStatus, .cached)
        XCTAssertEqual(route.count, 5)
        route.answer(200, [("Cache-Control", "max-age=60")], body: "other")
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Cache-Control": "no-store"]).value, Data("other".utf8))
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).value, Data("stored body".utf8), "no-store stored nothing")

        let empty = try cachedGET(server.url("/nothing"), on: network, headers: ["Cache-Control": "only-if-cached"], accepting: [504])
        XCTAssertEqual(empty.statusCode, 504, "only-if-cached with nothing stored (RFC 9111 §5.2.1.7)")
        XCTAssertEqual(route.count, 6)
    }

    func testMaxStaleServesAStaleResponseUnlessItMustBeRevalidated() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=1"), ("Age", "30")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Cache-Control": "max-stale=3600"]).response.cacheStatus, .cached)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Cache-Control": "max-stale=5"]).response.cacheStatus, .network)
        route.answer(200, [("Cache-Control", "max-age=1, must-revalidate"), ("Age", "30")])
        _ = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network, headers: ["Cache-Control": "max-stale"]).response.cacheStatus, .network)
        XCTAssertEqual(route.count, 4)
    }

    func testStaleIfErrorAnswersWithTheStoredResponseWhenTheServerFailsOrIsGone() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=0, stale-if-error=600"),
                                                                          ("ETag", "\"v\"")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        route.answer(503, [], body: "down")
        let failed = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(failed.response.cacheStatus, .staleAfterError)
        XCTAssertEqual(failed.statusCode, 200)
        XCTAssertEqual(failed.value, Data("stored body".utf8))
        XCTAssertEqual(route.count, 2)
        server.stop()
        let gone = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(gone.response.cacheStatus, .staleAfterError)
        XCTAssertEqual(gone.value, Data("stored body".utf8))

        // Without stale-if-error, a failure is the answer.
        let other = try makeServer()
        let plain = CountingRoute(on: other, path: "/r", .init(headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v\"")]))
        _ = try cachedGET(other.url("/r"), on: network)
        plain.answer(503, [], body: "down")
        XCTAssertThrowsError(try cachedGET(other.url("/r"), on: network)) { error in
            guard case NetworkError.httpStatus(let response) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(response.statusCode, 503)
        }
    }

    func testDownloadsStreamsRangesAndConditionsOfTheCallersOwnAlwaysReachTheServer() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v\"")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).response.cacheStatus, .cached)
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("f")
        _ = try network.downloadSynchronously(Request<Data>.get(server.url("/r")), to: file, timeout: 20).get()
        XCTAssertEqual(try Data(contentsOf: file), Data("stored body".utf8))
        let streamed = folder.appendingPathComponent("s")
        XCTAssertTrue(FileManager.default.createFile(atPath: streamed.path, contents: nil))
        let handle = try FileHandle(forWritingTo: streamed)
        _ = try network.streamSynchronously(Request<Data>.get(server.url("/r")), to: handle, timeout: 20).get()
        try handle.close()
        XCTAssertEqual(try Data(contentsOf: streamed), Data("stored body".utf8))
        _ = try cachedGET(server.url("/r"), on: network, headers: ["Range": "bytes=0-3"])
        route.answer(304, [], body: "")
        let conditional = try cachedGET(server.url("/r"), on: network, headers: ["If-None-Match": "\"v\""], accepting: [304])
        XCTAssertEqual(conditional.statusCode, 304, "the caller's own condition gets the server's answer")
        XCTAssertEqual(route.count, 5)
    }

    /// A cached answer's `Set-Cookie` is not taken again: it would bring back a cookie deleted since.
    func testACachedAnswerDoesNotSetItsCookiesAgain() throws {
        let server = try makeServer()
        _ = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60"), ("Set-Cookie", "session=1; Path=/")]))
        let echo = CountingRoute(on: server, path: "/echo", .init(headers: []))
        let delete = CountingRoute(on: server, path: "/logout", .init(headers: [("Set-Cookie", "session=; Path=/; Max-Age=0")]))
        let network = makeCachingNetwork()
        _ = try cachedGET(server.url("/r"), on: network)
        _ = try cachedGET(server.url("/logout"), on: network)
        XCTAssertEqual(try cachedGET(server.url("/r"), on: network).response.cacheStatus, .cached)
        _ = try cachedGET(server.url("/echo"), on: network)
        XCTAssertNil(echo.requests.last?.header("Cookie"), "the deleted cookie stays deleted")
        XCTAssertEqual(delete.count, 1)
    }

    /// A stored error answer (a 404 with a lifetime) fails as the first did, and its error says
    /// where it came from.
    func testAStoredErrorStatusFailsAgainAndItsDescriptionSaysItCameFromTheCache() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/gone", .init(status: 404, headers: [("Cache-Control", "max-age=60")]))
        let network = makeCachingNetwork()
        for expected in ["", " (cached, from the cache)"] {
            XCTAssertThrowsError(try cachedGET(server.url("/gone"), on: network)) { error in
                guard case NetworkError.httpStatus(let response) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(response.statusCode, 404)
                XCTAssertTrue("\(error)".hasPrefix("HTTP 404 from \(server.url("/gone").absoluteString)\(expected)"), "\(error)")
            }
        }
        XCTAssertEqual(route.count, 1)
    }

    private final class ResponseWatch: NetworkObserver, Sendable {
        let onResponse: @Sendable (HTTPResponse) -> Void
        init(_ onResponse: @escaping @Sendable (HTTPResponse) -> Void) { self.onResponse = onResponse }
        func didReceive(_ response: HTTPResponse, context: RequestContext) { onResponse(response) }
    }

    /// RFC 5861: stale within its window, the stored response answers at once, and one
    /// revalidation goes out meanwhile; the next request gets what it brought.
    func testStaleWhileRevalidateAnswersAtOnceAndRefreshesInTheBackground() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=1, stale-while-revalidate=600"),
                                                                          ("Age", "30"), ("ETag", "\"v1\"")]))
        let network = makeCachingNetwork()
        let refreshed = expectation(description: "the background revalidation's answer")
        network.observers = [ResponseWatch { response in
            if response.text == "fresh" { refreshed.fulfill() }
        }]
        _ = try cachedGET(server.url("/r"), on: network)
        route.answer(200, [("Cache-Control", "max-age=600"), ("ETag", "\"v2\"")], body: "fresh")
        let stale = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(stale.response.cacheStatus, .cached)
        XCTAssertEqual(stale.value, Data("stored body".utf8), "answered at once with what was stored")
        wait(for: [refreshed], timeout: 10)
        XCTAssertEqual(route.requests.last?.header("If-None-Match"), "\"v1\"", "the refresh asked about the stored response")
        let next = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(next.response.cacheStatus, .cached)
        XCTAssertEqual(next.value, Data("fresh".utf8))
        XCTAssertEqual(route.count, 2)
    }
}
