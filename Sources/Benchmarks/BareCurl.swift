import CCurl
import Foundation

/// The libcurl the curl engine runs on, driven bare: the reference that says what fraction of its
/// own engine Courier delivers (issue 23). Same library (`CCurl` opens the same `libcurl.so.4` with
/// `dlopen`), same process layout, same checks of every response, and nothing of Courier.
///
/// Each easy handle gets only what a fair bare loop needs: the URL, a write function that counts
/// the body's bytes (into the handle's own counter, passed as `CURLOPT_WRITEDATA` and found again
/// through `CURLOPT_PRIVATE`), and `CURLOPT_NOSIGNAL` (as any multi-threaded program must set).
/// HTTP/1.1 with keep-alive is libcurl's default; the connection cache is libcurl's default too.
enum BareCurl {
    /// Loads libcurl through CCurl, or ends the run with the reason.
    static func load() {
        var reason = [CChar](repeating: 0, count: 256)
        if ccurl_load(&reason, reason.count) != 0 {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            benchmarkFailure("libcurl could not be loaded: \(text)")
        }
    }

    /// A new easy handle set up for `url`, counting its body into `counter`.
    static func makeHandle(url: URL, counter: UnsafeMutablePointer<Int>) -> OpaquePointer {
        guard let easy = ccurl_easy_init() else { benchmarkFailure("curl_easy_init failed") }
        var refused: [String] = []
        func check(_ name: String, _ code: Int32) { if code != CCURLE_OK { refused.append("\(name) (\(code))") } }
        check("CURLOPT_URL", url.absoluteString.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_URL), $0) })
        check("CURLOPT_WRITEFUNCTION", ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), countingWrite))
        check("CURLOPT_WRITEDATA", ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_WRITEDATA), counter))
        check("CURLOPT_PRIVATE", ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PRIVATE), counter))
        check("CURLOPT_NOSIGNAL", ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOSIGNAL), 1))
        if !refused.isEmpty { benchmarkFailure("libcurl refused \(refused.joined(separator: ", "))") }
        return easy
    }

    /// Checks one finished transfer: libcurl's result, the status, the body's length.
    static func verify(_ easy: OpaquePointer, result: Int32, bodyBytes: Int, check: ResponseCheck, into failures: FailureTally) {
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_RESPONSE_CODE), &status)
        let error: (any Error)? = result == CCURLE_OK ? nil : CurlError(code: result)
        check.verify(statusCode: status, bodyBytes: bodyBytes, error: error, into: failures)
    }

    /// A failed transfer's CURLcode, with libcurl's words for it.
    struct CurlError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "libcurl error \(code): \(String(cString: ccurl_easy_strerror(code)))" }
    }
}

/// `CURLOPT_WRITEFUNCTION`: counts the bytes into the `Int` that `CURLOPT_WRITEDATA` points at.
private let countingWrite: ccurl_data_callback = { _, size, count, context in
    let bytes = size * count
    context?.assumingMemoryBound(to: Int.self).pointee += bytes
    return bytes
}

/// `bare-multi`: one multi handle on the calling thread keeping `concurrency` easy handles in
/// flight, each re-added as soon as it finishes: `curl_multi_perform`, harvest the finished
/// transfers (`curl_multi_info_read`), `curl_multi_poll`, the loop Courier's curl engine runs
/// minus everything Courier does around it.
///
/// `bare-multi-new-handles` is the same loop with a new easy handle for every transfer (the old
/// one cleaned up as it finishes), as the curl engine does on libcurl 7.84.0 to 8.0.1 (curl
/// issue #11101, ``CurlFeatures/reusesEasyHandles``): against it, what Courier adds on those
/// libcurls without what their bug costs.
final class BareMultiDriver: RequestDriver, @unchecked Sendable {  // used by one thread at a time (the benchmark's main thread).
    private let url: URL
    private let check: ResponseCheck
    private let multi: OpaquePointer
    /// Every easy handle made so far, each reused for transfer after transfer.
    private var handles: [OpaquePointer] = []
    /// One byte counter per handle, at the same index (stable addresses for the write callback).
    private var counters: [UnsafeMutablePointer<Int>] = []
    /// Whether each finished handle is cleaned up and a new one made for the next transfer.
    private let newHandlePerTransfer: Bool

