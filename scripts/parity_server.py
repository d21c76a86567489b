"""The loopback server of scripts/parity: a small HTTP/1.1 server that logs every request it
receives (method, target, header lines as sent, body) and answers from a fixed set of routes.

Built on raw sockets, not http.server, so that every byte of a reply is chosen here (CRLF heads,
a body cut short, a reply that is no reply, a gzip body nobody asked for) and every byte of a
request is seen as the client sent it (header order and spelling, chunked bodies).

Routes are deterministic. The few that count attempts (`/flaky/N`) count since the last
`reset()`, which the harness calls before each run.
"""

import gzip
import hashlib
import select
import socket
import ssl
import threading
import time
import zlib

REASONS = {
    200: "OK", 201: "Created", 204: "No Content", 206: "Partial Content",
    301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
    307: "Temporary Redirect", 308: "Permanent Redirect",
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    408: "Request Timeout", 416: "Range Not Satisfiable", 429: "Too Many Requests",
    500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
}

# A date that never changes, so that heads are the same in every run.
DATE = "Mon, 01 Jan 2024 00:00:00 GMT"


def file_bytes(name, size):
    """The served file `name`: `size` bytes that depend on the name only."""
    seed = hashlib.sha256(name.encode()).digest()
    block = b""
    counter = 0
    while len(block) < size:
        block += hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return block[:size]


class Request:
    def __init__(self, method, target, version, headers, body):
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers          # [(name, value)] as received
        self.body = body

    @property
    def path(self):
        return self.target.split("?", 1)[0]

    @property
    def query(self):
        return self.target.split("?", 1)[1] if "?" in self.target else ""

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def record(self):
        return {"method": self.method, "target": self.target, "headers": list(self.headers), "body": self.body}


class Reply:
    """What a route answers: a status, header lines and a body; or one of the broken replies."""

    def __init__(self, status=200, headers=None, body=b"", *, raw=None, close=False, delay_body=0.0,
                 cut_after=None, chunked=False, head_only=False):
        self.status = status
        self.headers = headers or []
        self.body = body
        self.raw = raw                  # bytes sent as they are, then the connection is closed
        self.close = close
        self.delay_body = delay_body    # seconds between the head and the body
        self.cut_after = cut_after      # body bytes sent before the connection is closed
        self.chunked = chunked
        self.head_only = head_only      # HEAD: the head of the GET, no body


def text(body, status=200, content_type="text/plain", extra=None):
    data = body.encode() if isinstance(body, str) else body
    return Reply(status, [("Content-Type", content_type)] + (extra or []), data)


