extension NetworkCore {
    /// Type metadata that ending a transfer needs and that Swift builds at run time, from the
    /// type's mangled name, the first time it is used: the payload of a failed ending, and the
    /// optional task it may leave to cancel. Built here, when the first `Network` is made.
    ///
    /// Otherwise the first transfer to end early built it on the thread that ended it: the
    /// caller of `cancel()`. The run-time demangler is deep, and on a thread that had not yet
    /// needed that much stack (a Dispatch worker running a progress handler, say) it touched
    /// four new stack pages; each page fault cost about 15 µs in this VM, so about 60 µs of the
    /// first `cancel()`, measured (`scripts/bench` cancel case, `cancel_page_faults`).
    static let endingMetadata: [Any.Type] = [(NetworkError, response: HTTPResponse?).self, Optional<any TransportTask>.self]
}