    /// `maximumConnectionsPerHost` is `CURLMOPT_MAX_HOST_CONNECTIONS` (0: no limit, libcurl's default).
    init(url: URL, check: ResponseCheck, maximumConnectionsPerHost: Int, newHandlePerTransfer: Bool = false) {
        self.newHandlePerTransfer = newHandlePerTransfer
        BareCurl.load()
        guard let multi = ccurl_multi_init() else { benchmarkFailure("curl_multi_init failed") }
        if maximumConnectionsPerHost > 0,
           ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), maximumConnectionsPerHost) != 0 {
            benchmarkFailure("libcurl refused CURLMOPT_MAX_HOST_CONNECTIONS")
        }
        self.multi = multi
        self.url = url
        self.check = check
    }

    func run(count: Int, concurrency: Int, failures: FailureTally) {
        let inFlight = min(max(1, concurrency), count)
        while handles.count < inFlight {
            let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
            counter.initialize(to: 0)
            counters.append(counter)
            handles.append(BareCurl.makeHandle(url: url, counter: counter))
        }
        var started = 0
        var finished = 0
        for index in 0..<inFlight {
            start(handles[index], counter: counters[index])
            started += 1
        }
        while finished < count {
            var running: Int32 = 0
            _ = ccurl_multi_perform(multi, &running)
            var easy: OpaquePointer?
            var result: Int32 = 0
            var queued: Int32 = 0
            while ccurl_multi_next_done(multi, &easy, &result, &queued) != 0, let done = easy {
                _ = ccurl_multi_remove_handle(multi, done)
                var context: UnsafeMutableRawPointer?
                _ = ccurl_easy_getinfo_pointer(done, Int32(CCURLINFO_PRIVATE), &context)
                guard let counter = context?.assumingMemoryBound(to: Int.self) else {
                    benchmarkFailure("a finished transfer without its counter")
                }
                BareCurl.verify(done, result: result, bodyBytes: counter.pointee, check: check, into: failures)
                finished += 1
                if started < count {
                    var next = done
                    if newHandlePerTransfer {
                        ccurl_easy_cleanup(done)
                        next = BareCurl.makeHandle(url: url, counter: counter)
                        if let index = counters.firstIndex(of: counter) { handles[index] = next }
                    }
                    start(next, counter: counter)
                    started += 1
                }
            }
            if finished < count {
                var ready: Int32 = 0
                _ = ccurl_multi_poll(multi, 1000, &ready)
            }
        }
    }

    private func start(_ easy: OpaquePointer, counter: UnsafeMutablePointer<Int>) {
        counter.pointee = 0
        let code = ccurl_multi_add_handle(multi, easy)
        if code != 0 { benchmarkFailure("curl_multi_add_handle failed with CURLMcode \(code)") }
    }
}

/// `bare-easy`: one easy handle, `curl_easy_perform` in a loop on the calling thread. Sequential
/// by nature; `curl_easy_perform` is looked up in the libcurl CCurl opened (see ``EasyPerform``).
final class BareEasyDriver: RequestDriver, @unchecked Sendable {  // used by one thread at a time (the benchmark's main thread).
    private let check: ResponseCheck
    private let easy: OpaquePointer
    private let counter: UnsafeMutablePointer<Int>
    private let perform: EasyPerform.Function

    init(url: URL, check: ResponseCheck) {
        BareCurl.load()
        perform = EasyPerform.function()
        counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        counter.initialize(to: 0)
        easy = BareCurl.makeHandle(url: url, counter: counter)
        self.check = check
    }

    func run(count: Int, concurrency: Int, failures: FailureTally) {
        for _ in 0..<count {
            counter.pointee = 0
            let result = perform(easy)
            BareCurl.verify(easy, result: result, bodyBytes: counter.pointee, check: check, into: failures)
        }
    }
}

/// `curl_easy_perform`, which CCurl does not declare (the engine never blocks a thread on a
/// transfer): found with `dlsym` in the libcurl CCurl already opened. `RTLD_NOLOAD` returns that
/// very library (same soname), never a second copy.
enum EasyPerform {
    typealias Function = @convention(c) (OpaquePointer?) -> Int32

    static func function() -> Function {
        #if os(Linux)
        let name = "libcurl.so.4"
        #else
        let name = "/usr/lib/libcurl.4.dylib"
        #endif
        guard let library = dlopen(name, RTLD_NOW | RTLD_NOLOAD) else {
            benchmarkFailure("\(name) is not loaded: \(dlerror().map { String(cString: $0) } ?? "?")")
        }
        guard let symbol = dlsym(library, "curl_easy_perform") else { benchmarkFailure("libcurl has no curl_easy_perform") }
        return unsafeBitCast(symbol, to: Function.self)
    }
}
