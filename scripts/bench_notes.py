"""What bounds each figure: the prose of Docs/Performance.md, written from the numbers of the run
it describes, so that a rerun never leaves the text contradicting the tables.

Causes found by profiling are stated only while the figure they explain still misses its target.
"""

MIB = 1 << 20


def _fmt(value, digits=0, unit=""):
    return "n/a" if value is None else f"{value:,.{digits}f}{unit}"


def _ratio(a, b):
    return None if a is None or not b else a / b


def _more_or_less(microseconds):
    """A CPU difference in words: "12 µs more" or "12 µs less" (a run can measure either)."""
    if microseconds is None:
        return "n/a"
    return f"{abs(microseconds):,.0f} µs {'more' if microseconds >= 0 else 'less'}"


def _pct(value):
    return "n/a" if value is None else f"{value * 100:.0f}%"


def small(results):
    r = results
    runs = r.data["runs"]
    raw1 = r.median("small-1/urlsession", "cpu_us_per_request")
    raw32 = r.median("small-32/urlsession", "cpu_us_per_request")
    switches = r.median("small-1/urlsession", "context_switches_per_request")
    delegate = _ratio(r.median("small-32/urlsession-delegate", "requests_per_second"),
                      r.median("small-32/urlsession", "requests_per_second"))
    extra = {c: (r.median(f"small-{c}/callback", "cpu_us_per_request") or 0) - (r.median(f"small-{c}/urlsession", "cpu_us_per_request") or 0)
             for c in (1, 32)}
    stub_cpu = r.median("overhead/callback-64", "cpu_ns_per_request")
    noise = []
    pairs = []
    for concurrency in (1, 32):
        again = _ratio(r.median(f"small-{concurrency}/urlsession-again", "requests_per_second"),
                       r.median(f"small-{concurrency}/urlsession", "requests_per_second"))
        if again is not None:
            noise.append(abs(1 - again))
        # Runs are stored in round order: the two runs of one round were made minutes apart at most.
        first = r.values(f"small-{concurrency}/urlsession", "requests_per_second")
        second = r.values(f"small-{concurrency}/urlsession-again", "requests_per_second")
        if len(first) == len(second):
            pairs += [abs(1 - b / a) for a, b in zip(first, second) if a]
    noise_text = _pct(max(noise)) if noise else "n/a"
    pair_text = _pct(max(pairs)) if pairs else "n/a"
    blocking = r.median("small-32/blocking", "context_switches_per_request")
    callback = r.median("small-32/callback", "context_switches_per_request")
    return f"""**What bounds these figures.** Almost all of every client's CPU is spent inside URLSession
and libcurl: raw URLSession uses {_fmt(raw1)} µs of CPU per sequential request and {_fmt(raw32)} µs
with 32 in flight, and makes {_fmt(switches, 1)} context switches per request. Driving it through a
session delegate, which is the only way on Linux to get progress and a cancel that does not block,
gives {_fmt(delegate, 2)}× the completion-handler throughput (reference row). Courier's callbacks
used {_more_or_less(extra[1])} CPU per sequential request than raw URLSession, and
{_more_or_less(extra[32])} with 32 in flight (a difference inside the resolution below is noise). Its own
work without a network is {_fmt(None if stub_cpu is None else stub_cpu / 1000)} µs of CPU per request
(section 4); beyond that, what Courier adds is extra thread hand-offs (see the context switches).
The conventions differ in hand-offs: blocking with 32 in flight runs 32 OS threads on 2 cores, each
request waking its own sleeping thread ({_fmt(blocking, 1)} context switches per request, against
{_fmt(callback, 1)} for callbacks), and an `await` adds a resumption on Swift's cooperative pool.
nginx shares the two cores with the client, so every CPU-second a client saves is throughput.
**Resolution**: the same raw client, run twice in every round (the A/A row), gave medians
{noise_text} apart, and single runs up to {pair_text} apart within a round. Differences smaller than that are not
resolved by {runs} runs on this machine.
"""


