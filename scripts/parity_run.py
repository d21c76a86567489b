"""scripts/parity: runs every case of parity_cases.py with the real curl and with courier, against
the loopback server of parity_server.py, and compares what each left behind.

For each case and each tool: a fresh folder (the case's input files written into it; it is also
HOME, so ~/.curlrc is the case's own), the server's log cleared, the tool run with the case's
arguments and stdin. Compared, after the few normalisations that must be made (see `normalise_*`):
  exit   the exit status
  stdout the bytes on stdout
  files  every file left in the folder, by name and bytes
  sent   the requests the server received: method, target (path and query), header fields
         (names without case; User-Agent's product and version, Host's port, and the boundary of
         a multipart body normalised), body
  quiet  for cases that ask for silence (-s without -S, --no-progress-meter): whether stderr is
         empty
A case may declare aspects where courier differs on purpose (`differs`), each with its reason;
those aspects are shown but not held against the score.
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity_cases  # noqa: E402
import parity_server  # noqa: E402

ASPECTS = ("exit", "stdout", "files", "sent", "quiet")


def free_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def make_certificate(folder):
    cert = os.path.join(folder, "cert.pem")
    key = os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
    return cert, key


class Environment:
    """The servers a run needs, and what the placeholders of a case stand for."""

    def __init__(self, work):
        self.server = parity_server.ParityServer()
        cert, key = make_certificate(work)
        self.tls_server = parity_server.ParityServer(parity_server.tls_context(cert, key))
        self.refused_port = free_port()
        self.values = {
            "U": "http://127.0.0.1:%d" % self.server.port,
            "T": "https://127.0.0.1:%d" % self.tls_server.port,
            "R": "http://127.0.0.1:%d" % self.refused_port,
            "P": str(self.server.port),
        }

    def expand(self, value):
        if isinstance(value, bytes):
            for key, replacement in self.values.items():
                value = value.replace(b"{%s}" % key.encode(), replacement.encode())
            return value
        for key, replacement in self.values.items():
            value = value.replace("{%s}" % key, replacement)
        return value

    def reset(self):
        self.server.reset()
        self.tls_server.reset()

    def requests(self):
        # A request the tool sent just before it exited may still be on its way through the
        # server's thread: wait until no connection has unread bytes (the tool has exited, so
        # nothing more comes), and the log has been still for a moment.
        last = None
        stable_since = time.monotonic()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            current = self.server.requests() + self.tls_server.requests()
            if current != last:
                last = current
                stable_since = time.monotonic()
            elif time.monotonic() - stable_since > 0.02 and self.server.settled() and self.tls_server.settled():
                break
            time.sleep(0.005)
        return last


class Outcome:
    def __init__(self, status, stdout, stderr, files, sent, seconds):
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.files = files
        self.sent = sent
        self.seconds = seconds


def snapshot(folder):
    files = {}
    for root, dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, folder)
            if os.path.islink(path):
                files[relative] = b"-> " + os.readlink(path).encode()
            else:
                with open(path, "rb") as handle:
                    files[relative] = handle.read()
        for name in dirs:
            path = os.path.join(root, name)
            if not os.listdir(path):
                files[os.path.relpath(path, folder) + "/"] = b""
    return files


def run_tool(executable, case, env, folder):
    # HOME is a folder of its own beside the working folder: what a tool keeps there (curl reads
    # ~/.curlrc; Foundation makes ~/.cache and ~/.local/share/tmp) is not a file it left behind.
    home = folder + "-home"
    os.makedirs(folder)
    os.makedirs(home)
    for name, content in list(case.files.items()) + [("~/" + n, c) for n, c in case.home_files.items()]:
        path = os.path.join(home, name[2:]) if name.startswith("~/") else os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, tuple):
            # ("PARTIAL", route file, bytes): the first bytes of a file the server serves.
            _, served, size = content
            content = parity_server.file_bytes(served, parity_server.FILES.get(served, 5000))[:size]
        else:
            content = env.expand(content)
        with open(path, "wb") as handle:
            handle.write(content)
    arguments = [env.expand(argument) for argument in case.args]
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LC_ALL": "C.UTF-8"}
    if os.environ.get("COURIER_ENGINE"):
        environment["COURIER_ENGINE"] = os.environ["COURIER_ENGINE"]
    env.reset()
    started = time.monotonic()
    try:
        completed = subprocess.run([executable] + arguments, cwd=folder, env=environment,
                                   input=env.expand(case.stdin) if case.stdin is not None else b"",
                                   capture_output=True, timeout=case.timeout)
        status, stdout, stderr = completed.returncode, completed.stdout, completed.stderr
    except subprocess.TimeoutExpired as expired:
        status, stdout, stderr = "hung", expired.stdout or b"", expired.stderr or b""
    seconds = time.monotonic() - started
    sent = env.requests()
    files = snapshot(folder)
    return Outcome(status, stdout, stderr, files, sent, seconds)


# --- normalisation ---------------------------------------------------------------------------------

AGENT = re.compile(r"^(curl|courier)/[0-9A-Za-z.\-+]+$")


IGNORED_HEADERS = set()


def normalise_request(record, port):
    headers = []
    boundary = None
    for name, value in record["headers"]:
        lowered = name.lower()
        if lowered in IGNORED_HEADERS:
            continue
        if lowered == "expect" and value.lower() == "100-continue":
            # A negotiation of the transport, not part of the request: curl 7.88 asks before a PUT
            # body; the library never waits for a 100 that many servers never send.
            continue
        if lowered == "user-agent" and AGENT.match(value):
            value = "<tool>/<version>"
        elif lowered == "host":
            value = value.replace(":%d" % port, ":<port>")
        elif lowered == "content-type" and "boundary=" in value:
            boundary = value.split("boundary=", 1)[1].strip('"')
            value = value.replace(boundary, "<boundary>")
        headers.append((lowered, value))
    body = record["body"]
    if boundary:
        body = body.replace(boundary.encode(), b"<boundary>")
        headers = [(n, v.replace(str(len(record["body"])), str(len(body))) if n == "content-length" else v)
                   for n, v in headers]
    return {"method": record["method"], "target": record["target"], "headers": sorted(headers),
            "body": body}


def normalise_files(files):
    result = {}
    for name, content in files.items():
        if content.startswith(b"# Netscape HTTP Cookie File"):
            # The comment lines after the first are each tool's own words.
            # The order of the cookies in the file means nothing, and an expiry computed from a
            # Max-Age depends on the second the response came.
            lines = [re.sub(rb"\t1[0-9]{9}\t", b"\t<expiry>\t", line)
                     for line in content.split(b"\n") if line and not line.startswith(b"# ")]
            content = b"\n".join(sorted(lines))
        result[name] = content
    return result


def apply_rules(data, rules):
    for pattern, replacement in rules:
        data = re.sub(pattern.encode() if isinstance(pattern, str) else pattern,
                      replacement.encode() if isinstance(replacement, str) else replacement, data)
    return data


def views(outcome, case, port):
    sent = [normalise_request(record, port) for record in outcome.sent]
    if case.unordered:
        sent = sorted(sent, key=repr)
    return {
        "exit": outcome.status,
        "stdout": case.stdout_transform(apply_rules(outcome.stdout, case.stdout_rules)),
        "files": normalise_files({k: apply_rules(v, case.file_rules) for k, v in outcome.files.items()}),
        "sent": sent,
        "quiet": (outcome.stderr == b"") if case.quiet else None,
    }


def show(value, limit=400):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def compare(case, curl, courier, port):
    a = views(curl, case, port)
    b = views(courier, case, port)
    return {aspect: a[aspect] == b[aspect] for aspect in ASPECTS}, a, b


def main():
    parser = argparse.ArgumentParser(description="courier against curl, case by case")
    parser.add_argument("--courier", required=True)
    parser.add_argument("--curl", default="curl")
    parser.add_argument("--only", help="run the cases whose name matches this regular expression")
    parser.add_argument("--verbose", "-v", action="store_true", help="show every difference")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 if any case differs outside its declared differences")
    parser.add_argument("--ignore-header", action="append", default=[],
                        help="leave this request header out of the comparison (to look past a known difference)")
    options = parser.parse_args()
    options.courier = os.path.abspath(options.courier)
    IGNORED_HEADERS.update(name.lower() for name in options.ignore_header)

    cases = parity_cases.CASES
    names = [case.name for case in cases]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        sys.exit("duplicate case names: %s" % ", ".join(sorted(duplicates)))
    if options.only:
        cases = [case for case in cases if re.search(options.only, case.name)]
    if options.list:
        for case in cases:
            print("%-28s %s" % (case.name, " ".join(case.args)))
        return 0

    work = tempfile.mkdtemp(prefix="courier-parity-")
    results = []
    try:
        env = Environment(work)
        port = env.server.port
        for index, case in enumerate(cases):
            base = os.path.join(work, "%03d-%s" % (index, case.name))
            curl = run_tool(options.curl, case, env, os.path.join(base, "curl"))
            courier = run_tool(options.courier, case, env, os.path.join(base, "courier"))
            equal, a, b = compare(case, curl, courier, port)
            declared = set(case.differs)
            undeclared = [aspect for aspect in ASPECTS if not equal[aspect] and aspect not in declared]
            exact = all(equal.values())
            status = "same" if exact else ("declared" if not undeclared else "DIFFERS")
            results.append({"name": case.name, "status": status, "undeclared": undeclared,
                            "differing": [x for x in ASPECTS if not equal[x]],
                            "declared": case.differs, "seconds": [curl.seconds, courier.seconds]})
            line = "%-6s %-30s" % ({"same": "ok", "declared": "ok*", "DIFFERS": "FAIL"}[status], case.name)
            if not exact:
                line += " differs in " + ", ".join(x for x in ASPECTS if not equal[x])
            print(line, flush=True)
            if status == "DIFFERS" or (options.verbose and not exact):
                for aspect in ASPECTS:
                    if not equal[aspect]:
                        print("         %s curl:    %s" % (aspect, show(a[aspect])))
                        print("         %s courier: %s" % (aspect, show(b[aspect])))
                if curl.stderr or courier.stderr:
                    print("         stderr curl:    %s" % show(curl.stderr, 200))
                    print("         stderr courier: %s" % show(courier.stderr, 200))
        env.server.stop()
        env.tls_server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    same = sum(1 for r in results if r["status"] == "same")
    declared = sum(1 for r in results if r["status"] == "declared")
    failed = [r["name"] for r in results if r["status"] == "DIFFERS"]
    print()
    print("parity: %d of %d cases identical to curl; %d more differ only where declared; %d differ"
          % (same, len(results), declared, len(failed)))
    # For scripts/ci-tally: a case passes when it differs from curl nowhere but where it declares.
    print("== parity: %d of %d cases identical to curl, or different only where declared (%d identical, %d declared)"
          % (same + declared, len(results), same, declared))
    if failed:
        print("differing: " + ", ".join(failed))
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(results, handle, indent=1)
    return 1 if (options.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
