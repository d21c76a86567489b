/// How libcurl words what the tests check, in every version from 7.68 on (scripts/libcurl-matrix
/// runs the suite on 7.68, 7.74, 7.88 and 8.14).
enum LibcurlMessages {
    /// A body that ended before its length: "transfer closed with 7 bytes remaining to read" (or
    /// "…with outstanding read data remaining"), "end of response with 7 bytes missing" from 8.10.
    static func saysTheBodyWasCutShort(_ message: String) -> Bool {
        message.hasPrefix("transfer closed with") || message.hasPrefix("end of response with")
    }
}