class ParityServer:
    def __init__(self, tls_context=None):
        self.lock = threading.Lock()
        self.log = []
        self.counters = {}
        # Connections whose thread is waiting for (or reading) a request: see settled().
        self.reading = set()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.tls_context = tls_context
        self.stopped = False
        threading.Thread(target=self.accept_loop, daemon=True).start()

    # --- bookkeeping ------------------------------------------------------------------------
    def reset(self):
        with self.lock:
            self.log = []
            self.counters = {}

    def requests(self):
        with self.lock:
            return [r.record() for r in self.log]

    def count(self, key):
        with self.lock:
            self.counters[key] = self.counters.get(key, 0) + 1
            return self.counters[key]

    def settled(self):
        """Whether every request a client has sent is in the log: no connection waiting for a
        request has bytes (or its end) unread. Connections busy replying (a slow body) do not
        count: their requests are logged already."""
        with self.lock:
            waiting = list(self.reading)
        for conn in waiting:
            try:
                if isinstance(conn, ssl.SSLSocket) and conn.pending():
                    return False
                readable, _, _ = select.select([conn], [], [], 0)
            except (OSError, ValueError):
                continue
            if readable:
                return False
        return True

    def stop(self):
        self.stopped = True
        try:
            self.sock.close()
        except OSError:
            pass

    # --- connections --------------------------------------------------------------------------
    def accept_loop(self):
        while not self.stopped:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        try:
            if self.tls_context is not None:
                try:
                    conn = self.tls_context.wrap_socket(conn, server_side=True)
                except (ssl.SSLError, OSError):
                    conn.close()
                    return
            conn.settimeout(30)
            reader = conn.makefile("rb")
            while True:
                with self.lock:
                    self.reading.add(conn)
                request = self.read_request(reader, conn)
                with self.lock:
                    if request is not None:
                        self.log.append(request)
                    self.reading.discard(conn)
                if request is None:
                    break
                reply = self.route(request)
                keep = self.send(conn, request, reply)
                if not keep:
                    break
        except (OSError, ValueError):
            pass
        finally:
            with self.lock:
                self.reading.discard(conn)
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def read_request(self, reader, conn):
        line = reader.readline(65536)
        while line in (b"\r\n", b"\n"):
            line = reader.readline(65536)
        if not line:
            return None
        parts = line.decode("latin-1").rstrip("\r\n").split(" ")
        if len(parts) != 3:
            return None
        method, target, version = parts
        headers = []
        while True:
            line = reader.readline(65536)
            if not line:
                return None
            line = line.decode("latin-1").rstrip("\r\n")
            if line == "":
                break
            name, _, value = line.partition(":")
            headers.append((name, value.strip()))
        request = Request(method, target, version, headers, b"")
        expect = request.header("Expect")
        if expect and expect.lower() == "100-continue":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if (request.header("Transfer-Encoding") or "").lower() == "chunked":
            body = b""
            while True:
                size_line = reader.readline(1024).split(b";")[0].strip()
                size = int(size_line, 16)
                if size == 0:
                    while reader.readline(65536) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += reader.read(size)
                reader.readline(16)
            request.body = body
        elif request.header("Content-Length"):
            request.body = reader.read(int(request.header("Content-Length")))
        return request

    def send(self, conn, request, reply):
        """Writes `reply`; returns whether the connection stays open."""
        if reply.raw is not None:
            if reply.raw:
                conn.sendall(reply.raw)
            return False
        status_line = "HTTP/1.1 %d %s\r\n" % (reply.status, REASONS.get(reply.status, "Unknown"))
        headers = [("Date", DATE)] + list(reply.headers)
        body = reply.body
        if reply.chunked:
            headers.append(("Transfer-Encoding", "chunked"))
        elif not any(k.lower() == "content-length" for k, _ in headers) and reply.status not in (204, 304):
            headers.append(("Content-Length", str(len(body))))
        if reply.close or (request.header("Connection") or "").lower() == "close":
            headers.append(("Connection", "close"))
        head = status_line + "".join("%s: %s\r\n" % (k, v) for k, v in headers) + "\r\n"
        conn.sendall(head.encode("latin-1"))
        if request.method == "HEAD" or reply.status in (204, 304):
            return not reply.close
        if reply.delay_body:
            time.sleep(reply.delay_body)
        if reply.chunked:
            for start in range(0, len(body), 7):
                piece = body[start:start + 7]
                conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            conn.sendall(b"0\r\n\r\n")
        elif reply.cut_after is not None:
            conn.sendall(body[:reply.cut_after])
            return False
        else:
            conn.sendall(body)
        return not reply.close

    # --- routes -------------------------------------------------------------------------------
    def route(self, request):
        path = request.path
        parts = path.strip("/").split("/")
        head = parts[0]
        handler = ROUTES.get(head)
        if handler is None:
            return text("not found: %s\n" % path, 404)
        return handler(self, request, parts[1:])


def r_hello(server, request, rest):
    return text("hello\n")


def r_json(server, request, rest):
    return text('{"name":"pen","price":1.10,"tags":["a","b"]}', content_type="application/json")


def r_echo(server, request, rest):
    """The request as the server read it, as text: method, target, body."""
    body = "%s %s\n" % (request.method, request.target)
    ctype = request.header("Content-Type")
    if ctype:
        body += "content-type: %s\n" % ctype
    return text(body.encode() + request.body)


def r_status(server, request, rest):
    code = int(rest[0]) if rest and rest[0].isdigit() else 200
    return text("status %d page\n" % code, code)


def r_redirect(server, request, rest):
    """/redirect/N: N hops (302, relative Location) down to /redirect/0, which says 'done'."""
    n = int(rest[0]) if rest and rest[0].isdigit() else 0
    if n <= 0:
        return text("done after redirects\n")
    return text("redirecting to %d\n" % (n - 1), 302, extra=[("Location", "/redirect/%d" % (n - 1))])


def r_loop(server, request, rest):
    return text("around again\n", 302, extra=[("Location", "/loop")])


