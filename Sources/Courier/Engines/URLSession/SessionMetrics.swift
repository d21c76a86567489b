import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What URLSession's task metrics say, as ``TransferMetrics``.
///
/// Apple's URLSession delivers `URLSessionTaskMetrics` to the session delegate just before the
/// task completes; ``SessionDelegate`` keeps them until then. FoundationNetworking (Linux) never
/// delivers them (measured: `didFinishCollecting` is not called), so there the transfer times
/// what it can itself (the first byte, the total) and the rest stays `nil`.
enum SessionMetrics {
    /// The metrics of the task's last transaction (the response's), in curl's terms: times from
    /// the task's start, redirects before it as ``TransferMetrics/redirectTime``.
    static func transferMetrics(from metrics: URLSessionTaskMetrics) -> TransferMetrics? {
        guard let last = metrics.transactionMetrics.last else { return nil }
        let start = metrics.taskInterval.start
        func since(_ date: Date?) -> TimeInterval? { date.map { max(0, $0.timeIntervalSince(start)) } }
        let redirected = metrics.transactionMetrics.count > 1
        // curl's time_connect is the TCP connection's; Apple's connectEndDate comes after TLS.
        let tcpConnected = last.secureConnectionStartDate ?? last.connectEndDate
        var result = TransferMetrics(
            total: metrics.taskInterval.duration,
            nameLookup: since(last.domainLookupEndDate),
            connect: since(tcpConnected),
            tlsHandshake: since(last.secureConnectionEndDate),
            requestSent: since(last.requestStartDate),
            firstByte: since(last.responseStartDate),
            redirectTime: redirected ? since(last.fetchStartDate) : 0,
            reusedConnection: last.isReusedConnection,
            httpVersion: last.networkProtocolName.flatMap(HTTPVersion.init(protocolName:)))
        #if !canImport(FoundationNetworking)
        result.remoteAddress = last.remoteAddress
        result.remotePort = last.remotePort
        result.localAddress = last.localAddress
        result.localPort = last.localPort
        result.bytesSent = last.countOfRequestBodyBytesSent
        result.bytesReceived = last.countOfResponseBodyBytesReceived
        result.headerBytes = last.countOfResponseHeaderBytesReceived
        result.requestBytes = last.countOfRequestHeaderBytesSent + last.countOfRequestBodyBytesSent
        #endif
        return result
    }

    /// The phase a transfer ended in, from the times Apple's metrics hold.
    static func phase(of metrics: TransferMetrics, failed: Bool) -> TransferMetrics.Phase {
        guard failed else { return .complete }
        if metrics.firstByte != nil { return .receivingBody }
        if metrics.requestSent != nil { return .waitingForHead }
        if metrics.connect != nil || metrics.reusedConnection == true { return .sendingRequest }
        if metrics.nameLookup != nil { return .connecting }
        return .resolvingHost
    }

    /// What the transfer measured itself, for a transport that reports nothing (URLSession on
    /// Linux, the stub): when the last head arrived and when the task ended, from the moment the
    /// attempt's first task was made.
    static func measured(from start: DispatchTime, headArrived: DispatchTime?, end: DispatchTime, failed: Bool) -> TransferMetrics {
        func seconds(_ time: DispatchTime) -> TimeInterval {
            Double(time.uptimeNanoseconds &- start.uptimeNanoseconds) / 1e9
        }
        let phase: TransferMetrics.Phase? = failed ? (headArrived == nil ? nil : .receivingBody) : .complete
        return TransferMetrics(total: seconds(end), firstByte: headArrived.map(seconds), phase: phase)
    }
}
