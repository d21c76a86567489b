import Foundation
import XCTest

/// The two strict WebSocket implementations Courier is held to, as loopback servers the tests
/// start on 127.0.0.1, port 0: Python's `websockets` (17.x) and Node's `ws` (8.x, Debian's
/// node-ws). Each serves the same paths:
///
/// - `/echo`: every message back as it came (text as text, binary as binary);
/// - `/headers`: one text message, the handshake's header fields as a JSON object (names lower-cased);
/// - `/close?code=N`: closes at once with code N and reason "bye";
/// - `/burst?count=N&size=S`: N binary messages of S bytes (byte i % 256), then waits;
/// - `/echo-check` (Python only): sends "a" and the bytes 01 02, then closes with 1000 and reason
///   "ok" if both came back unchanged and of the same kind, 4000 otherwise.
///
/// The subprotocol "chat" is chosen when offered. With `compression`, the server accepts
/// permessage-deflate (RFC 7692) with its defaults (context takeover, 15-bit windows). Without python3 and websockets (or node and
/// ws) the test is skipped and says why, unless `COURIER_REQUIRE_WS_PEERS=1` (CI), which fails it.
/// A server exits when its stdin closes, so it never outlives the test process.
final class WebSocketPeer: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case python = "Python websockets"
        case node = "Node ws"
    }

    let kind: Kind
    private let server: PythonServerProcess
    let secure: Bool

    var port: Int { server.port }

    func url(_ path: String) -> URL { URL(string: "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)")! }

    /// Starts a `kind` server in `folder`; with `certificate` and `key` it serves wss (Python only).
    init(_ kind: Kind, in folder: URL, certificate: URL? = nil, key: URL? = nil, compression: Bool = false) throws {
        self.kind = kind
        secure = certificate != nil
        let tlsArguments = [certificate, key].compactMap { $0?.path } + (compression ? ["--deflate"] : [])
        switch kind {
        case .python:
            guard let python = ExternalTool.path(of: "python3") else { throw Self.missing("python3") }
            guard try ExternalTool.run(python, ["-c", "import websockets, sys; sys.exit(0 if websockets.__version__.split('.')[0] == '17' else 1)"]).status == 0 else {
                throw Self.missing("Python's websockets 17 (pip install 'websockets>=17,<18')")
            }
            server = try PythonServerProcess(python: python, script: Self.pythonScript, at: folder.appendingPathComponent("ws-peer.py"),
                                             arguments: tlsArguments, what: "the Python websockets server")
        case .node:
            guard let node = ExternalTool.path(of: "node") ?? ExternalTool.path(of: "nodejs") else { throw Self.missing("node") }
            guard try ExternalTool.run(node, ["-e", Self.nodeProbe]).status == 0 else {
                throw Self.missing("Node's ws 8 (apt-get install node-ws)")
            }
            server = try PythonServerProcess(python: node, script: Self.nodeScript, at: folder.appendingPathComponent("ws-peer.js"),
                                             arguments: tlsArguments, what: "the Node ws server")
        }
    }

    func stop() { server.stop() }

    private static func missing(_ what: String) -> Error {
        let message = "\(what) is not installed: the WebSocket interoperability tests need it"
        if ProcessInfo.processInfo.environment["COURIER_REQUIRE_WS_PEERS"] == "1" { return TLSFixtureError(message) }
        return XCTSkip(message)
    }

    private static let nodeProbe = """
        module.paths.push('/usr/share/nodejs');
        process.exit(require('ws/package.json').version.startsWith('8.') ? 0 : 1);
        """

    private static let pythonScript = """
        import asyncio, json, os, ssl, sys, threading
        from urllib.parse import urlsplit, parse_qs
        from websockets.asyncio.server import serve
        from websockets.exceptions import ConnectionClosed

        async def handler(ws):
            url = urlsplit(ws.request.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            try:
                if url.path == "/echo":
                    async for message in ws:
                        await ws.send(message)
                elif url.path == "/headers":
                    await ws.send(json.dumps({k.lower(): v for k, v in ws.request.headers.raw_items()}))
                    await ws.wait_closed()
                elif url.path == "/close":
                    await ws.close(int(query["code"]), "bye")
                elif url.path == "/echo-check":
                    await ws.send("a")
                    await ws.send(b"\\x01\\x02")
                    first, second = await ws.recv(), await ws.recv()
                    good = first == "a" and second == b"\\x01\\x02"
                    await ws.close(1000 if good else 4000, "ok" if good else "bad")
                elif url.path == "/burst":
                    for i in range(int(query["count"])):
                        await ws.send(bytes([i % 256]) * int(query["size"]))
                    await ws.wait_closed()
            except ConnectionClosed:
                pass

        def choose(connection, offered):
            return "chat" if "chat" in offered else None

        async def main():
            context = None
            arguments = [a for a in sys.argv[1:] if a != "--deflate"]
            if len(arguments) >= 2:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(arguments[0], arguments[1])
            compression = "deflate" if "--deflate" in sys.argv else None
            async with serve(handler, "127.0.0.1", 0, ssl=context, select_subprotocol=choose,
                             max_size=None, compression=compression, ping_interval=None) as server:
                print(server.sockets[0].getsockname()[1], flush=True)
                await asyncio.Future()

        threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
        asyncio.run(main())
        """

    private static let nodeScript = """
        module.paths.push('/usr/share/nodejs');
        const { WebSocketServer } = require('ws');
        const server = new WebSocketServer({
            host: '127.0.0.1', port: 0, maxPayload: 256 * 1024 * 1024,
            perMessageDeflate: process.argv.includes('--deflate') ? { threshold: 0 } : false,
            handleProtocols: (offered) => offered.has('chat') ? 'chat' : false,
        });
        server.on('listening', () => console.log(server.address().port));
        server.on('connection', (ws, request) => {
            const url = new URL(request.url, 'http://127.0.0.1');
            if (url.pathname === '/echo') {
                ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
            } else if (url.pathname === '/headers') {
                ws.send(JSON.stringify(request.headers));
            } else if (url.pathname === '/close') {
                ws.close(Number(url.searchParams.get('code')), 'bye');
            } else if (url.pathname === '/burst') {
                const count = Number(url.searchParams.get('count')), size = Number(url.searchParams.get('size'));
                for (let i = 0; i < count; i++) ws.send(Buffer.alloc(size, i % 256));
            }
        });
        process.stdin.on('end', () => process.exit(0));
        process.stdin.resume();
        """
}
