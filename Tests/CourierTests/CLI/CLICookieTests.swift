@testable import CourierCLI
import Foundation
import XCTest

/// `-b` and `-c`: cookies sent, cookies saved in curl's cookie-file format, and a jar that
/// `courier` and `curl` can both read.
final class CLICookieTests: CLITestCase {
    /// An expiry 30 days ahead, whole seconds, as both tools write it.
    private let expiry = Int64(Date().timeIntervalSince1970) + 30 * 86_400

    /// `/cookies/set` sets a session HttpOnly cookie, one with an expiry, and one for a path;
    /// `/cookies/show` and `/other/show` answer with the `Cookie` header they got.
    private func cookieServer() throws -> TestServer {
        let server = try makeServer()
        let expires = Self.httpDate(expiry)
        server.route("/cookies/set") { _, writer in
            writer.writeHead(status: 200, headers: [
                ("Set-Cookie", "sid=abc123; Path=/; HttpOnly"),
                ("Set-Cookie", "pref=dark; Expires=\(expires); Path=/"),
                ("Set-Cookie", "scoped=1; Path=/cookies"),
                ("Content-Length", "2"),
            ])
            writer.write(Data("ok".utf8))
        }
        for path in ["/cookies/show", "/other/show"] {
            server.route(path) { request, writer in writer.respond(status: 200, text: request.header("Cookie") ?? "none") }
        }
        return server
    }

