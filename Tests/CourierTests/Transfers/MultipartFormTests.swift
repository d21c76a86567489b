@testable import Courier
import Foundation
import XCTest

final class MultipartFormTests: XCTestCase {
    /// A fresh directory per test, removed in tearDown, so no test leaves files behind.
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("MultipartFormTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory {
            try FileManager.default.removeItem(at: directory)
        }
        directory = nil
        try super.tearDownWithError()
    }

    // MARK: - Exact encoding

    func testEncodesFieldDataAndFilePartsExactly() throws {
        let fileURL = try makeFile("notes.txt", contents: Data("line 1\nline 2".utf8))
        var form = MultipartForm(boundary: "TestBoundary123")
        form.addField(name: "title", value: "Hello, world")
        form.addData(name: "blob", data: Data([0x00, 0xFF, 0x0D, 0x0A, 0x41]), filename: "blob.bin")
        form.addData(name: "raw", data: Data("{}".utf8), mimeType: "application/json")
        form.addFile(name: "doc", fileURL: fileURL)

        var expected = Data()
        expected.append(Data("--TestBoundary123\r\n".utf8))
        expected.append(Data("Content-Disposition: form-data; name=\"title\"\r\n".utf8))
        expected.append(Data("\r\n".utf8))
        expected.append(Data("Hello, world\r\n".utf8))
        expected.append(Data("--TestBoundary123\r\n".utf8))
        expected.append(Data("Content-Disposition: form-data; name=\"blob\"; filename=\"blob.bin\"\r\n".utf8))
        expected.append(Data("Content-Type: application/octet-stream\r\n".utf8))
        expected.append(Data("\r\n".utf8))
        expected.append(Data([0x00, 0xFF, 0x0D, 0x0A, 0x41]))
        expected.append(Data("\r\n".utf8))
        expected.append(Data("--TestBoundary123\r\n".utf8))
        expected.append(Data("Content-Disposition: form-data; name=\"raw\"\r\n".utf8))
        expected.append(Data("Content-Type: application/json\r\n".utf8))
        expected.append(Data("\r\n".utf8))
        expected.append(Data("{}\r\n".utf8))
        expected.append(Data("--TestBoundary123\r\n".utf8))
        expected.append(Data("Content-Disposition: form-data; name=\"doc\"; filename=\"notes.txt\"\r\n".utf8))
        expected.append(Data("Content-Type: text/plain\r\n".utf8))
        expected.append(Data("\r\n".utf8))
        expected.append(Data("line 1\nline 2\r\n".utf8))
        expected.append(Data("--TestBoundary123--\r\n".utf8))

        let data = try form.encodedData()
        XCTAssertEqual(data, expected, "got:\n\(String(decoding: data, as: UTF8.self))")

        let output = directory.appendingPathComponent("body")
        XCTAssertEqual(try form.writeEncoded(to: output), Int64(expected.count))
        XCTAssertEqual(try Data(contentsOf: output), expected)
        XCTAssertEqual(try form.encodedLength(), Int64(expected.count))
        XCTAssertEqual(form.contentType, "multipart/form-data; boundary=TestBoundary123")
    }

    func testEmptyFormIsJustTheClosingDelimiter() throws {
        let form = MultipartForm(boundary: "b")
        XCTAssertEqual(try form.encodedData(), Data("--b--\r\n".utf8))
        XCTAssertEqual(try form.encodedLength(), 7)
        let output = directory.appendingPathComponent("empty")
        XCTAssertEqual(try form.writeEncoded(to: output), 7)
        XCTAssertEqual(try Data(contentsOf: output), Data("--b--\r\n".utf8))
    }

    func testPartsViewRecordsWhatWasAdded() throws {
        let fileURL = directory.appendingPathComponent("photo.JPG")
        var form = MultipartForm()
        form.addField(name: "a", value: "1")
        form.addData(name: "b", data: Data([1, 2]))
        form.addFile(name: "c", fileURL: fileURL)
        form.addFile(name: "d", fileURL: fileURL, filename: "renamed.png", mimeType: "image/x-custom")
        XCTAssertEqual(form.parts, [
            .init(name: "a", filename: nil, mimeType: nil, content: .text("1")),
            .init(name: "b", filename: nil, mimeType: "application/octet-stream", content: .data(Data([1, 2]))),
            .init(name: "c", filename: "photo.JPG", mimeType: "image/jpeg", content: .file(fileURL)),
            .init(name: "d", filename: "renamed.png", mimeType: "image/x-custom", content: .file(fileURL)),
        ])
    }

    // MARK: - Escaping

    func testEscapesQuoteCarriageReturnAndLineFeedInNamesAndFilenames() throws {
        var form = MultipartForm(boundary: "B")
        form.addField(name: "a\"b\r\nc", value: "v")
        form.addData(name: "n\"", data: Data("x".utf8), filename: "evil\".txt\r\nContent-Type: text/html\n")
        let text = String(decoding: try form.encodedData(), as: UTF8.self)
        let expected = "--B\r\n"
            + "Content-Disposition: form-data; name=\"a%22b%0D%0Ac\"\r\n\r\nv\r\n"
            + "--B\r\n"
            + "Content-Disposition: form-data; name=\"n%22\"; filename=\"evil%22.txt%0D%0AContent-Type: text/html%0A\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\nx\r\n"
            + "--B--\r\n"
        XCTAssertEqual(text, expected)
        XCTAssertEqual(MultipartForm.escape("%41 plain"), "%41 plain", "only \", CR and LF are escaped")
        XCTAssertEqual(MultipartForm.escape("\r"), "%0D")
        XCTAssertEqual(MultipartForm.escape("\n\n"), "%0A%0A")
    }

    func testMimeTypeCannotInjectHeaders() throws {
        var form = MultipartForm(boundary: "B")
        form.addData(name: "x", data: Data(), mimeType: "text/plain\r\nX-Injected: 1")
        XCTAssertEqual(form.parts[0].mimeType, "text/plainX-Injected: 1")
        let text = String(decoding: try form.encodedData(), as: UTF8.self)
        XCTAssertFalse(text.contains("\r\nX-Injected"))
    }

    func testNonASCIIFilenameAndNameStayRawUTF8() throws {
        let fileURL = try makeFile("résumé 📄.pdf", contents: Data("%PDF".utf8))
        var form = MultipartForm(boundary: "B")
        form.addFile(name: "pièce", fileURL: fileURL)
        let data = try form.encodedData()
        let header = Data("Content-Disposition: form-data; name=\"pièce\"; filename=\"résumé 📄.pdf\"\r\nContent-Type: application/pdf\r\n".utf8)
        XCTAssertNotNil(data.range(of: header), String(decoding: data, as: UTF8.self))
        // The UTF-8 bytes of "é" (C3 A9) appear raw, not percent-encoded.
        XCTAssertNotNil(data.range(of: Data([0x72, 0xC3, 0xA9, 0x73])))
        XCTAssertNil(data.range(of: Data("%C3".utf8)))
    }

    // MARK: - MIME types

    func testGuessesMimeTypeFromExtension() {
        let table: [(String, String)] = [
            ("a.txt", "text/plain"), ("a.html", "text/html"), ("a.json", "application/json"),
            ("a.xml", "application/xml"), ("a.csv", "text/csv"), ("a.png", "image/png"),
            ("a.jpg", "image/jpeg"), ("a.jpeg", "image/jpeg"), ("a.JPEG", "image/jpeg"),
            ("a.gif", "image/gif"), ("a.pdf", "application/pdf"), ("a.zip", "application/zip"),
            ("a.tar.gz", "application/gzip"), ("a.mp4", "video/mp4"), ("a.mp3", "audio/mpeg"),
            ("a.wav", "audio/wav"), ("a.bin", "application/octet-stream"),
            ("a.unknownext", "application/octet-stream"), ("noextension", "application/octet-stream"),
        ]
        var form = MultipartForm()
        for (name, _) in table {
            form.addFile(name: "f", fileURL: directory.appendingPathComponent(name))
        }
        form.addFile(name: "f", fileURL: directory.appendingPathComponent("a.txt"), mimeType: "text/markdown")
        XCTAssertEqual(form.parts.map(\.mimeType), table.map(\.1) + ["text/markdown"])
        XCTAssertEqual(form.parts.map(\.filename), table.map(\.0) + ["a.txt"])
    }

    // MARK: - Lengths

    func testEncodedLengthEqualsBytesWrittenAndFileSize() throws {
        let small = try makeFile("small.json", contents: Data("{\"k\":1}".utf8))
        let empty = try makeFile("empty.bin", contents: Data())
        let medium = try makeFile("medium.dat", contents: Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        var form = MultipartForm()
        form.addField(name: "greeting", value: "héllo\r\nworld")
        form.addData(name: "d", data: Data(repeating: 0xAB, count: 1000), filename: "d.bin")
        form.addFile(name: "s", fileURL: small)
        form.addFile(name: "e", fileURL: empty)
        form.addFile(name: "m", fileURL: medium, filename: "ÿ\".dat")

        // An existing, longer output file must be truncated, not overwritten in place.
        let output = directory.appendingPathComponent("out.multipart")
        try Data(repeating: 0x55, count: 5_000_000).write(to: output)

        let length = try form.encodedLength()
        let written = try form.writeEncoded(to: output)
        let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
        let onDisk = try XCTUnwrap((attributes[.size] as? NSNumber)?.int64Value)
        XCTAssertEqual(length, written)
        XCTAssertEqual(written, onDisk)
        XCTAssertEqual(try form.encodedData().count, Int(length))
        XCTAssertEqual(try Data(contentsOf: output), try form.encodedData())
        XCTAssertEqual(length, Int64(3_000_000 + 1000 + 7) + overheadLength(of: form))
    }

    func testSymbolicLinkIsFollowed() throws {
        let target = try makeFile("target.txt", contents: Data("0123456789".utf8))
        let link = directory.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        var form = MultipartForm(boundary: "B")
        form.addFile(name: "f", fileURL: link)
        let data = try form.encodedData()
        XCTAssertNotNil(data.range(of: Data("\r\n\r\n0123456789\r\n--B--\r\n".utf8)))
        XCTAssertEqual(try form.encodedLength(), Int64(data.count))
    }

    // MARK: - Boundaries

    func testGeneratedBoundariesAreUniqueAndValid() {
        let first = MultipartForm()
        let second = MultipartForm()
        XCTAssertNotEqual(first.boundary, second.boundary)
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?".unicodeScalars)
        for boundary in [first.boundary, second.boundary] {
            XCTAssertTrue(boundary.hasPrefix("courier-"), boundary)
            XCTAssertTrue((1...70).contains(boundary.unicodeScalars.count), boundary)
            XCTAssertTrue(boundary.unicodeScalars.allSatisfy(allowed.contains), boundary)
            XCTAssertTrue(MultipartForm.isValidBoundary(boundary))
            // At least 128 random bits: 40 hex digits after the prefix.
            XCTAssertEqual(boundary.dropFirst("courier-".count).count, 40)
        }
        XCTAssertEqual(first.contentType, "multipart/form-data; boundary=\(first.boundary)")
        let many = Set((0..<1000).map { _ in MultipartForm().boundary })
        XCTAssertEqual(many.count, 1000)
    }

    func testBoundaryValidationFollowsRFC2046() {
        XCTAssertTrue(MultipartForm.isValidBoundary("a"))
        XCTAssertTrue(MultipartForm.isValidBoundary(String(repeating: "x", count: 70)))
        XCTAssertTrue(MultipartForm.isValidBoundary("simple boundary'()+_,-./:=?"))
        XCTAssertFalse(MultipartForm.isValidBoundary(""))
        XCTAssertFalse(MultipartForm.isValidBoundary(String(repeating: "x", count: 71)))
        XCTAssertFalse(MultipartForm.isValidBoundary("ends with space "))
        XCTAssertFalse(MultipartForm.isValidBoundary("semi;colon"))
        XCTAssertFalse(MultipartForm.isValidBoundary("quote\""))
        XCTAssertFalse(MultipartForm.isValidBoundary("é"))
        XCTAssertFalse(MultipartForm.isValidBoundary("line\r\nbreak"))
    }

    func testBoundaryWithSpecialCharactersIsQuotedInContentType() {
        XCTAssertEqual(MultipartForm(boundary: "a:b c").contentType, "multipart/form-data; boundary=\"a:b c\"")
        XCTAssertEqual(MultipartForm(boundary: "a'b+c_d-e.f").contentType, "multipart/form-data; boundary=a'b+c_d-e.f")
    }

    func testSuppliedBoundaryCollidingWithTextOrDataThrows() throws {
        var field = MultipartForm(boundary: "XYZ")
        field.addField(name: "comment", value: "before\r\n--XYZ--\r\nafter")
        XCTAssertThrowsError(try field.encodedData()) { error in
            XCTAssertEqual(error as? MultipartForm.EncodingError, .boundaryCollision(partName: "comment"))
        }
        XCTAssertThrowsError(try field.encodedLength())

        var data = MultipartForm(boundary: "XYZ")
        data.addData(name: "blob", data: Data("--XYZ".utf8))
        let output = directory.appendingPathComponent("collision")
        XCTAssertThrowsError(try data.writeEncoded(to: output)) { error in
            XCTAssertEqual(error as? MultipartForm.EncodingError, .boundaryCollision(partName: "blob"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))

        // Without the leading dashes it is not a delimiter, and files are never scanned.
        var fine = MultipartForm(boundary: "XYZ")
        fine.addField(name: "c", value: "XYZ -XYZ")
        fine.addFile(name: "f", fileURL: try makeFile("f.txt", contents: Data("\r\n--XYZ--\r\n".utf8)))
        XCTAssertNoThrow(try fine.encodedData())
    }

    // MARK: - Errors

    func testMissingFileThrowsFileNotReadableEverywhere() throws {
        let missing = directory.appendingPathComponent("does-not-exist.txt")
        var form = MultipartForm()
        form.addField(name: "a", value: "b")
        form.addFile(name: "f", fileURL: missing)

        func assertNotReadable(_ expression: @autoclosure () throws -> some Any, line: UInt = #line) {
            XCTAssertThrowsError(try expression(), line: line) { error in
                guard case let .fileNotReadable(url, underlying)? = error as? MultipartForm.EncodingError else {
                    return XCTFail("unexpected \(error)", line: line)
                }
                XCTAssertEqual(url, missing, line: line)
                XCTAssertFalse(underlying.isEmpty, line: line)
            }
        }
        assertNotReadable(try form.encodedLength())
        let output = directory.appendingPathComponent("out")
        assertNotReadable(try form.writeEncoded(to: output))
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "checked before creating the output")
        assertNotReadable(try form.encodedData())

        // A directory is not a readable file either.
        var folder = MultipartForm()
        folder.addFile(name: "f", fileURL: directory)
        XCTAssertThrowsError(try folder.encodedLength()) { error in
            XCTAssertEqual(error as? MultipartForm.EncodingError,
                           .fileNotReadable(self.directory, underlying: "not a regular file"))
        }
    }

    func testWriteFailuresAreReportedAndInputsProtected() throws {
        let input = try makeFile("input.txt", contents: Data("precious".utf8))
        var form = MultipartForm()
        form.addFile(name: "f", fileURL: input)

        XCTAssertThrowsError(try form.writeEncoded(to: input)) { error in
            guard case .writeFailed(input, _)? = error as? MultipartForm.EncodingError else {
                return XCTFail("unexpected \(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: input), Data("precious".utf8), "the input must not be truncated")

        let impossible = directory.appendingPathComponent("no-such-folder/out")
        XCTAssertThrowsError(try form.writeEncoded(to: impossible)) { error in
            guard case .writeFailed(impossible, _)? = error as? MultipartForm.EncodingError else {
                return XCTFail("unexpected \(error)")
            }
        }
    }

    // MARK: - Large file

    func testLargeFileRoundTripKeepsMemoryFlat() throws {
        let chunk = 1 << 20
        let chunkCount = 64
        let source = directory.appendingPathComponent("large.bin")
        try writeLargeFile(at: source, chunkSize: chunk, chunkCount: chunkCount)

        var form = MultipartForm(boundary: "LargeBoundary")
        form.addField(name: "kind", value: "video")
        form.addFile(name: "upload", fileURL: source, mimeType: "video/mp4")
        let output = directory.appendingPathComponent("large.multipart")

        let sampler = MemorySampler()
        let baseline = sampler.start()
        let clock = ContinuousClock()
        let started = clock.now
        let written = try form.writeEncoded(to: output)
        let elapsed = clock.now - started
        let peak = sampler.stop()
        let growth = peak - baseline
        print("MultipartForm 64 MB writeEncoded: \(elapsed), VmRSS baseline \(baseline / 1024) KB, peak \(peak / 1024) KB, growth \(growth / 1024) KB")
        XCTAssertLessThan(growth, 32 << 20, "resident memory grew by \(growth) bytes")

        let prefix = Data(("--LargeBoundary\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nvideo\r\n"
            + "--LargeBoundary\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"large.bin\"\r\n"
            + "Content-Type: video/mp4\r\n\r\n").utf8)
        let suffix = Data("\r\n--LargeBoundary--\r\n".utf8)
        let expectedLength = Int64(prefix.count + chunk * chunkCount + suffix.count)
        XCTAssertEqual(written, expectedLength)
        XCTAssertEqual(try form.encodedLength(), expectedLength)

        let out = try FileHandle(forReadingFrom: output)
        defer { try? out.close() }
        let src = try FileHandle(forReadingFrom: source)
        defer { try? src.close() }
        XCTAssertEqual(try out.seekToEnd(), UInt64(expectedLength))
        try out.seek(toOffset: 0)
        XCTAssertEqual(try out.read(upToCount: prefix.count), prefix)
        for index in 0..<chunkCount {
            let expected = try src.read(upToCount: chunk)
            let actual = try out.read(upToCount: chunk)
            guard actual == expected else {
                return XCTFail("file section differs in chunk \(index)")
            }
        }
        XCTAssertEqual(try src.read(upToCount: 1), nil, "source fully compared")
        XCTAssertEqual(try out.readToEnd(), suffix)
    }

    // MARK: - Helpers

    private func makeFile(_ name: String, contents: Data) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    /// Writes `chunkCount` distinct chunks with FileHandle so the test never holds the whole file.
    private func writeLargeFile(at url: URL, chunkSize: Int, chunkCount: Int) throws {
        var generator = SystemRandomNumberGenerator()
        var buffer = Data((0..<chunkSize / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
        try Data().write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        for index in 0..<chunkCount {
            // Stamp the chunk number so a reordered or repeated chunk would not compare equal.
            withUnsafeBytes(of: UInt64(index).littleEndian) { stamp in
                buffer.replaceSubrange(0..<8, with: stamp)
                buffer.replaceSubrange(chunkSize - 8..<chunkSize, with: stamp)
            }
            try handle.write(contentsOf: buffer)
        }
        try handle.synchronize()
    }

    /// The encoded length minus the payloads, computed independently from the RFC rules.
    private func overheadLength(of form: MultipartForm) -> Int64 {
        var total = 0
        for part in form.parts {
            var header = "--\(form.boundary)\r\nContent-Disposition: form-data; name=\"\(MultipartForm.escape(part.name))\""
            if let filename = part.filename { header += "; filename=\"\(MultipartForm.escape(filename))\"" }
            header += "\r\n"
            if let type = part.mimeType { header += "Content-Type: \(type)\r\n" }
            header += "\r\n"
            total += header.utf8.count + 2
            if case let .text(value) = part.content { total += value.utf8.count }
        }
        return Int64(total + "--\(form.boundary)--\r\n".utf8.count)
    }
}

/// Samples the process's resident set size on a background thread while an operation runs, and
/// also resets and reads the kernel's high-water mark when allowed, so a short spike is not missed.
private final class MemorySampler: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false
    private var peak = 0
    private var canUseHighWaterMark = false
    private let finished = DispatchSemaphore(value: 0)

    /// Starts sampling; returns the current resident size in bytes.
    func start() -> Int {
        // Writing "5" to clear_refs resets VmHWM to the current RSS (Linux 4.0+); may be denied.
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            canUseHighWaterMark = (try? handle.write(contentsOf: Data("5".utf8))) != nil
            try? handle.close()
        }
        let baseline = Self.read("VmRSS")
        lock.withLock {
            running = true
            peak = baseline
        }
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let current = Self.read("VmRSS")
                lock.withLock { peak = max(peak, current) }
                Thread.sleep(forTimeInterval: 0.002)
            }
            finished.signal()
        }
        return baseline
    }

    /// Stops sampling; returns the peak resident size seen, in bytes.
    func stop() -> Int {
        lock.withLock { running = false }
        finished.wait()
        let sampled = lock.withLock { peak }
        return canUseHighWaterMark ? max(sampled, Self.read("VmHWM")) : sampled
    }

    /// A `kB` value from /proc/self/status, in bytes.
    private static func read(_ key: String) -> Int {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/status"),
              let data = try? handle.readToEnd() else { return 0 }
        try? handle.close()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix(key + ":") {
            let digits = line.dropFirst(key.count + 1).filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
        return 0
    }
}
