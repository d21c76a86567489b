import Foundation

extension TestServer {
    /// A route that asks for Digest credentials: a request without an `Authorization: Digest`
    /// line for `robot` gets a `401` challenge (body `denied`); one with it gets `welcome`. The
    /// hash itself is not checked (Foundation has no MD5 here): the tests look at which requests
    /// libcurl made and which answer reached the caller.
    func routeDigestLogin(_ path: String) {
        route(path) { request, writer in
            let authorization = request.header("Authorization") ?? ""
            if authorization.hasPrefix("Digest "), authorization.contains("username=\"robot\"") {
                writer.respond(status: 200, headers: ["Content-Type": "text/plain"], text: "welcome")
            } else {
                writer.respond(status: 401, headers: ["WWW-Authenticate": "Digest realm=\"courier\", nonce=\"4711\""], text: "denied")
            }
        }
    }
}
