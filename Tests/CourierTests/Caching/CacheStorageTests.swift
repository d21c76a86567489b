import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Where the cache keeps responses: memory and a folder, bounded, least recently used out
/// first; a folder shared between caches (as between processes), damaged, deleted or unusable.
final class CacheStorageTests: XCTestCase {
    private func fresh(_ server: TestServer, _ path: String, bytes: Int = 1000) -> CountingRoute {
        CountingRoute(on: server, path: path, .init(headers: [("Cache-Control", "max-age=600")],
                                                    body: Data(repeating: UInt8(ascii: "x"), count: bytes)))
    }

    func testMemoryIsBoundedAndTheLeastRecentlyUsedGoesFirst() throws {
        let server = try makeServer()
        let routes = ["/a", "/b", "/c", "/big"].map { fresh(server, $0, bytes: $0 == "/big" ? 10_000 : 1000) }
        let network = makeCachingNetwork(memory: 3000)
        for path in ["/a", "/b"] { _ = try cachedGET(server.url(path), on: network) }
        XCTAssertEqual(try cachedGET(server.url("/a"), on: network).response.cacheStatus, .cached)   // /a used last
        _ = try cachedGET(server.url("/c"), on: network)                                              // over 3000: /b goes
        XCTAssertLessThanOrEqual(network.cache?.memoryUsage ?? .max, 3000)
        XCTAssertEqual(try cachedGET(server.url("/b"), on: network).response.cacheStatus, .network)
        _ = try cachedGET(server.url("/big"), on: network)
        XCTAssertEqual(try cachedGET(server.url("/big"), on: network).response.cacheStatus, .network, "larger than the cache: not kept")
        XCTAssertEqual(routes.map(\.count), [1, 2, 1, 2])
        network.cache?.removeAll()
        XCTAssertEqual(network.cache?.memoryUsage, 0)
    }

    func testAFolderOutlivesItsCacheAndIsSharedByAnother() throws {
        let server = try makeServer()
        let route = fresh(server, "/a")
        let folder = temporaryFolder()
        _ = try cachedGET(server.url("/a"), on: makeCachingNetwork(disk: 1 << 20, folder: folder))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertEqual(files.count, 1, "one file a URL, and no temporary file left: \(files)")

        let later = makeCachingNetwork(disk: 1 << 20, folder: folder)   // a new cache: empty memory
        let answer = try cachedGET(server.url("/a"), on: later)
        XCTAssertEqual(answer.response.cacheStatus, .cached)
        XCTAssertEqual(answer.value.count, 1000)
        XCTAssertEqual(route.count, 1)
        XCTAssertGreaterThan(later.cache?.diskUsage ?? 0, 1000)
        later.cache?.removeResponses(for: server.url("/a"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    func testADamagedFileIsAMissAndIsRemoved() throws {
        let server = try makeServer()
        let route = fresh(server, "/a")
        let folder = temporaryFolder()
        _ = try cachedGET(server.url("/a"), on: makeCachingNetwork(disk: 1 << 20, folder: folder))
        let name = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        let file = folder.appendingPathComponent(name)
        let whole = try Data(contentsOf: file)
        for damaged in [whole.prefix(whole.count - 1), whole + Data("x".utf8), Data("garbage".utf8), Data()] {
            try damaged.write(to: file)
            let answer = try cachedGET(server.url("/a"), on: makeCachingNetwork(disk: 1 << 20, folder: folder))
            XCTAssertEqual(answer.response.cacheStatus, .network, "a file that does not read back exactly serves nothing")
            XCTAssertEqual(answer.value.count, 1000)
        }
        XCTAssertEqual(route.count, 5)
    }

    func testAFolderDeletedInUseIsMadeAgainAndOneThatCannotBeWrittenCostsNoRequest() throws {
        let server = try makeServer()
        let routes = ["/a", "/b"].map { fresh(server, $0) }
        let folder = temporaryFolder()
        let network = makeCachingNetwork(memory: 0, disk: 1 << 20, folder: folder)
        try FileManager.default.removeItem(at: folder)
        _ = try cachedGET(server.url("/a"), on: network)
        XCTAssertEqual(try cachedGET(server.url("/a"), on: network).response.cacheStatus, .cached, "kept in the folder made again")

        // A "folder" that is a file: nothing can be written there, by root either.
        let file = temporaryFolder()
        try Data("not a folder".utf8).write(to: file)
        let unusable = makeCachingNetwork(memory: 0, disk: 1 << 20, folder: file)
        XCTAssertEqual(try cachedGET(server.url("/b"), on: unusable).value.count, 1000)
        XCTAssertEqual(try cachedGET(server.url("/b"), on: unusable).response.cacheStatus, .network)
        XCTAssertEqual(unusable.cache?.diskUsage, 0)
        XCTAssertEqual(routes.map(\.count), [1, 2])
    }

    func testTheDiskIsBoundedToo() throws {
        let server = try makeServer()
        let paths = (0..<6).map { "/d\($0)" }
        for path in paths { _ = fresh(server, path) }
        let folder = temporaryFolder()
        let network = makeCachingNetwork(memory: 0, disk: 4000, folder: folder)
        for path in paths { _ = try cachedGET(server.url(path), on: network) }
        XCTAssertLessThanOrEqual(network.cache?.diskUsage ?? .max, 4000)
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path).count
        XCTAssertGreaterThan(kept, 0)
        XCTAssertLessThan(kept, 6)
        XCTAssertEqual(try cachedGET(server.url(paths.last!), on: network).response.cacheStatus, .cached, "the newest stays")
    }
}
