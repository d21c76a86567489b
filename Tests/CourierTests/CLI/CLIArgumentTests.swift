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

    func testFlagsTakeNoValue() throws {
        XCTAssertThrowsError(try parse("--silent=yes", "x")) { error in
            XCTAssertEqual(error as? Failure, .usage("--silent takes no value"))
        }
        // -o may come once per URL: each goes with the URL of the same rank, wherever it stands.
        let options = try parse("-o", "a", "http://h/1", "http://h/2", "-O", "http://h/3")
        XCTAssertEqual(options.outputs, [.file("a"), .remoteName])
        XCTAssertEqual(options.urls, ["http://h/1", "http://h/2", "http://h/3"])
    }

    func testASchemeTakesOneToThreeSlashesAsLibcurlReadsIt() throws {
        XCTAssertEqual(try URLInput.parse("http:/h:8080/a").absoluteString, "http://h:8080/a")   // curl's test 1143
        XCTAssertEqual(try URLInput.parse("https:///h/a").absoluteString, "https://h/a")
        XCTAssertEqual(try URLInput.parse("h/a?next=http://x/").absoluteString, "http://h/a?next=http://x/", "no scheme: http://")
        XCTAssertEqual(try URLInput.parse("localhost:8080/a").absoluteString, "http://localhost:8080/a")
        XCTAssertEqual(try URLInput.parse("user:secret@h/a").absoluteString, "http://user:secret@h/a")
        XCTAssertThrowsError(try URLInput.parse("http:////h/a")) { error in
            XCTAssertEqual((error as? Failure)?.exitCode, .invalidURL, "four slashes: libcurl's bad slashes, exit 3")
        }
    }

    func testOutputsPairWithURLsInOrder() throws {
        guard case let .request(request) = try plan("-o", "a.txt", "http://h/x", "--remote-name-all", "http://h/dir/y.bin",
                                                    "--output-dir", "out", "http://h/") else { return XCTFail("not a request") }
        XCTAssertEqual(request.transfers.map(\.output), [
            .file("out/a.txt"), .remoteName("y.bin", directory: "out", usesHeaderName: false), .remoteName("", directory: "out", usesHeaderName: false),
        ])
        XCTAssertEqual(request.transfers.map(\.index), [0, 1, 2])
    }

    func testConfigFileSyntaxIsCurls() {
        let text = """
            # a comment
            url = "http://h/a b"
              silent
            -H "X-A: 1"
            --user-agent=nope
            user-agent: "quoted \\"value\\"\\tend"
            output out.txt  # trailing
            """
        XCTAssertEqual(ConfigFile.items(of: text), [
            ConfigFile.Item(option: "url", value: "http://h/a b", line: 2),
            ConfigFile.Item(option: "silent", value: nil, line: 3),
            ConfigFile.Item(option: "-H", value: "X-A: 1", line: 4),
            // With dashes, '=' is no separator: the option is "--user-agent=nope", unknown.
            ConfigFile.Item(option: "--user-agent=nope", value: nil, line: 5),
            ConfigFile.Item(option: "user-agent", value: "quoted \"value\"\tend", line: 6),
            ConfigFile.Item(option: "output", value: "out.txt", line: 7),
        ])
    }

    func testConfigFilesApplyInPlaceAndWarnOfWhatTheyCannotUse() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("cfg")
        try Data("url = http://h/from-config\n-sS\nfrobnicate\nheader \"X-A: 1\"\nsilent yes\n".utf8).write(to: config)
        let (options, warnings) = try ArgumentParser.parse(["-K", config.path, "-H", "X-B: 2", "http://h/from-line"])
        XCTAssertEqual(options.urls, ["http://h/from-config", "http://h/from-line"])
        XCTAssertTrue(options.silent && options.showError)
        XCTAssertEqual(options.headers, ["X-A: 1", "X-B: 2"])
        XCTAssertEqual(warnings.count, 2, "\(warnings)")
        XCTAssertTrue(warnings[0].contains("cfg:3: warning: 'frobnicate' is unknown"), warnings[0])
        XCTAssertTrue(warnings[1].contains("cfg:5"), warnings[1])
        // -K - reads stdin; a config file that cannot be read is curl's read error.
        let fromStdin = try ArgumentParser.parse(["-K", "-"], standardInput: { Data("url http://h/in\n".utf8) }).0
        XCTAssertEqual(fromStdin.urls, ["http://h/in"])
        XCTAssertThrowsError(try ArgumentParser.parse(["-K", "/no/such/config", "http://h/"])) { error in
            XCTAssertEqual((error as? Failure)?.exitCode, .readError)
        }
    }

    func testTheCurlrcIsReadAsCurlReadsIt() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("courier-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        XCTAssertNil(ConfigFile.defaultFile(environment: ["HOME": home.path]))
        try Data("-s\n".utf8).write(to: home.appendingPathComponent(".curlrc"))
        XCTAssertEqual(ConfigFile.defaultFile(environment: ["HOME": home.path])?.path, home.appendingPathComponent(".curlrc").path)
        XCTAssertEqual(ConfigFile.defaultFile(environment: ["CURL_HOME": home.path, "HOME": "/nonexistent"])?.path,
                       home.appendingPathComponent(".curlrc").path)
        XCTAssertTrue(ConfigFile.isDisabled(by: ["-q", "http://h/"]))
        XCTAssertTrue(ConfigFile.isDisabled(by: ["--disable", "http://h/"]))
        XCTAssertFalse(ConfigFile.isDisabled(by: ["http://h/", "-q"]), "-q counts only first, as in curl")
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

    func testProgressFollowsSilentAndNoProgressMeter() throws {
        func style(_ arguments: String..., terminal: Bool) throws -> ProgressStyle {
            ProgressStyle.choose(try Settings(try ArgumentParser.parse(arguments + ["http://h/"])), stderrIsTerminal: terminal, keepsBars: true)
        }
        XCTAssertEqual(try style(terminal: true), .bars(transient: false, delay: 0))
        XCTAssertEqual(try style(terminal: false), .none, "no meter in logs unless asked")
        XCTAssertEqual(try style("-#", terminal: false), .lines)
        XCTAssertEqual(try style("-s", terminal: true), .none)
        XCTAssertEqual(try style("-s", "--progress", terminal: true), .bars(transient: false, delay: 0))
        XCTAssertEqual(try style("--no-progress-meter", terminal: true), .none)
        XCTAssertEqual(try style("--no-progress-meter", "--progress", terminal: false), .none)
    }

    func testHelpMentionsEveryOption() {
        for spec in OptionTable.all {
            if let long = spec.long { XCTAssertTrue(Usage.help.contains("--" + long), "--help lacks --\(long)") }
            if let short = spec.short { XCTAssertTrue(Usage.help.contains("-\(short)"), "--help lacks -\(short)") }
        }
    }
}