def download(results):
    r = results
    curl = r.median("download/curl", "mb_per_second")
    task = r.median("download/urlsession", "mb_per_second")
    reference = r.median("download/urlsession-data", "mb_per_second")
    courier = r.median("download/courier", "mb_per_second")
    rss = r.maximum("download/courier", "maxrss_bytes")
    reference_rss = r.maximum("download/urlsession-data", "maxrss_bytes")
    baseline = r.median("small-1/urlsession", "maxrss_bytes")
    return f"""**What bounds these figures.** curl writes what it reads ({_fmt(curl)} MB/s). FoundationNetworking
hands the body to the delegate queue in libcurl-sized chunks (16 KB), each as a `Data` in an
`OperationQueue` operation, and that per-chunk work, not the disk or the network, sets the pace.
`downloadTask`'s delegate variant also opens and closes its temporary file for every chunk
({_fmt(task)} MB/s). Courier's download gathers chunks into 128 KiB writes ({_fmt(courier)} MB/s, against
{_fmt(reference)} MB/s for the raw data task writing every chunk). **Memory:** URLSession on Linux never waits for
its delegate, so chunks a busy delegate queue has not yet consumed pile up in memory: the raw
reference peaked at {_fmt(None if reference_rss is None else reference_rss / MIB, 1)} MiB. Courier's delegate queue blocks URLSession's
thread once 256 callbacks (~4 MB) are waiting, which bounds its peak at
{_fmt(None if rss is None else rss / MIB, 1)} MiB. Of that, {_fmt(None if baseline is None else baseline / MIB, 1)} MiB is what any Swift process with
FoundationNetworking and one session already holds (peak RSS of the small-request processes).
"""


def cancel(results):
    r = results
    raw_return = r.median("cancel/urlsession", "cancel_return_ms")
    raw_after = r.median("cancel/urlsession", "bytes_after_cancel")
    raw_runs = r.cases.get("cancel/urlsession", {}).get("runs", [])
    ran_to_end = sum(1 for run in raw_runs if run.get("outcome") == "succeeded")
    raw_rss = r.maximum("cancel/urlsession", "maxrss_bytes")
    memory_return = r.median("cancel/courier", "cancel_return_ms")
    download_completion = r.maximum("cancel/courier-download", "completion_ms")
    text = f"""**What bounds these figures.** Raw URLSession's `cancel()` runs synchronously on the task's
internal queue, and data keeps arriving meanwhile. Here it blocked the delegate queue for
{_fmt(raw_return)} ms (median), {_fmt(None if raw_after is None else raw_after / MIB)} MiB still arrived after it, {ran_to_end} of
{len(raw_runs)} transfers ran to the end despite it, and the process peaked at
{_fmt(None if raw_rss is None else raw_rss / MIB)} MiB. Courier's `cancel()` only marks the transfer ended, drops it from the
callback routing table (later chunks are discarded unread), and leaves `URLSessionTask.cancel()`
to a background queue: {_fmt(memory_return, 3)} ms (body in memory). That `cancel()` is about 15,000
instructions and makes no system call (callgrind and `strace -k`, measured once by hand), but
each run cancels once, so the code runs cold: callgrind's cache simulation counts about 700
instruction-cache misses, about 100 of them served from memory. That, not the instruction
count, is why the cancelling thread's own CPU time is 0.05–0.07 ms. The rest is scheduling: the
thread that calls `cancel()` can be preempted (the worst runs' verdicts count its preemptions).
For a request held in memory the completion follows at once, one queue hop later. For a download it comes after the partial file has been flushed and closed
on the delegate queue, so that a download started from the completion finds a consistent file.
"""
    if download_completion is not None and download_completion >= 20:
        text += f"""
**Why the download's completion misses 20 ms** (worst {_fmt(download_completion, 1)} ms), found with timing probes in a private
copy of the library: the wait for the delegate queue is negligible (backpressure keeps it short);
`DownloadTransfer.closePartial()` takes the time, nearly all of it in `FileHandle.close()`.
`openPartial` truncates the newly created file to 0 bytes, and on ext4 a file truncated to zero
and rewritten gets its writeback started on close (`auto_da_alloc`): closing ~110 MB of dirty
pages took 8–36 ms. Truncating only when resuming (`offset > 0`) made `close()` take 0.03 ms, and
the completion of this case (partial kept) arrive 1.7–4.2 ms after `cancel()`. With `.noResume`
the discarded partial file is also unlinked before the completion (~30 ms for 110 MB); renaming
it aside and unlinking it in the background made that variant's completion 2–4 ms.
"""
    return text


