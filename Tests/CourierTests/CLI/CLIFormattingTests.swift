@testable import CourierCLI
import Courier
import Foundation
import XCTest

/// What a terminal user sees: sizes, JSON, binary detection, progress lines. Pure functions,
/// checked in-process since the end-to-end tests only ever have pipes, not a terminal.
final class CLIFormattingTests: XCTestCase {
    func testUnits() {
        XCTAssertEqual(Units.bytes(0), "0 B")
        XCTAssertEqual(Units.bytes(999), "999 B")
        XCTAssertEqual(Units.bytes(12_345), "12.3 KB")
        XCTAssertEqual(Units.bytes(999_999), "1.0 MB")
        XCTAssertEqual(Units.bytes(100_000_000), "100.0 MB")
        XCTAssertEqual(Units.bytes(3_200_000_000), "3.2 GB")
        XCTAssertEqual(Units.speed(45_600_000), "45.6 MB/s")
        XCTAssertEqual(Units.duration(3), "0:03")
        XCTAssertEqual(Units.duration(754), "12:34")
        XCTAssertEqual(Units.duration(3723), "1:02:03")
        XCTAssertEqual(Units.seconds(2), "2 s")
        XCTAssertEqual(Units.seconds(0.5), "0.5 s")
    }

    func testJSONIsReindentedKeepingKeyOrderAndNumbers() throws {
        let input = Data(#"{"z":1.10,"a":[],"m":{"s":"a,b:{\"c\"}","n":[1,{}]},"big":12345678901234567890}"#.utf8)
        let pretty = try XCTUnwrap(JSONFormatter.prettyPrinted(input))
        XCTAssertEqual(String(decoding: pretty, as: UTF8.self), """
            {
              "z": 1.10,
              "a": [],
              "m": {
                "s": "a,b:{\\"c\\"}",
                "n": [
                  1,
                  {}
                ]
              },
              "big": 12345678901234567890
            }
            """)
        XCTAssertNil(JSONFormatter.prettyPrinted(Data("{not json".utf8)))
        XCTAssertEqual(JSONFormatter.prettyPrinted(Data(" 42 ".utf8)), Data("42".utf8))
    }

    func testBinaryAndJSONDetection() {
        XCTAssertTrue(BodyPrinter.isBinary(Data([0x41, 0x00, 0x42])))
        XCTAssertTrue(BodyPrinter.isBinary(Data([0xFF, 0xFE, 0x41])))
        XCTAssertFalse(BodyPrinter.isBinary(Data("héllo\n".utf8)))
        XCTAssertTrue(BodyPrinter.isJSON("application/json; charset=utf-8"))
        XCTAssertTrue(BodyPrinter.isJSON("application/problem+json"))
        XCTAssertFalse(BodyPrinter.isJSON("text/html"))
        XCTAssertFalse(BodyPrinter.isJSON(nil))
    }

    func testHeadOfAResponseIsWrittenAsOnTheWire() {
        let response = HTTPResponse(statusCode: 201, headers: HTTPHeaders([("Content-Type", "text/plain"), ("X-A", "1"), ("X-A", "2")]))
        XCTAssertEqual(String(decoding: HeadText.bytes(of: response), as: UTF8.self),
                       "HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nX-A: 1\r\nX-A: 2\r\n\r\n")
    }

    func testBarsFitTheTerminalWidthExactly() {
        var row = ProgressRow(label: "a-rather-long-file-name-that-will-not-fit-anywhere.iso")
        for width in [20, 40, 80, 200] {
            XCTAssertLessThanOrEqual(ProgressLine.bar(row, width: width).count, width - 1)
        }
        row.state = .running
        row.progress = TransferProgress(completedBytes: 12_300_000, totalBytes: 27_000_000)
        row.speed = 4_500_000
        let line = ProgressLine.bar(row, width: 120)
        XCTAssertEqual(line, "a-rather-long-file-name-that-w...   45%  [=============>                ]  "
                           + "  12.3 MB / 27.0 MB    4.5 MB/s  ETA 0:04")
        // Fixed columns: the bar starts at the same place whatever the numbers say.
        var later = row
        later.progress = TransferProgress(completedBytes: 27_000_000, totalBytes: 27_000_000)
        later.state = .done
        later.averageSpeed = 12_000_000
        let done = ProgressLine.bar(later, width: 120)
        XCTAssertEqual(done.firstIndex(of: "["), line.firstIndex(of: "["))
        XCTAssertTrue(done.hasSuffix("]    27.0 MB / 27.0 MB   12.0 MB/s  done"), done)
        // 80 columns keep a gauge and some of the label.
        XCTAssertEqual(ProgressLine.bar(row, width: 80), "a-rather-...   45%  [=====>     ]    12.3 MB / 27.0 MB    4.5 MB/s  ETA 0:04")
        for width in [20, 40, 80] {
            XCTAssertLessThanOrEqual(ProgressLine.bar(row, width: width).count, width - 1)
        }
        XCTAssertEqual(ProgressLine.gauge(1, width: 5), "=====")
        XCTAssertEqual(ProgressLine.gauge(0, width: 5), ">    ")
    }

    func testPlainLines() {
        var row = ProgressRow(label: "file.bin", state: .running,
                              progress: TransferProgress(completedBytes: 12_300_000, totalBytes: 100_000_000), speed: 45_600_000)
        XCTAssertEqual(ProgressLine.plain(row), "file.bin 12.3 MB / 100.0 MB (12%) 45.6 MB/s")
        row.progress = TransferProgress(completedBytes: 5_000, totalBytes: nil)
        row.speed = nil
        XCTAssertEqual(ProgressLine.plain(row), "file.bin 5.0 KB")
    }

    func testSpeedMeterIgnoresTheResumeOffset() {
        var meter = SpeedMeter()
        meter.record(bytes: 50_000_000, at: 10)   // a resumed download starts at its offset
        XCTAssertNil(meter.bytesPerSecond)
        meter.record(bytes: 51_000_000, at: 11)
        XCTAssertEqual(meter.bytesPerSecond, 1_000_000)
        meter.record(bytes: 53_000_000, at: 15)   // the window drops samples older than 3 s
        XCTAssertEqual(try XCTUnwrap(meter.bytesPerSecond), 500_000, accuracy: 1)
    }

    func testExitCodesMapNetworkErrors() {
        let url = URL(string: "http://example.invalid:81/x")!
        XCTAssertEqual(Failure(NetworkError.transport(URLError(.cannotFindHost)), url: url, timeout: nil).exitCode, .unknownHost)
        XCTAssertEqual(Failure(NetworkError.transport(URLError(.cannotConnectToHost)), url: url, timeout: nil).exitCode, .connectionRefused)
        XCTAssertEqual(Failure(NetworkError.transport(URLError(.timedOut)), url: url, timeout: 2).exitCode, .timedOut)
        XCTAssertEqual(Failure(NetworkError.timedOut, url: url, timeout: 2).message, "timed out after 2 s (http://example.invalid:81/x)")
        // A body cut short arrives as `.incompleteBody`; another -1 is a libcurl failure of another kind.
        XCTAssertEqual(Failure(NetworkError.incompleteBody(URLError(.unknown)), url: url, timeout: nil).exitCode, .partialTransfer)
        XCTAssertEqual(Failure(NetworkError.transport(URLError(.unknown)), url: url, timeout: nil).exitCode, .networkFailure)
        XCTAssertEqual(Failure(NetworkError.transport(URLError(.networkConnectionLost)), url: url, timeout: nil).exitCode, .networkFailure)
        XCTAssertEqual(Failure(NetworkError.transport(URLError(.badServerResponse)), url: url, timeout: nil).exitCode, .emptyReply)
        XCTAssertEqual(Failure(NetworkError.invalidResponse("x"), url: url, timeout: nil).exitCode, .badResponse)
        XCTAssertEqual(Failure(NetworkError.invalidRequest("x"), url: url, timeout: nil).exitCode, .usage)
        XCTAssertEqual(Failure(NetworkError.unsupportedRedirect("file", HTTPResponse(statusCode: 302)), url: url, timeout: nil).exitCode, .failure)
        XCTAssertEqual(Failure(NetworkError.transport(URLError(.notConnectedToInternet)), url: url, timeout: nil).exitCode, .networkFailure)
        XCTAssertEqual(Failure(NetworkError.httpStatus(HTTPResponse(statusCode: 404)), url: url, timeout: nil).exitCode, .httpError)
        XCTAssertEqual(Failure(NetworkError.cancelled, url: url, timeout: nil).exitCode, .interrupted)
        XCTAssertEqual(Failure(NetworkError.invalidURL("x"), url: url, timeout: nil).exitCode, .invalidURL)
        XCTAssertEqual(Failure(NetworkError.fileSystem(url, CocoaError(.fileWriteNoPermission)), url: url, timeout: nil).exitCode, .writeError)
    }
}
