@testable import CourierCLI
import Courier
import Foundation
import XCTest

/// The argument conventions, checked in-process (no subprocess needed to read a command line).
final class CLIArgumentTests: XCTestCase {
    private func parse(_ arguments: String...) throws -> Options {
        try ArgumentParser.parse(arguments)
    }

    private func plan(_ arguments: String...) throws -> Invocation {
        try Invocation(ArgumentParser.parse(arguments), standardInput: { Data("from stdin".utf8) })
    }

    func testCommandIsTheFirstPositionalThatNamesOne() throws {
        let implicit = try parse("-s", "example.com")
        XCTAssertEqual(implicit.command, .request(.get))
        XCTAssertFalse(implicit.commandIsExplicit)
        XCTAssertEqual(implicit.urls, ["example.com"])

        let explicit = try parse("-s", "put", "example.com")
        XCTAssertEqual(explicit.command, .request(.put))
        XCTAssertTrue(explicit.commandIsExplicit)

        // Only the first positional can be a command; a later one is a URL.
        XCTAssertEqual(try parse("download", "a", "get").urls, ["a", "get"])
    }

    func testOptionSpellings() throws {
        let options = try parse("-si", "-oout.bin", "--timeout=2.5", "-H", "A: b", "--header=C: d", "-m", "3",
                                "--", "-not-an-option")
        XCTAssertTrue(options.silent)
        XCTAssertTrue(options.includeHeaders)
        XCTAssertEqual(options.output, "out.bin")
        XCTAssertEqual(options.timeout, 3)
        XCTAssertEqual(options.headers, ["A: b", "C: d"])
        XCTAssertEqual(options.urls, ["-not-an-option"])
    }

    func testFlagsTakeNoValue() {
        XCTAssertThrowsError(try parse("--silent=yes", "x")) { error in
            XCTAssertEqual(error as? Failure, .usage("--silent takes no value"))
        }
        XCTAssertThrowsError(try parse("-o", "a", "-o", "b", "x")) { error in
            XCTAssertEqual(error as? Failure, .usage("-o was given twice"))
        }
    }

    func testShortDIsDataForRequestsAndTheFolderForDownloads() throws {
        guard case let .request(request) = try plan("-d", "a=1", "http://h/x") else { return XCTFail("not a request") }
        XCTAssertEqual(request.method, .post)
        guard case let .data(data, contentType)? = request.body else { return XCTFail("no data body") }
        XCTAssertEqual(data, Data("a=1".utf8))
        XCTAssertEqual(contentType, "application/x-www-form-urlencoded")

        guard case let .download(download) = try plan("download", "-d", "/tmp/out", "http://h/x/file.zip") else {
            return XCTFail("not a download")
        }
        XCTAssertEqual(download.items.map(\.destination.path), ["/tmp/out/file.zip"])
        XCTAssertTrue(download.options.contains(.createDirectories))
    }

    func testMethodFollowsTheBodyWhenNoCommandIsNamed() throws {
        guard case let .request(json) = try plan("--json", "@-", "http://h/"),
              case let .request(upload) = try plan("-T", "-", "http://h/dir/") else { return XCTFail("not requests") }
        XCTAssertEqual(json.method, .post)
        XCTAssertEqual(json.headers.fields["Content-Type"], "application/json")
        guard case let .data(data, _)? = json.body else { return XCTFail("no data body") }
        XCTAssertEqual(data, Data("from stdin".utf8))
        XCTAssertEqual(upload.method, .put)
    }

    func testHeadersFromTheCommandLineWinOverDefaults() throws {
        guard case let .request(request) = try plan("--json", "{}", "-H", "content-type: application/vnd.x+json", "http://h/") else {
            return XCTFail("not a request")
        }
        XCTAssertEqual(request.headers.fields["content-type"], "application/vnd.x+json")
        XCTAssertNil(request.headers.fields["Content-Type"])
        XCTAssertEqual(request.headers.fields["Accept"], "application/json")
    }

    func testDownloadFileNames() {
        XCTAssertEqual(DownloadFileName.of(URL(string: "http://h/a/b%20c.txt?x=1")!), "b c.txt")
        XCTAssertEqual(DownloadFileName.of(URL(string: "http://h/")!), "index.html")
        XCTAssertEqual(DownloadFileName.of(URL(string: "http://h")!), "index.html")
        XCTAssertEqual(DownloadFileName.of(URL(string: "http://h/a/..")!), "index.html")
    }

    func testHelpMentionsEveryOption() {
        for spec in OptionTable.all {
            if let long = spec.long { XCTAssertTrue(Usage.help.contains("--" + long), "--help lacks --\(long)") }
            if let short = spec.short { XCTAssertTrue(Usage.help.contains("-\(short)"), "--help lacks -\(short)") }
        }
    }
}