def overhead(results):
    from bench_report import OVERHEAD_SEQUENTIAL_NS  # here, not at the top: bench_report imports this module
    r = results
    round_trip = r.median("overhead/round-trip", "ns_per_request")
    sequential = r.median("overhead/callback-1", "ns_per_request")
    switches = r.median("overhead/callback-1", "context_switches_per_request")
    pipelined = r.median("overhead/callback-64", "ns_per_request")
    pipelined_cpu = r.median("overhead/callback-64", "cpu_ns_per_request")
    allocations = r.median("overhead/callback-1", "allocations_per_request")
    profile = r.data.get("profile") or {}
    shares = {}
    if "libraries" in profile and profile.get("instructions_per_request"):
        for name, cost in profile["libraries"]:
            shares[name] = cost / profile["instructions_per_request"]
    instructions = profile.get("instructions_per_request")
    return f"""**What bounds these figures.** *Sequential*: thread hand-offs, not instructions. The cheapest
possible hand-off on this machine, a bare `DispatchQueue.async` answered by a semaphore (reference
row), costs {_fmt(None if round_trip is None else round_trip / 1000, 1)} µs. Waking a sleeping thread on a virtual machine is the expensive part.
A sequential request makes {_fmt(switches, 1)} context switches, about {_fmt(None if switches is None else switches / 2, 1)} such
round trips, so {_fmt(None if sequential is None else sequential / 1000)} µs is close to what its hand-offs alone cost. The sequential
target, {OVERHEAD_SEQUENTIAL_NS / 1000:g} µs, is the price of {_fmt(None if not round_trip else OVERHEAD_SEQUENTIAL_NS / round_trip, 1)} such round trips. *64 in flight*: hand-offs overlap, and the figure
({_fmt(None if pipelined is None else pipelined / 1000, 1)} µs wall, {_fmt(None if pipelined_cpu is None else pipelined_cpu / 1000, 1)} µs CPU) approaches the CPU cost:
{_fmt(instructions)} instructions per request, of which the Swift runtime (retain/release,
exclusivity checks, strings) is {_pct(shares.get('Swift runtime and stdlib'))}, malloc/free {_pct(shares.get('glibc (malloc, locks)'))} ({_fmt(allocations)}
allocations), libdispatch {_pct(shares.get('libdispatch'))}, Foundation's `URLRequest` and `HTTPURLResponse`
{_pct((shares.get('Foundation') or 0) + (shares.get('FoundationEssentials') or 0) + (shares.get('FoundationNetworking') or 0))}, and Courier's own code (self cost) {_pct(shares.get('Courier + benchmark driver'))}. So the way
down is fewer objects and fewer hops per request, not faster Courier functions.
"""


def closing(results):
    r = results
    raw_cpu = r.median("small-32/urlsession", "cpu_us_per_request")
    courier_cpu = r.median("small-32/callback", "cpu_us_per_request")
    added = None if raw_cpu is None or courier_cpu is None else courier_cpu - raw_cpu
    curl = r.median("download/curl", "mb_per_second")
    courier_download = r.median("download/courier", "mb_per_second")
    return f"""**Biggest remaining cost.** URLSession itself. With 32 in flight a small GET costs
{_fmt(raw_cpu)} µs of CPU inside URLSession and libcurl against {_fmt(added)} µs added by Courier, and
FoundationNetworking's per-chunk delivery holds a 1 GB download to {_pct(_ratio(courier_download, curl))} of curl's
speed. Within Courier, the largest cost is thread hand-offs per request (one hop costs
{_fmt(None if r.median('overhead/round-trip', 'ns_per_request') is None else r.median('overhead/round-trip', 'ns_per_request') / 2000, 1)} µs of latency here), then the objects each request allocates
({_fmt(r.median('overhead/callback-1', 'allocations_per_request'))} heap allocations).
"""


