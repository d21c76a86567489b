import Courier
import Foundation
import XCTest

/// `-L` past a redirect whose body ends only when the server closes the connection: curl stops
/// reading after the head and follows at once; so must courier (the curl engine), rather than
/// wait for a close that a server holding the connection open never sends.
final class CLIRedirectTests: CLITestCase {
    func testFollowsACloseDelimitedRedirectAtOnce() throws {
        let server = try makeServer().withStandardRoutes()
        let held = Gate()
        addTeardownBlock { held.open() }
        for (path, headers) in [("/close", [("Location", "/hello"), ("Connection", "close"), ("Content-Length", "100")]),
                                ("/unframed", [("Location", "/hello")])] {
            server.route(path) { _, writer in
                writer.writeHead(status: 301, headers: headers)
                writer.write(Data("part of a body".utf8))
                held.wait(timeout: 60)   // the connection stays open until the test is over
            }
        }
        for path in ["/close", "/unframed"] {
            let url = server.url(path).absoluteString
            if Network.Engine.automatic.resolved == .curl {
                let result = try start(["-sL", url]).finish(timeout: 10)
                XCTAssertEqual(result.status, 0, "\(path): \(result.stderrText)")
                XCTAssertEqual(result.stdoutText, "hello", path)
            }
            if let curl = try RealCurl.run(["-sL", "-m", "10", url]) {
                XCTAssertEqual(curl.status, 0, "curl \(path)")
                XCTAssertEqual(curl.stdoutText, "hello", "curl \(path)")
            }
        }
    }
}