    func testCookieStringsAreSent() throws {
        let server = try cookieServer()
        let result = try courier("-b", "a=1; b=two", "--cookie", "c=3", server.url("/cookies/show").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(Self.pairs(result.stdoutText), ["a=1", "b=two", "c=3"])
    }

    func testWithoutBOrCNoCookieIsKeptBetweenURLs() throws {
        let server = try cookieServer()
        let urls = [server.url("/cookies/set").absoluteString, server.url("/cookies/show").absoluteString]
        // curl's cookie engine is off unless -b or -c turns it on (a file that does not exist does).
        let off = try start(["-s"] + urls).finish()
        XCTAssertEqual(off.stdoutText, "oknone", off.stderrText)
        let on = try start(["-s", "-b", "no-such-file"] + urls).finish()
        // In curl's order: the longer path, then the longer name first.
        XCTAssertEqual(on.stdoutText, "okscoped=1; pref=dark; sid=abc123", on.stderrText)
        for (arguments, result) in [(["-s"] + urls, off), (["-s", "-b", "no-such-file"] + urls, on)] {
            if let curl = try RealCurl.run(arguments) { XCTAssertEqual(curl.stdoutText, result.stdoutText, "as curl") }
        }
    }

    func testTheJarIsWrittenInCurlsFormatAndReadBack() throws {
        let server = try cookieServer()
        let jar = try makeTemporaryDirectory().appendingPathComponent("jar.txt")

        let saved = try courier("-b", "from-string=1", "-c", jar.path, server.url("/cookies/set").absoluteString)
        XCTAssertEqual(saved.status, 0, saved.stderrText)
        let text = try String(contentsOf: jar, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# Netscape HTTP Cookie File\n"), text)
        XCTAssertEqual(Set(Self.cookieLines(text)), [
            "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc123",
            "127.0.0.1\tFALSE\t/\tFALSE\t\(expiry)\tpref\tdark",
            "127.0.0.1\tFALSE\t/cookies\tFALSE\t0\tscoped\t1",
        ], "the -b string cookie is sent, not saved, as in curl:\n\(text)")

        // Read back: each cookie goes where its domain and path allow.
        let shown = try courier("-b", jar.path, server.url("/cookies/show").absoluteString)
        XCTAssertEqual(Self.pairs(shown.stdoutText), ["pref=dark", "scoped=1", "sid=abc123"])
        let elsewhere = try courier("-b", jar.path, server.url("/other/show").absoluteString)
        XCTAssertEqual(Self.pairs(elsewhere.stdoutText), ["pref=dark", "sid=abc123"])
    }

    func testAJarWrittenByCurlIsReadAndCourierWritesTheSameOne() throws {
        guard let curl = Self.curlExecutable else { throw XCTSkip("curl is not installed; the comparison with its jar is skipped") }
        let server = try cookieServer()
        let folder = try makeTemporaryDirectory()
        let curlJar = folder.appendingPathComponent("curl.txt")
        let courierJar = folder.appendingPathComponent("courier.txt")

        let curlRun = try Self.run(curl, ["-s", "-o", "/dev/null", "-c", curlJar.path, server.url("/cookies/set").absoluteString])
        XCTAssertEqual(curlRun, 0)
        XCTAssertEqual(try courier("-c", courierJar.path, server.url("/cookies/set").absoluteString).status, 0)

        let curlText = try String(contentsOf: curlJar, encoding: .utf8)
        let courierText = try String(contentsOf: courierJar, encoding: .utf8)
        // Byte for byte: curl's header lines, its cookie lines, newest first as curl orders them.
        XCTAssertEqual(courierText, curlText)

        // curl's jar in courier, courier's jar in curl.
        let fromCurlJar = try courier("-b", curlJar.path, server.url("/cookies/show").absoluteString)
        XCTAssertEqual(Self.pairs(fromCurlJar.stdoutText), ["pref=dark", "scoped=1", "sid=abc123"])
        let shownByCurl = folder.appendingPathComponent("shown.txt")
        XCTAssertEqual(try Self.run(curl, ["-s", "-o", shownByCurl.path, "-b", courierJar.path, server.url("/cookies/show").absoluteString]), 0)
        XCTAssertEqual(Self.pairs(try String(contentsOf: shownByCurl, encoding: .utf8)), ["pref=dark", "scoped=1", "sid=abc123"])
    }

    func testAHandWrittenJarIsFilteredByDomainPathAndExpiry() throws {
        let server = try cookieServer()
        let jar = try makeFile(named: "jar.txt", content: Data("""
            # Netscape HTTP Cookie File
            # comments and blank lines are skipped

            127.0.0.1\tFALSE\t/\tFALSE\t0\tkept\tyes
            #HttpOnly_127.0.0.1\tFALSE\t/cookies\tFALSE\t\(expiry)\tonly-http\tyes
            127.0.0.1\tFALSE\t/\tFALSE\t1000\texpired\tno
            127.0.0.1\tFALSE\t/elsewhere\tFALSE\t0\twrong-path\tno
            example.com\tTRUE\t/\tFALSE\t0\twrong-domain\tno
            127.0.0.1\tFALSE\t/\tTRUE\t0\tsecure-only\tno
            not a cookie line
            127.0.0.1\tFALSE\t/\tFALSE\t0\tempty-value\t

            """.utf8))
        let result = try courier("-b", jar.path, server.url("/cookies/show").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(Self.pairs(result.stdoutText), ["empty-value=", "kept=yes", "only-http=yes"])
    }

    func testAMissingCookieFileIsNoCookiesAndTheJarIsStillWritten() throws {
        let server = try cookieServer()
        let jar = try makeTemporaryDirectory().appendingPathComponent("new-jar.txt")
        // The usual idiom: read and write the same jar, which does not exist on the first run.
        let result = try courier("-b", jar.path, "-c", jar.path, server.url("/cookies/set").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(Self.cookieLines(try String(contentsOf: jar, encoding: .utf8)).count, 3)

        let unwritable = try courier("-c", "/no/such/folder/jar.txt", server.url("/cookies/set").absoluteString)
        XCTAssertEqual(unwritable.status, 23, unwritable.stderrText)
        XCTAssertTrue(unwritable.stderrText.contains("cannot save cookies to /no/such/folder/jar.txt"), unwritable.stderrText)
    }

    func testMaxAgeSetsTheExpiryAndZeroDeletes() throws {
        let server = try makeServer()
        server.route("/age") { _, writer in
            writer.writeHead(status: 200, headers: [("Set-Cookie", "hour=1; Max-Age=3600"), ("Set-Cookie", "gone=1; Max-Age=0"),
                                                    ("Content-Length", "0")])
        }
        let jar = try makeTemporaryDirectory().appendingPathComponent("jar.txt")
        let before = Int64(Date().timeIntervalSince1970)
        XCTAssertEqual(try courier("-c", jar.path, server.url("/age").absoluteString).status, 0)
        let after = Int64(Date().timeIntervalSince1970)

        let lines = Self.cookieLines(try String(contentsOf: jar, encoding: .utf8))
        XCTAssertEqual(lines.count, 1, "\(lines)")
        let fields = try XCTUnwrap(lines.first?.split(separator: "\t").map(String.init))
        XCTAssertEqual(fields[5], "hour")
        let expires = try XCTUnwrap(Int64(fields[4]))
        XCTAssertTrue((before + 3600...after + 3600).contains(expires), "\(expires) not within [\(before + 3600), \(after + 3600)]")
    }

    func testCookieOptionsAreForSingleRequests() throws {
        assertUsageError(try courier("download", "-b", "a=1", "http://127.0.0.1:1/a"), mentions: "-b is for single requests")
        assertUsageError(try courier("download", "-c", "jar", "http://127.0.0.1:1/a"), mentions: "-c is for single requests")
    }

    func testTheFileFormatRoundTrips() {
        let entries = [
            CookieFile.Entry(domain: "example.com", includesSubdomains: true, path: "/", secure: true, expires: 2_000_000_000,
                             name: "a", value: "1", httpOnly: true),
            CookieFile.Entry(domain: "h.example", includesSubdomains: false, path: "/p", secure: false, expires: 0,
                             name: "b", value: "x y", httpOnly: false),
        ]
        let text = CookieFile.render(entries)
        XCTAssertTrue(text.contains("#HttpOnly_.example.com\tTRUE\t/\tTRUE\t2000000000\ta\t1\n"), text)
        XCTAssertEqual(CookieFile.parse(text), entries)
    }

    // MARK: - Support

    /// The `name=value` pairs of a `Cookie` header, sorted.
    private static func pairs(_ header: String) -> [String] {
        header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.sorted()
    }

    /// The lines of a cookie file that hold cookies.
    private static func cookieLines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("#HttpOnly_") || (!$0.hasPrefix("#") && !$0.isEmpty) }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func httpDate(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The `curl` command, if one is on the PATH.
    private static let curlExecutable: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":")
        .map { URL(fileURLWithPath: String($0)).appendingPathComponent("curl") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Runs a program to its end and returns its exit status.
    private static func run(_ executable: URL, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
