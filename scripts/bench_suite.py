#!/usr/bin/env python3
"""Runs Courier's benchmark cases against the nginx that scripts/bench started, then writes the report.

Each measurement is its own process (the Benchmarks executable, or curl), so CPU seconds and
peak RSS are that measurement's alone. Cases are run in rounds: every round runs every client
of every case once, the clients' order rotating from round to round, so that slow drift of the
machine (thermal, page cache, other tenants) hits every client alike.

Called by scripts/bench; not meant to be run by hand (it needs the server and files set up).
"""

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree

import bench_profile
import bench_report


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=["full", "smoke"], required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--bin", required=True, help="the Benchmarks executable")
    parser.add_argument("--shim", default="", help="malloc-count.so, or empty")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--small", required=True)
    parser.add_argument("--small-bytes", type=int, required=True)
    parser.add_argument("--large", required=True)
    parser.add_argument("--large-bytes", type=int, required=True)
    parser.add_argument("--work", required=True, help="scratch folder, removed by scripts/bench")
    parser.add_argument("--output", required=True, help="the Markdown report to write")
    parser.add_argument("--results", required=True, help="raw results as JSON, for reference")
    parser.add_argument("--profile", choices=["0", "1", "auto"], default="auto")
    parser.add_argument("--tls-base-url", default="", help="nginx's TLS listener (HTTP/2 by ALPN), for the multiplex group")
    parser.add_argument("--cacert", default="", help="the authority of nginx's TLS certificate")
    parser.add_argument("--groups", default="", help="run only these groups (comma-separated: small, download, cancel, "
                        "overhead, multiplex, scale); the report is then the sections of those groups, spliced into --output "
                        "(only multiplex and scale can be spliced)")
    parser.add_argument("--fd-limit", type=int, default=0,
                        help="the hard RLIMIT_NOFILE (ulimit -Hn); scale points that need more descriptors are skipped")
    parser.add_argument("--libcurl", action="append", default=[], metavar="DIR",
                        help="a folder holding another libcurl.so.4 (repeatable): the scale group also measures RSS per "
                        "request in flight at 1 and 1,024 (32 in a smoke run) on it (LD_LIBRARY_PATH=DIR), Courier and bare-multi")
    return parser.parse_args()


class Case:
    """One client of one benchmark group, and every run of it."""

    def __init__(self, group, client, label, command=None, curl=None, alloc_command=None, curl_parallel=None, env=None):
        self.group = group
        self.client = client
        self.label = label
        self.command = command
        self.curl = curl  # (url, destination, extra flags) when the client is `curl -o` itself
        # (url, count, parallel, http flag) for one curl process fetching `count` URLs: `curl -Z`
        # with `parallel` in flight, or one after the other when `parallel` is None.
        self.curl_parallel = curl_parallel
        self.alloc_command = alloc_command  # overhead: the same case again under the malloc shim
        self.env = env  # the process's environment when not this one's (another libcurl)
        self.runs = []
        self.failures = []

    @property
    def key(self):
        return f"{self.group}/{self.client}"


