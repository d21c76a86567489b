import Foundation

// The public classes print what a person needs, not their insides: a default mirror walks
// every stored property, down to the requests in flight (URLs with their passwords), the
// defaults' headers and a refresher's token, and reads state that other threads write.

extension Network: CustomStringConvertible, CustomReflectable {
    /// `Network(engine: curl, 3 requests in flight)`.
    public var description: String {
        let live = core.registry.liveCount
        return "Network(engine: \(engine.rawValue), \(live) request\(live == 1 ? "" : "s") in flight\(isClosed ? ", closed" : ""))"
    }

    /// The engine, the limits and the defaults (which redact themselves).
    public var customMirror: Mirror {
        Mirror(self, children: [
            "engine": engine,
            "maximumConcurrentRequests": maximumConcurrentRequests,
            "maximumResponseSize": maximumResponseSize,
            "maximumRedirects": maximumRedirects,
            "retryPolicy": retryPolicy,
            "defaults": defaults,
            "isClosed": isClosed,
        ], displayStyle: .class)
    }
}

extension NetworkTask: CustomStringConvertible, CustomReflectable {
    /// `NetworkTask(running, attempt 1)`.
    public var description: String {
        "NetworkTask(\(state), attempt \(attemptCount))"
    }

    /// Its state and attempts.
    public var customMirror: Mirror {
        Mirror(self, children: ["state": state, "attemptCount": attemptCount], displayStyle: .class)
    }
}

extension BearerTokenRefresher: CustomStringConvertible, CustomReflectable {
    /// `BearerTokenRefresher(token: <redacted>)`, or `(no token)`.
    public var description: String {
        "BearerTokenRefresher(\(token == nil ? "no token" : "token: " + Redaction.marker))"
    }

    /// Whether it holds a token; never the token.
    public var customMirror: Mirror {
        Mirror(self, children: ["token": token == nil ? "nil" : Redaction.marker], displayStyle: .class)
    }
}

extension StubServer: CustomStringConvertible, CustomReflectable {
    /// `StubServer(2 rules, 5 requests recorded)`.
    public var description: String {
        "StubServer(\(ruleCount) rule\(ruleCount == 1 ? "" : "s"), \(recordedRequests.count) requests recorded)"
    }

    /// How many rules and recorded requests (the requests themselves are `URLRequest`s, which
    /// print their URLs whole: ask ``recordedRequests`` for them).
    public var customMirror: Mirror {
        Mirror(self, children: ["rules": ruleCount, "recordedRequests": recordedRequests.count,
                                "unmatchedRequests": unmatchedRequests.count], displayStyle: .class)
    }
}

extension StubRoute: CustomStringConvertible, CustomReflectable {
    /// `StubRoute(GET /users/*, answered 2)`.
    public var description: String {
        "StubRoute(\(pattern.method.map { "\($0) " } ?? "")\(pattern.path), answered \(count))"
    }

    /// What it matches and how often it answered (header values it matches are redacted).
    public var customMirror: Mirror {
        Mirror(self, children: ["method": pattern.method as Any, "path": pattern.path,
                                "headers": RedactedFields.headers(pattern.headers), "count": count], displayStyle: .class)
    }
}
