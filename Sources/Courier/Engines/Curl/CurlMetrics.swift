import CCurl

/// The ``TransferMetrics`` of a curl-engine task, read from libcurl once per transfer, at its end.
///
/// Reading them is on the path of every request, so it is one call into C
/// (`ccurl_easy_metrics`, about twenty `curl_easy_getinfo` calls there) and no allocation but
/// the addresses' strings (none for an IPv4 address, which fits in a small `String`). Nothing is
/// read while the transfer runs.
///
/// Courier follows redirects itself, each hop a libcurl transfer of its own, so a task that
/// follows some reads each hop as it ends and adds them up as curl's `-L` does: every phase time
/// is the sum over the hops, ``TransferMetrics/redirectTime`` the hops before the last one, and
/// ``TransferMetrics/total`` all of them (libcurl's `time_redirect` is always 0 here).
struct CurlMetrics {
    /// Microseconds of the hops before the current one, phase by phase (curl's sums).
    private var earlier = Sums()

    private struct Sums {
        var total: Int64 = 0
        var nameLookup: Int64 = 0
        var connect: Int64 = 0
        var tlsHandshake: Int64 = 0
        var requestSent: Int64 = 0
        var firstByte: Int64 = 0
        var headerBytes: Int64 = 0
        var requestBytes: Int64 = 0
    }

    /// A new task: no hop yet.
    mutating func reset() {
        earlier = Sums()
    }

    /// The current hop ended with a redirect the task follows: its times count towards the next.
    mutating func addRedirectHop(of easy: OpaquePointer) {
        var raw = ccurl_metrics()
        _ = ccurl_easy_metrics(easy, 0, &raw)
        earlier.total += max(0, raw.total_us)
        earlier.nameLookup += max(0, raw.namelookup_us)
        earlier.connect += max(0, raw.connect_us)
        earlier.tlsHandshake += max(0, raw.appconnect_us)
        earlier.requestSent += max(0, raw.pretransfer_us)
        earlier.firstByte += max(0, raw.starttransfer_us)
        earlier.headerBytes += max(0, Int64(raw.header_size))
        earlier.requestBytes += max(0, Int64(raw.request_size))
    }

    /// How a transfer ended, as far as the phase goes.
    struct Ending {
        /// libcurl finished it with `CURLE_OK` (and Courier found nothing wrong).
        var succeeded: Bool
        /// The final response head had arrived.
        var hadHead: Bool
        /// The request was https (a TLS handshake was due).
        var usesTLS: Bool
        /// A proxy refused the tunnel (`CURLINFO_HTTP_CONNECTCODE` outside 2xx).
        var tunnelRefused: Bool
    }

    /// `CURLINFO_CONN_ID` now, while the transfer holds its connection (libcurl 8.2.0+): at its
    /// end libcurl reports -1 for a transfer that shared its connection with others still
    /// running (its `multi_done` leaves before recording the id; seen with 8.14.1 over HTTP/2).
    static func connectionID(of easy: OpaquePointer) -> Int64? {
        var id: ccurl_off_t = -1
        guard ccurl_easy_getinfo_offset(easy, Int32(CCURLINFO_CONN_ID), &id) == 0, id >= 0 else { return nil }
        return Int64(id)
    }

    /// The metrics of the task's last transfer, on `easy`, added to the hops before it.
    /// - Parameters:
    ///   - unixSocketPath: The socket the network connects to, if any: it is the remote address
    ///     (libcurl gives the path cut to 45 bytes, and port 80).
    ///   - readsConnectionID: Whether this libcurl knows `CURLINFO_CONN_ID` (8.2.0+).
    ///   - connectionID: The id read while the head arrived (``connectionID(of:)``), for when
    ///     libcurl no longer knows it.
    func metrics(of easy: OpaquePointer, ending: Ending, unixSocketPath: String?, readsConnectionID: Bool,
                 connectionID: Int64? = nil) -> TransferMetrics {
        var raw = ccurl_metrics()
        _ = ccurl_easy_metrics(easy, readsConnectionID ? 1 : 0, &raw)
        let connectsMade = Int(raw.num_connects)
        let sentRequest = raw.pretransfer_us > 0
        // A transfer that never sent its request used no connection, old or new.
        let reused: Bool? = connectsMade > 0 ? false : (connectsMade == 0 && sentRequest ? true : nil)
        let overSocket = unixSocketPath != nil
        // One TransferMetrics, made once: each later change would make its storage anew.
        return TransferMetrics(
            total: Self.seconds(earlier.total + max(0, raw.total_us)) ?? 0,
            nameLookup: Self.seconds(earlier.nameLookup + max(0, raw.namelookup_us)),
            connect: Self.seconds(earlier.connect + max(0, raw.connect_us)),
            tlsHandshake: Self.seconds(earlier.tlsHandshake + max(0, raw.appconnect_us)),
            requestSent: Self.seconds(earlier.requestSent + max(0, raw.pretransfer_us)),
            firstByte: Self.seconds(earlier.firstByte + max(0, raw.starttransfer_us)),
            redirectTime: Self.seconds(earlier.total) ?? 0,
            remoteAddress: unixSocketPath ?? Self.text(raw.primary_ip),
            remotePort: !overSocket && raw.primary_port > 0 ? Int(raw.primary_port) : nil,
            localAddress: overSocket ? nil : Self.text(raw.local_ip),
            localPort: !overSocket && raw.local_port > 0 ? Int(raw.local_port) : nil,
            reusedConnection: reused,
            connectionID: raw.connection_id >= 0 ? Int64(raw.connection_id) : connectionID,
            httpVersion: HTTPVersion(curlVersion: raw.http_version),
            bytesSent: raw.size_upload >= 0 ? Int64(raw.size_upload) : nil,
            bytesReceived: raw.size_download >= 0 ? Int64(raw.size_download) : nil,
            headerBytes: raw.header_size >= 0 ? earlier.headerBytes + Int64(raw.header_size) : nil,
            requestBytes: raw.request_size >= 0 ? earlier.requestBytes + Int64(raw.request_size) : nil,
            phase: Self.phase(raw, ending: ending, reused: reused == true, connected: connectsMade > 0))
    }

    /// Where a transfer ended: the first phase whose time libcurl never recorded. A connection
    /// libcurl counted (`num_connects`) was made even where its time is 0: libcurl 7.88 records
    /// `time_connect` only once the TLS handshake on it is done too, as curl's `-w` shows.
    private static func phase(_ raw: ccurl_metrics, ending: Ending, reused: Bool, connected: Bool) -> TransferMetrics.Phase {
        if ending.succeeded { return .complete }
        if ending.hadHead { return .receivingBody }
        if raw.starttransfer_us > 0 || raw.pretransfer_us > 0 { return .waitingForHead }
        if !reused {
            if raw.namelookup_us <= 0 { return .resolvingHost }
            if ending.tunnelRefused || !(connected || raw.connect_us > 0) { return .connecting }
            if ending.usesTLS, raw.appconnect_us <= 0 { return .tlsHandshake }
        }
        return .sendingRequest
    }

    /// Microseconds as seconds; `nil` for 0 (a phase not reached) or less (not known).
    private static func seconds(_ microseconds: Int64) -> Double? {
        microseconds > 0 ? Double(microseconds) / 1_000_000 : nil
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer, pointer[0] != 0 else { return nil }
        return String(cString: pointer)
    }
}