def plan(args):
    """The groups of cases, in the order a round runs them."""
    bench, base, work = args.bin, args.base_url, args.work
    smoke = args.mode == "smoke"
    small_url = f"{base}/{args.small}"
    large_url = f"{base}/{args.large}"
    out = os.path.join(work, "out")
    count = 50 if smoke else 5000
    cancel_at = (2 << 20) if smoke else (100 << 20)
    overhead_count = 2000 if smoke else 50_000
    cli_count = CLI_REQUESTS[args.mode]
    labels = {
        "bare-multi": "bare libcurl, multi handle (`bare-multi`)",
        "bare-easy": "bare libcurl, `curl_easy_perform` loop (`bare-easy`)",
        "curl-cli": f"curl CLI, {cli_count:,} URLs in one process",
        "urlsession": "URLSession (completion handler)",
        "urlsession-again": "URLSession (completion handler), again: A/A",
        "urlsession-delegate": "URLSession (session delegate, reference)",
        "callback": "Courier callback",
        "blocking": "Courier blocking",
        "async": "Courier async",
        "curl-callback": "Courier callback, curl engine",
        "curl-blocking": "Courier blocking, curl engine",
        "curl-async": "Courier async, curl engine",
    }

    def engine_args(client):
        """The Benchmarks arguments of a Courier client: `curl-*` clients run on the curl engine."""
        if client.startswith("curl-"):
            return [client[len("curl-"):], "--engine", "curl"]
        if client in ("callback", "blocking", "async", "courier", "courier-download"):
            return [client, "--engine", "urlsession"]
        return [client.replace("-again", "")]
    groups = []
    for concurrency in (1, 32):
        # "urlsession-again" runs the baseline a second time in every round: the spread between
        # two identical clients is the resolution of the comparison (the A/A ratio in the report).
        # The bare libcurl clients run in the same rounds as the curl engine's, so that the
        # fractions of them the report gives come from side-by-side runs.
        clients = ["urlsession", "urlsession-delegate", "callback", "blocking", "async",
                   "curl-callback", "curl-blocking", "curl-async", "bare-multi"]
        if concurrency == 1:
            clients.append("bare-easy")
        group = [
            Case(f"small-{concurrency}", client, labels[client],
                 [bench, "small", "--client", *engine_args(client), "--url", small_url, "--count", str(count),
                  "--concurrency", str(concurrency), "--expect-bytes", str(args.small_bytes)])
            for client in clients + ["urlsession-again"]]
        if concurrency == 1:
            # The curl command-line tool fetching many URLs one after the other in one process
            # (`-K`, one connection kept alive): what a shell script gets.
            group.append(Case("small-1", "curl-cli", labels["curl-cli"],
                              curl_parallel=(small_url, cli_count, None, "--http1.1")))
        groups.append(group)
    download = []
    for client, label in (("curl", "curl -o"), ("urlsession", "URLSession.downloadTask (delegate)"),
                          ("urlsession-data", "URLSession data task → file (reference)"),
                          ("courier", "Courier download"), ("curl-courier", "Courier download, curl engine")):
        destination = os.path.join(out, f"download-{client}.bin")
        if client == "curl":
            download.append(Case("download", client, label, curl=(large_url, destination, [])))
        else:
            download.append(Case("download", client, label,
                                 [bench, "download", "--client", *engine_args(client), "--url", large_url, "--to", destination,
                                  "--warmup-url", small_url, "--expect-bytes", str(args.large_bytes)]))
    if args.tls_base_url:
        # The same download over HTTP/2, from nginx's TLS listener: `curl --http2 -o` against the
        # curl engine with ConnectionOptions(httpVersion: .http2).
        tls_large = f"{args.tls_base_url}/{args.large}"
        destination = os.path.join(out, "download-curl-h2.bin")
        download.append(Case("download", "curl-h2", "curl --http2 -o (TLS)",
                             curl=(tls_large, destination, ["--http2", "--cacert", args.cacert])))
        destination = os.path.join(out, "download-curl-courier-h2.bin")
        download.append(Case("download", "curl-courier-h2", "Courier download, curl engine, HTTP/2 (TLS)",
                             [bench, "download", "--client", "courier", "--engine", "curl", "--url", tls_large,
                              "--to", destination, "--warmup-url", f"{args.tls_base_url}/{args.small}",
                              "--expect-bytes", str(args.large_bytes), "--http", "2", "--cacert", args.cacert]))
    groups.append(download)
    groups.append([
        Case("cancel", client, label,
             [bench, "cancel", "--client", *engine_args(client), "--url", large_url, "--at-bytes", str(cancel_at),
              "--warmup-url", small_url, "--to", os.path.join(out, f"cancel-{client}.bin")])
        for client, label in (("urlsession", "URLSession data task (delegate)"),
                              ("courier", "Courier schedule (body in memory)"),
                              ("courier-download", "Courier download (body to a file, partial kept)"),
                              ("curl-courier", "Courier schedule, curl engine"),
                              ("curl-courier-download", "Courier download, curl engine"))])
    overhead = []
    for style in ("callback", "blocking", "async"):
        for concurrency in (1, 64):
            command = [bench, "overhead", "--client", style, "--count", str(overhead_count),
                       "--concurrency", str(concurrency)]
            # Counting allocations costs an atomic add per malloc: time without the shim, count with it.
            overhead.append(Case("overhead", f"{style}-{concurrency}",
                                 f"{labels[style]}, {'sequential' if concurrency == 1 else f'{concurrency} in flight'}",
                                 command, alloc_command=command if args.shim else None))
    # The floor: what one thread hand-off and back costs on this machine, with no Courier at all.
    overhead.append(Case("overhead", "round-trip", "reference: `DispatchQueue.async` + semaphore back, no Courier",
                         [bench, "overhead", "--client", "round-trip", "--count", str(overhead_count)]))
    groups.append(overhead)
    if args.tls_base_url:
        # HTTP/2 multiplexing: 32 in flight over one connection against HTTP/1.1 over 32, on the
        # same TLS nginx, and `curl -Z` doing the same with the same URLs.
        tls_url = f"{args.tls_base_url}/{args.small}"
        multiplex = []
        for http, flag in (("2", "--http2"), ("1.1", "--http1.1")):
            multiplex.append(Case("multiplex", f"courier-h{http}", f"Courier callback, curl engine, HTTP/{http}",
                                  [bench, "small", "--client", "callback", "--engine", "curl", "--url", tls_url,
                                   "--count", str(count), "--concurrency", "32", "--expect-bytes", str(args.small_bytes),
                                   "--http", http, "--cacert", args.cacert]))
            multiplex.append(Case("multiplex", f"curl-h{http}", f"`curl -Z --parallel-max 32 {flag}`",
                                  curl_parallel=(tls_url, count, 32, flag)))
        groups.append(multiplex)
    # The scaling curve: one Network (curl engine, callbacks, maximumConcurrentRequests N, and
    # httpMaximumConnectionsPerHost N so that N in flight are N connections) against bare-multi
    # (no host limit), at each N; one group per point, so every round runs both clients of it.
    for in_flight in scale_points(args)[0]:
        requests = scale_requests(args.mode, in_flight)
        common = ["--url", small_url, "--count", str(requests), "--concurrency", str(in_flight),
                  "--expect-bytes", str(args.small_bytes)]
        groups.append([
            Case(f"scale-{in_flight}", "courier", f"Courier callback, curl engine, {in_flight:,} in flight",
                 [bench, "small", "--client", "callback", "--engine", "curl", *common,
                  "--connections-per-host", str(in_flight)]),
            Case(f"scale-{in_flight}", "bare", f"bare libcurl multi, {in_flight:,} in flight",
                 [bench, "small", "--client", "bare-multi", *common, "--connections-per-host", "0"]),
        ])
    # The same memory measure on other libcurls: each libcurl's own memory per transfer differs
    # (its receive buffer, whether Courier can reuse its easy handles), so one libcurl cannot say
    # what share of a request in flight is Courier's.
    if libcurl_point(args):
        for index, folder in enumerate(args.libcurl):
            env = libcurl_env(folder)
            group = []
            for in_flight in (1, libcurl_point(args)):
                common = ["--url", small_url, "--count", str(scale_requests(args.mode, in_flight)),
                          "--concurrency", str(in_flight), "--expect-bytes", str(args.small_bytes)]
                group += [
                    Case(f"scale-libcurl{index}", f"courier-{in_flight}", f"Courier callback, curl engine, {folder}",
                         [bench, "small", "--client", "callback", "--engine", "curl", *common,
                          "--connections-per-host", str(in_flight)], env=env),
                    Case(f"scale-libcurl{index}", f"bare-{in_flight}", f"bare libcurl multi, {folder}",
                         [bench, "small", "--client", "bare-multi", *common, "--connections-per-host", "0"], env=env),
                ]
            groups.append(group)
    if args.groups:
        wanted = set(args.groups.split(","))
        groups = [group for group in groups if group[0].group.split("-")[0] in wanted]
    return groups


