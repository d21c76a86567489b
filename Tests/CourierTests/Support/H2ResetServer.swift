import Foundation
import XCTest

/// An HTTP/2 server over cleartext (prior knowledge, "h2c") on 127.0.0.1 that fails every stream
/// half-way: a `200` announcing ``announcedLength`` bytes, ``sentLength`` of them, then
/// `RST_STREAM` with `INTERNAL_ERROR`, the connection kept open. Python's `h2` package speaks the
/// protocol (nginx cannot reset a stream mid-body on purpose); where python3 or `h2` is missing
/// the test is skipped and says so (CI installs Debian's `python3-h2`). It exits when its stdin
/// closes, so it never outlives the test process.
final class H2ResetServer: Sendable {
    private let server: PythonServerProcess
    static let announcedLength = 100_000
    static let sentLength = 10_000

    var url: URL { URL(string: "http://127.0.0.1:\(port)/reset")! }

    init(in folder: URL) throws {
        guard let python = ExternalTool.path(of: "python3") else { throw XCTSkip("no python3 here: the h2c reset server needs it") }
        let probe = try ExternalTool.run(python, ["-c", "import h2"])
        guard probe.status == 0 else {
            throw XCTSkip("Python's h2 package is not installed (apt-get install python3-h2, or pip install h2): "
                + "the h2c reset server needs it")
        }
        server = try PythonServerProcess(python: python, script: Self.script, at: folder.appendingPathComponent("h2reset.py"),
                                         arguments: [String(Self.announcedLength), String(Self.sentLength)],
                                         what: "the h2c reset server")
    }

    var port: Int { server.port }

    func stop() { server.stop() }

    private static let script = """
        import os, socket, sys, threading
        import h2.config, h2.connection, h2.errors, h2.events, h2.exceptions

        announced, sent = int(sys.argv[1]), int(sys.argv[2])

        def serve(connection):
            h2c = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
            h2c.initiate_connection()
            try:
                connection.sendall(h2c.data_to_send())
                while True:
                    data = connection.recv(65536)
                    if not data:
                        return
                    for event in h2c.receive_data(data):
                        if isinstance(event, h2.events.RequestReceived):
                            stream = event.stream_id
                            h2c.send_headers(stream, [(":status", "200"), ("content-length", str(announced)),
                                                      ("content-type", "application/octet-stream")])
                            h2c.send_data(stream, b"x" * sent)
                            h2c.reset_stream(stream, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
                    connection.sendall(h2c.data_to_send())
            except (OSError, h2.exceptions.ProtocolError):
                return
            finally:
                connection.close()

        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """
}
