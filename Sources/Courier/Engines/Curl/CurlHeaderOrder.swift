import Foundation

/// Puts a request's header lines in the order the curl tool sends them.
///
/// libcurl writes `Host` first, then the lines it makes from its own options (`Authorization`
/// from `CURLOPT_USERPWD`, `Range`, `User-Agent`, `Accept`, `Accept-Encoding`, `Referer`,
/// `Proxy-Connection` when an http URL goes through a proxy, `Cookie`, the time condition), then the custom list (`CURLOPT_HTTPHEADER`) in its order, and
/// last, for a body, `Content-Length`, `Content-Type` and `Expect`. Courier hands every header over in
/// the custom list — a request's fields are a dictionary, without an order — so libcurl's own
/// `Accept` used to come before all of them and the rest in whatever order the dictionary gave.
/// Ordering the list as curl's options would place those lines (and writing `Accept: */*`
/// into it where libcurl would have added its own, so that it keeps its place after
/// `User-Agent`) gives the bytes curl sends; the remaining fields keep the order they came in.
/// A `Content-Type` of the request's own (not a form's type) is one curl sends in the custom
/// list: it goes with the other fields, before `Content-Length`.
enum CurlHeaderOrder {
    /// The names libcurl writes from its own options, in its order; everything else comes after
    /// them, and the body's `Content-Length` and `Content-Type` last.
    private static let leading = [
        "proxy-authorization", "authorization", "range", "user-agent", "accept", "te", "accept-encoding", "referer",
        "proxy-connection", "cookie", "if-modified-since", "if-unmodified-since",
    ]
    private static let trailing = ["content-length", "content-type", "expect"]

    /// Orders `fields` as above. `bodyLength` is the size of the body sent (nil without one):
    /// its `Content-Length` goes into the list, before the `Content-Type`, where libcurl would
    /// otherwise add its own after every custom line.
    ///
    /// Through an HTTP proxy, `Proxy-Connection: Keep-Alive` goes after `Referer`, as curl sends
    /// it (``CurlProxyConnection`` writes it and removes libcurl's own line).
    static func arrange(_ fields: inout [(name: String, value: String)], bodyLength: Int64?) {
        if !fields.contains(where: { HTTPHeaders.namesMatch($0.name, "Accept") }) {
            fields.append(("Accept", "*/*"))
        }
        if let bodyLength, !fields.contains(where: { HTTPHeaders.namesMatch($0.name, "Content-Length") }) {
            fields.append(("Content-Length", String(bodyLength)))
        }
        // Each name is ranked once, compared without case and without a lowercased copy; a list
        // already in order is left as it is. (The whole ordering costs a 1 KiB GET about 5,700
        // instructions: Docs/Performance.md.)
        var ranks = fields.map { rank(of: $0.name, value: $0.value) }
        guard zip(ranks, ranks.dropFirst()).contains(where: { $0 > $1 }) else { return }
        // By rank, then by the order they came in: an insertion sort in place, stable, for the
        // handful of lines a request has (a sort of the indices and a new list cost about
        // 1,300 instructions a request more).
        for index in fields.indices.dropFirst() {
            var place = index
            while place > 0, ranks[place - 1] > ranks[place] {
                ranks.swapAt(place - 1, place)
                fields.swapAt(place - 1, place)
                place -= 1
            }
        }
    }

    private static func rank(of name: String, value: String) -> Int {
        // A Content-Type libcurl would not write itself is one the request chose (curl's -H,
        // --json): curl sends it in the custom list, before the body's length. The ones libcurl
        // writes (a form's type, none) keep libcurl's place after it. (`Accept` keeps its place
        // whatever its value: the custom fields come in a dictionary's order, and a place of its
        // own keeps the head the same from one run to the next.)
        if HTTPHeaders.namesMatch(name, "Content-Type"), value != CurlRequestOptions.removedHeader,
           value != "application/x-www-form-urlencoded", !value.hasPrefix("multipart/form-data") {
            return leading.count
        }
        if let index = leading.firstIndex(where: { HTTPHeaders.namesMatch($0, name) }) { return index }
        if let index = trailing.firstIndex(where: { HTTPHeaders.namesMatch($0, name) }) { return leading.count + 1 + index }
        return leading.count
    }
}