# Requests of the curl CLI row (one process fetching them one after the other).
CLI_REQUESTS = {"full": 2000, "smoke": 50}
# The scaling curve's points (requests in flight), and the descriptors a point needs beyond its
# connections (the process's own files, the curl loop's wake-up sockets, nginx's listeners).
SCALE_POINTS = {"full": (1, 8, 32, 128, 1024, 10_000), "smoke": (1, 8, 32)}
SCALE_DESCRIPTOR_MARGIN = 256


# The point of the curve at which other libcurls (--libcurl) are measured too.
LIBCURL_POINT = {"full": 1024, "smoke": 32}


def libcurl_point(args):
    """Requests in flight of the --libcurl rows; None when this machine's descriptors cannot hold them."""
    point = LIBCURL_POINT[args.mode]
    return point if not args.fd_limit or point + SCALE_DESCRIPTOR_MARGIN <= args.fd_limit else None


def libcurl_env(folder):
    """This environment, with the curl engine's dlopen("libcurl.so.4") pointed at `folder`."""
    return {**os.environ, "LD_LIBRARY_PATH": folder}


def scale_requests(mode, in_flight):
    """Requests per scaling point: enough that every connection serves several of them."""
    return max(100, 3 * in_flight) if mode == "smoke" else max(5000, 3 * in_flight)