def r_moved(server, request, rest):
    """/moved/CODE: a redirect of that status to /echo (the method and body the client sends)."""
    code = int(rest[0]) if rest and rest[0].isdigit() else 302
    return text("moved with %d\n" % code, code, extra=[("Location", "/echo/after-%d" % code)])


def r_absolute(server, request, rest):
    host = request.header("Host") or "127.0.0.1"
    return text("elsewhere\n", 301, extra=[("Location", "http://%s/hello" % host)])


FILES = {"data.bin": 20000, "small.txt": 64, "report.pdf": 3000, "norange": 5000}


def r_files(server, request, rest):
    """/files/NAME: a fixed file with ETag, Last-Modified, and byte ranges (Range, If-Range)."""
    name = rest[-1] if rest else ""
    if name not in FILES:
        return text("no such file\n", 404)
    data = file_bytes(name, FILES[name])
    etag = '"%s"' % hashlib.md5(data).hexdigest()[:12]
    common = [("Content-Type", "application/octet-stream"), ("ETag", etag),
              ("Last-Modified", "Sun, 31 Dec 2023 12:00:00 GMT"), ("Accept-Ranges", "bytes")]
    wanted = request.header("Range")
    if_range = request.header("If-Range")
    if wanted and wanted.startswith("bytes=") and (if_range is None or if_range == etag):
        spec = wanted[6:].split(",")[0]
        first, _, last = spec.partition("-")
        if first == "":
            start = max(0, len(data) - int(last))
            end = len(data) - 1
        else:
            start = int(first)
            end = int(last) if last else len(data) - 1
        if start >= len(data):
            return Reply(416, [("Content-Range", "bytes */%d" % len(data)), ("Content-Type", "text/plain")],
                         b"range not satisfiable\n")
        end = min(end, len(data) - 1)
        return Reply(206, common + [("Content-Range", "bytes %d-%d/%d" % (start, end, len(data)))],
                     data[start:end + 1])
    return Reply(200, common, data)


def r_norange(server, request, rest):
    """A file served whole whatever the Range says."""
    return Reply(200, [("Content-Type", "application/octet-stream")], file_bytes("norange", 5000))