def multiplex(results):
    """What the HTTP/2 section's figures show, and what reading the metrics costs."""
    r = results
    h2 = r.median("multiplex/courier-h2", "connections")
    h1 = r.median("multiplex/courier-h1.1", "connections")
    rate = _ratio(r.median("multiplex/courier-h2", "requests_per_second"), r.median("multiplex/courier-h1.1", "requests_per_second"))
    cpu = _ratio(r.median("multiplex/courier-h2", "cpu_us_per_request"), r.median("multiplex/courier-h1.1", "cpu_us_per_request"))
    curl_cpu = _ratio(r.median("multiplex/courier-h2", "cpu_us_per_request"), r.median("multiplex/curl-h2", "cpu_us_per_request"))
    return f"""**Reading these figures.** Over HTTP/2 the 32 requests in flight shared {_fmt(h2)}
connection(s), over HTTP/1.1 {_fmt(h1)}: a request that starts while the first connection to its
origin is still being made waits to learn whether that one multiplexes (`CURLOPT_PIPEWAIT`)
instead of opening its own (without it: 6 connections for 20 requests, `HTTP2Tests`), and over
HTTP/1.1 the engine keeps one connection per request in flight (`CURLMOPT_MAXCONNECTS`; before it
did, 36 to 56 for these 32). On loopback, where a round trip costs nothing, multiplexing does not
make requests faster: HTTP/2 gave {_fmt(rate, 2)}× HTTP/1.1's requests per second at {_fmt(cpu, 2)}×
its CPU per request, its framing against 32 connections working in parallel. What it saves is
connections (one TLS handshake instead of 32, one socket on each side) and, on a real network,
the round trips of every new connection. Against `curl -Z --http2` on the same URLs, Courier
uses {_fmt(curl_cpu, 2)}× curl's CPU per request. Requests per second spread widely from run to
run on this machine (see the ranges); the CPU per request and the connections are the steadier
figures.

**What the metrics cost.** Every response carries its `TransferMetrics`, read from libcurl once
the transfer is over, in one call into C (about twenty `curl_easy_getinfo`). Measured with
callgrind (instruction counts do not depend on the machine's load), 1,000 and 3,000 sequential
1 KiB GETs over one connection on the curl engine, per request, the difference of the two runs,
against the commit before the metrics (98a7001): 188.0k instructions against 181.8k, +6.2k
(+3.4%): reading libcurl's values 2.1k (of which libcurl's own `getinfo` 1.1k), carrying them to
the caller 2.3k (one allocation, the value's references), the check for https 0.5k, the rest the
response's two new fields copied along. Without a network (section 4's stub, which like URLSession
on Linux reports no metrics, so Courier times the first byte and the total itself): 71.6k against
69.1k, +2.5k. A first cut that carried the metrics inline in every `HTTPResponse` cost +27k."""