def scale_points(args):
    """(points to run, points skipped because the descriptor limit cannot hold them)."""
    points = SCALE_POINTS[args.mode]
    if not args.fd_limit:
        return points, ()
    fits = tuple(n for n in points if n + SCALE_DESCRIPTOR_MARGIN <= args.fd_limit)
    return fits, tuple(n for n in points if n not in fits)


def cpu_busy_fraction(interval=0.25):
    """How busy all CPUs were over `interval` seconds (0–1), from /proc/stat; None off Linux."""
    def sample():
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields), idle
    try:
        total_before, idle_before = sample()
        time.sleep(interval)
        total_after, idle_after = sample()
    except (OSError, ValueError, IndexError):
        return None
    elapsed = total_after - total_before
    return 1 - (idle_after - idle_before) / elapsed if elapsed > 0 else None


def wait_until_quiet(limit, threshold=0.15):
    """Waits (at most `limit` seconds) until other work leaves the CPUs mostly idle, so that a
    measurement does not start while a compiler or test suite is running beside it. Returns how
    busy the machine was when the measurement started."""
    deadline = time.monotonic() + limit
    while True:
        busy = cpu_busy_fraction()
        if busy is None or busy <= threshold or time.monotonic() >= deadline:
            return busy
        time.sleep(1)


def run_benchmark(command, timeout, env=None):
    """Runs one Benchmarks process and returns its JSON line (a dict); raises on failure."""
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not lines:
        detail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"exit {completed.returncode}: {' / '.join(detail) or 'no output'}")
    return json.loads(lines[-1])