def r_badrange(server, request, rest):
    """/badrange/KIND: a 206 that does not resume where the Range asked: its Content-Range starts
    100 bytes early or late, or (whole) it has none and carries the whole file."""
    kind = rest[0] if rest else "whole"
    data = file_bytes("norange", 5000)
    wanted = request.header("Range") or "bytes=0-"
    asked = int(wanted[6:].split("-")[0] or 0)
    start = {"early": asked - 100, "late": asked + 100}.get(kind)
    if start is None:
        return Reply(206, [("Content-Type", "application/octet-stream")], data)
    start = min(max(start, 0), len(data) - 1)
    return Reply(206, [("Content-Type", "application/octet-stream"),
                       ("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))], data[start:])


def r_disposition(server, request, rest):
    """/disposition/KIND: a Content-Disposition naming the file, in the forms servers use."""
    kind = rest[0] if rest else "plain"
    names = {
        "plain": 'attachment; filename="report.txt"',
        "bare": "attachment; filename=notes.txt",
        "path": 'attachment; filename="../../escape/evil.txt"',
        "abs": 'attachment; filename="/tmp/abs-evil.txt"',
        "none": None,
    }
    value = names.get(kind)
    extra = [("Content-Disposition", value)] if value else []
    return text("the %s report\n" % kind, extra=extra)


GZIP_TEXT = b"compressed text, " * 40 + b"\n"


def gzip_bytes():
    # mtime 0: the same bytes in every run.
    return gzip.compress(GZIP_TEXT, mtime=0)


def r_gzip(server, request, rest):
    """Gzip whether or not the client asked (as some servers do)."""
    return Reply(200, [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], gzip_bytes())


def r_negotiated(server, request, rest):
    """Gzip when Accept-Encoding offers it, plain otherwise."""
    if "gzip" in (request.header("Accept-Encoding") or ""):
        return Reply(200, [("Content-Type", "text/plain"), ("Content-Encoding", "gzip"),
                           ("Vary", "Accept-Encoding")], gzip_bytes())
    return Reply(200, [("Content-Type", "text/plain"), ("Vary", "Accept-Encoding")], GZIP_TEXT)


def r_slow(server, request, rest):
    """The head at once, the body after 4 s: for --max-time."""
    return Reply(200, [("Content-Type", "text/plain")], b"finally\n", delay_body=4.0)


def r_flaky(server, request, rest):
    """/flaky/N/STATUS: STATUS (503 by default) for the first N requests since reset, then 200."""
    n = int(rest[0]) if rest and rest[0].isdigit() else 1
    status = int(rest[1]) if len(rest) > 1 and rest[1].isdigit() else 503
    if server.count("flaky") <= n:
        return text("try again\n", status, extra=[("Retry-After", "0")] if status in (503, 429) else [])
    return text("worked\n")


def r_flakyclose(server, request, rest):
    """/flakyclose/N: an empty reply (the connection closed) for the first N requests, then 200."""
    n = int(rest[0]) if rest and rest[0].isdigit() else 1
    if server.count("flakyclose") <= n:
        return Reply(raw=b"")
    return text("worked\n")


def r_emptyreply(server, request, rest):
    return Reply(raw=b"")


def r_cut(server, request, rest):
    """A Content-Length of 100 and 40 bytes, then the connection is closed."""
    return Reply(200, [("Content-Type", "application/octet-stream"), ("Content-Length", "100")],
                 b"x" * 100, cut_after=40)


def r_chunked(server, request, rest):
    return Reply(200, [("Content-Type", "text/plain")], b"sent in chunks of seven bytes\n", chunked=True)


def r_empty(server, request, rest):
    return Reply(200, [("Content-Type", "text/plain")], b"")


def r_etag(server, request, rest):
    """ETag "v7"; 304 to an If-None-Match that names it."""
    if request.header("If-None-Match") == '"v7"':
        return Reply(304, [("ETag", '"v7"')])
    return text("tagged body\n", extra=[("ETag", '"v7"')])


def r_cookie(server, request, rest):
    """Sets a cookie, and shows the Cookie header the client sent."""
    sent = request.header("Cookie") or "(none)"
    return text("cookie: %s\n" % sent, extra=[("Set-Cookie", "session=abc123; Path=/"),
                                             ("Set-Cookie", "lang=en; Path=/; Max-Age=3600")])


def r_upload(server, request, rest):
    """Takes a PUT or POST and says what arrived."""
    return text("%s %s: %d bytes, sha256 %s\n" % (request.method, request.path, len(request.body),
                                                   hashlib.sha256(request.body).hexdigest()[:16]), 201)


def r_headers(server, request, rest):
    """A head with several fields, a repeated one among them."""
    return Reply(200, [("Content-Type", "text/plain; charset=utf-8"), ("X-One", "1"), ("X-Many", "a"),
                       ("X-Many", "b"), ("Cache-Control", "no-store")], b"with headers\n")


def r_auth(server, request, rest):
    if request.header("Authorization") == "Basic YWxpY2U6c2VjcmV0":
        return text("welcome alice\n")
    return text("who are you?\n", 401, extra=[("WWW-Authenticate", 'Basic realm="parity"')])


def r_deflate(server, request, rest):
    return Reply(200, [("Content-Type", "text/plain"), ("Content-Encoding", "deflate")], zlib.compress(GZIP_TEXT))


def r_nolength(server, request, rest):
    """A body ended by closing the connection (no Content-Length, no chunks)."""
    head = ("HTTP/1.1 200 OK\r\nDate: %s\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n" % DATE).encode()
    return Reply(raw=head + b"until the connection closes\n")


ROUTES = {
    "hello": r_hello, "json": r_json, "echo": r_echo, "status": r_status, "redirect": r_redirect,
    "loop": r_loop, "moved": r_moved, "absolute": r_absolute, "files": r_files, "norange": r_norange,
    "badrange": r_badrange,
    "disposition": r_disposition, "gzip": r_gzip, "negotiated": r_negotiated, "slow": r_slow,
    "flaky": r_flaky, "flakyclose": r_flakyclose, "emptyreply": r_emptyreply, "cut": r_cut,
    "chunked": r_chunked, "empty": r_empty, "etag": r_etag, "cookie": r_cookie, "upload": r_upload,
    "headers": r_headers, "auth": r_auth, "deflate": r_deflate, "nolength": r_nolength,
}


def tls_context(cert, key):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context