def curl(results):
    # Measured once by hand with a libcurl built for it, not by this run (see the paragraph).
    return """**Where libcurl's own extra instructions go.** Debian's libcurl has no symbols, so this was measured
once by hand on a libcurl 7.88.1 built from curl's release tag with them (cmake, OpenSSL):
callgrind, 1,000 and 2,000 sequential 1 KiB GETs, the difference per request, Courier callback
against bare-multi on that same libcurl. `curl_multi_perform` took 89.6k instructions against 56.2k.
Of the 33.4k more, 22.4k are in libcurl's `Curl_client_write`, nearly all of it Courier's own header
and write callbacks (22.0k); 6.4k are the `Accept-Encoding` line, which libcurl's printf copies into
the request a byte at a time (bare-multi offers no coding; `curl --compressed` pays for it too).
Outside it, the new handle each transfer gets on 7.84.0 to 8.0.1 costs 13.5k (`curl_easy_init` 7.8k,
`curl_easy_cleanup` 5.7k) and setting its options 2.9k.

**Where the CPU time goes with 32 in flight.** Instructions are not time, so this was also
measured once by hand with a sampling profiler: `perf record -e cpu-clock -F 2000`, 100,000 GETs
with 32 in flight, three rounds of all four clients on this machine's libcurl, the samples grouped
by library with `scripts/perf-split`. In every round
Courier callback used 2.5–2.7× bare-multi's CPU per request. Counted in bare-multi's CPU per
request of the same round (= 1.0), medians of the rounds: libcurl's own code took 0.50 of it for
bare-multi and 0.61 for Courier, a fifth more (the new handle per transfer and the
`Accept-Encoding` line; Courier's callbacks count as Courier's code). The rest of the difference is
Courier's: the Swift runtime 0.47 (reference counting above all: callgrind counts 373 retains and
as many releases a sequential request), malloc and free 0.43 against 0.11 (85 malloc-family calls a
request against 39; 24 of them Swift's), Courier's own code 0.29, the kernel 0.35 against 0.20 (thread
wake-ups: about 1 context switch a request against 0.2–0.3) and glibc's locks 0.08. The blocking
and async conventions split the same way: the Swift runtime is 0.60 and 0.53 there, malloc and free
0.31 and 0.40. The loop thread itself used about three quarters of Courier's CPU, close to a whole
core. Setting each request's easy handle up on the scheduling thread instead was tried: the loop
thread then did 14% fewer instructions a request (callgrind), but in 15 interleaved rounds
requests/s did not move (15,898 against 16,102) and CPU per request rose from 80 to 87 µs, so it
was reverted (in such runs the client and nginx together used 1.4–1.5 of the two cores). So the way down is fewer objects, and
fewer copies of them, per request (the conclusion section 4 draws for the stub), not a leaner use
of libcurl nor a different split of the work between threads."""


def scale(results):
    # Measured once by hand (valgrind --tool=massif, heap at its peak), not by this run: the
    # figures are this machine's, with libcurl 7.88.1.
    return """**Where a request in flight's memory goes.** valgrind's massif, 3,072 GETs with 1,024 in
flight on libcurl 7.88.1, heap at its peak, measured once by hand: Courier's process 32.1 MB,
bare-multi's 28.3 MB. Of Courier's, libcurl's receive buffers are 16.7 MB (16 KiB a transfer),
its easy handles 5.5 MB (5.2 KiB each), its other allocations (the connections among them) about
5 MB; the Swift objects 3.0 MB, 2.9 KiB a request in flight (of which the benchmark's own 0.4 KiB;
Courier's are the transfer, its body, the curl task and the registry's entry). So Courier's own
heap is about 3.7 KiB of a request in flight; the rest is libcurl's, which bare-multi pays too.
RSS counts only the pages written, which is why both clients' figures sit below their heap, and
why they move with the libcurl (the bare loop's column of the rows by libcurl, when a run has
them). Courier's RSS grew by about four fifths of its peak heap on 7.88.1, bare-multi's by three
fifths, for a reason not found: forcing a new easy handle for every transfer on 7.74.0 and
8.14.1 (where Courier reuses them) moved Courier's figure less than its run-to-run spread, and so
did one malloc arena (`MALLOC_ARENA_MAX=1`). The peak itself is noisy: in five runs of one
binary on a busy machine, Courier's at 1,024 in flight ranged from 52 to 63 MB."""


def notes(results):
    return {
        "curl": curl(results),
        "scale": scale(results),
        "multiplex": multiplex(results),
        "small": small(results),
        "download": download(results),
        "cancel": cancel(results),
        "overhead": overhead(results),
        "closing": closing(results),
    }