def run_curl(url, destination, flags, expected_bytes, timeout):
    """Times `curl -o` itself: wall clock around it, and its own rusage from wait4."""
    start = time.monotonic()
    process = subprocess.Popen(["curl", "-sS", "-f", *flags, "-o", destination, url], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("curl timed out")
        time.sleep(0.001)
    seconds = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode().strip()
    try:
        size = os.path.getsize(destination)
    except OSError:
        size = -1
    finally:
        if os.path.exists(destination):
            os.remove(destination)
    if process.returncode != 0 or size != expected_bytes:
        raise RuntimeError(f"curl exit {process.returncode}, {size} bytes: {error}")
    return {
        "case": "download", "client": "curl", "bytes": size, "seconds": seconds,
        "mb_per_second": size / seconds / 1e6, "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "maxrss_bytes": usage.ru_maxrss * 1024,  # KiB on Linux
    }


def run_curl_parallel(url, count, parallel, http_flag, cacert, work, timeout, case_name):
    """Times one curl process making `count` GETs of `url`, bodies discarded: `curl -Z` with
    `parallel` in flight, or (`parallel` None) one after the other; its own rusage, and the
    connections it opened (the sum of its `%{num_connects}`)."""
    config = os.path.join(work, f"curl-{'parallel' if parallel else 'sequential'}-{http_flag.strip('-')}.txt")
    with open(config, "w") as file:
        for _ in range(count):
            file.write(f'url = "{url}"\noutput = "/dev/null"\n')
    command = ["curl", "-sS", "-f", http_flag]
    if parallel:
        command += ["-Z", "--parallel-max", str(parallel)]
    if cacert and url.startswith("https:"):
        command += ["--cacert", cacert]
    command += ["-w", "%{num_connects} %{http_version}\n", "-K", config]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    output, error = process.communicate(timeout=timeout)
    seconds = time.monotonic() - start
    # communicate() reaped the child already: its rusage is in this process's children's total.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = output.decode().split("\n")
    lines = [line.split() for line in lines if line.strip()]
    if process.returncode != 0 or len(lines) != count:
        raise RuntimeError(f"curl -Z exit {process.returncode}, {len(lines)} transfers: {error.decode().strip()[-200:]}")
    return {
        "case": case_name, "client": "curl", "requests": count, "seconds": seconds,
        "requests_per_second": count / seconds, "connections": sum(int(fields[0]) for fields in lines),
        "http": lines[-1][1], "cpu_seconds_total_children": usage.ru_utime + usage.ru_stime,
    }


def run_case(case, args, timeout):
    if case.curl:
        return run_curl(*case.curl, args.large_bytes, timeout)
    if case.curl_parallel:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = run_curl_parallel(*case.curl_parallel, args.cacert, args.work, timeout, case.group.split("-")[0])
        after = result.pop("cpu_seconds_total_children")
        cpu = after - (before.ru_utime + before.ru_stime)
        result["cpu_seconds"] = cpu
        result["cpu_us_per_request"] = cpu / result["requests"] * 1e6
        return result
    result = run_benchmark(case.command, timeout, env=case.env)
    if case.alloc_command:
        counted = run_benchmark(case.alloc_command, timeout, env={**os.environ, "LD_PRELOAD": args.shim})
        result["allocations_per_request"] = counted.get("allocations_per_request")
    return result


def summary(case, result):
    """A few words for the progress log."""
    for key, unit in (("requests_per_second", "req/s"), ("mb_per_second", "MB/s"),
                      ("completion_ms", "ms to completion"), ("ns_per_request", "ns/request")):
        if key in result and result[key] is not None:
            return f"{result[key]:,.1f} {unit}"
    return ""


def command_output(command, env=None):
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
        return (completed.stdout + completed.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"


def describe_machine():
    cpu_model = "unknown"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "unknown"
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                    break
    except OSError:
        pass
    distro = platform.platform()
    try:
        with open("/etc/os-release") as release:
            for line in release:
                if line.startswith("PRETTY_NAME="):
                    distro = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(), "cpu_model": cpu_model, "memory": memory,
        "kernel": platform.release(), "arch": platform.machine(), "distro": distro,
    }


def describe_engine(bench, env=None):
    """The libcurl the curl engine loads (`Benchmarks engine`, in `env`): its version, whether it
    reuses easy handles, and its one-line description; {} when the line cannot be read."""
    try:
        return json.loads(command_output([bench, "engine"], env=env).splitlines()[-1])
    except (ValueError, IndexError):
        return {}


def describe_toolchain(bench):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    revision = command_output(["git", "-C", root, "rev-parse", "--short", "HEAD"])
    # Only the library's own files say whether the measured code is the commit's.
    changed = command_output(["git", "-C", root, "status", "--porcelain", "--", "Sources/Courier", "Package.swift"])
    return {
        "courier": f"{revision}" + (" + uncommitted library changes" if changed and changed != "unavailable" else ""),
        "swift": command_output(["swift", "--version"]).splitlines()[0],
        "curl": command_output(["curl", "--version"]).splitlines()[0],
        "nginx": command_output(["nginx", "-v"]).splitlines()[0],
        "python": platform.python_version(),
        "engine": describe_engine(bench),
    }


def main():
    args = parse_arguments()
    groups = plan(args)
    smoke = args.mode == "smoke"
    timeout = 120 if smoke else 600
    started = time.monotonic()
    # The figures are only as good as the machine is quiet: say how busy it was.
    load_before = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    for round_index in range(args.runs):
        for group in groups:
            shift = round_index % len(group)
            for case in group[shift:] + group[:shift]:
                busy = wait_until_quiet(0 if smoke else 30)
                try:
                    result = run_case(case, args, timeout)
                    result["busy_before"] = busy
                    case.runs.append(result)
                    noisy = f" (machine {busy:.0%} busy before)" if busy is not None and busy > 0.15 else ""
                    print(f"[{round_index + 1}/{args.runs}] {case.key}: {summary(case, result)}{noisy}", file=sys.stderr)
                except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
                    case.failures.append(str(error))
                    print(f"[{round_index + 1}/{args.runs}] {case.key}: FAILED {error}", file=sys.stderr)
    cases = [case for group in groups for case in group]

    profile = None
    want_profile = (args.profile == "1" or (args.profile == "auto" and not smoke)) \
        and (not args.groups or "overhead" in args.groups.split(","))
    if want_profile:
        if shutil.which("valgrind"):
            print("profiling the overhead case with callgrind", file=sys.stderr)
            profile = bench_profile.profile_overhead(args.bin, args.work, count=300 if smoke else 10_000)
        else:
            print("valgrind not found: no profile", file=sys.stderr)

    results = {
        "mode": args.mode, "runs": args.runs, "seconds": time.monotonic() - started,
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {**describe_machine(), "load_before": load_before,
                    "load_after": "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())},
        "toolchain": describe_toolchain(args.bin),
        "settings": {"small_bytes": args.small_bytes, "large_bytes": args.large_bytes,
                     "small_requests": 50 if smoke else 5000, "cancel_at": (2 << 20) if smoke else (100 << 20),
                     "overhead_requests": 2000 if smoke else 50_000, "shim": bool(args.shim),
                     "cli_requests": CLI_REQUESTS[args.mode],
                     "scale_points": list(scale_points(args)[0]), "scale_skipped": list(scale_points(args)[1]),
                     "scale_requests": {str(n): scale_requests(args.mode, n) for n in scale_points(args)[0]},
                     "fd_limit": args.fd_limit or None,
                     "libcurl_point": libcurl_point(args),
                     "libcurls": [{"group": f"scale-libcurl{index}", "folder": folder,
                                   "engine": describe_engine(args.bin, libcurl_env(folder))}
                                  for index, folder in enumerate(args.libcurl) if libcurl_point(args)]},
        "cases": [{"key": case.key, "group": case.group, "client": case.client, "label": case.label,
                   "runs": case.runs, "failures": case.failures} for case in cases],
        "profile": profile,
    }
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    with open(args.results, "w") as file:
        json.dump(results, file, indent=1)
    if args.groups:
        # A partial run: only its sections, put in place of theirs in the existing report.
        with open(args.output) as file:
            existing = file.read()
        with open(args.output, "w") as file:
            file.write(bench_report.splice(existing, results, args.groups.split(",")))
    else:
        with open(args.output, "w") as file:
            file.write(bench_report.render(results))
    # The scaling curve, drawn beside the report that embeds it.
    svg = bench_report.write_scaling_svg(results, os.path.dirname(os.path.abspath(args.output)))
    if svg:
        # Drawn by hand: at least make sure it is well-formed XML.
        xml.etree.ElementTree.parse(svg)
        print(f"wrote {svg}", file=sys.stderr)
    failed = [case.key for case in cases if case.failures or not case.runs]
    print(f"wrote {args.output} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
