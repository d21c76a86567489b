import Courier
import Foundation

/// One request (`get`, `post`, `put`, `patch`, `delete`, `head`), checked and ready to send.
struct RequestPlan: Sendable {
    let method: HTTPMethod
    let url: URL
    let headers: RequestHeaders
    let body: RequestBody?
    /// `-o FILE`: the body is streamed to this file instead of stdout.
    let output: URL?
    /// `-i`: the status line and headers are printed before the body.
    let includeHeaders: Bool
    /// `-N`: every chunk goes out as it arrives, even JSON on a terminal (never held to be
    /// pretty-printed).
    let noBuffer: Bool
    let settings: Settings

    /// - Parameter namedMethod: The method of the command given on the command line, or `nil`
    ///   when none was named (then a body means `POST`, an upload `PUT`, as in curl).
    init(_ options: Options, namedMethod: HTTPMethod?, standardInput: () -> Data) throws(Failure) {
        if options.directory != nil { throw .usage("--dir is for download; use -o FILE") }
        if options.noResume { throw .usage("--no-resume is for download") }
        guard let urlText = options.urls.first else { throw .usage("no URL given") }
        guard options.urls.count == 1 else {
            throw .usage("one URL at a time (got \(options.urls.count)); use 'courier download' for several")
        }
        // For requests, -d is curl's --data.
        var options = options
        options.data += options.shortD

        var url = try URLInput.parse(urlText)
        var headers = try RequestHeaders(options)
        let body = try RequestBodyInput(options, standardInput: standardInput)

        let method: HTTPMethod
        switch (namedMethod, body) {
        case let (named?, nil):
            method = named
        case let (named?, body?):
            guard named != .get, named != .head else {
                throw .usage("\(named.rawValue.lowercased()) sends no body; use post, put or patch (or name no command) with \(body.optionName)")
            }
            method = named
        case (nil, nil):
            method = .get
        case let (nil, body?):
            method = body.isUpload ? .put : .post
        }

        if let uploaded = body?.uploadedFileName, url.path.isEmpty || url.path.hasSuffix("/") {
            // As curl: uploading to a folder-like URL names the resource after the file.
            url = url.appendingPathComponent(uploaded)
        }
        if body?.isJSON == true {
            headers.setDefault("Content-Type", "application/json")
            headers.setDefault("Accept", "application/json")
        }

        if options.output == "-" { options.output = nil }
        if options.output != nil, options.includeHeaders {
            throw .usage("-i prints headers to stdout; it cannot be combined with -o")
        }
        if options.output != nil, method == .head {
            throw .usage("head prints headers only; it cannot be combined with -o")
        }

        self.method = method
        self.url = url
        self.headers = headers
        self.body = body?.body
        self.output = options.output.map { URL(fileURLWithPath: $0) }
        self.includeHeaders = options.includeHeaders || method == .head
        self.noBuffer = options.noBuffer
        self.settings = Settings(options)
    }
}
