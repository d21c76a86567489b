import Courier
import Foundation

/// One request (`get`, `post`, `put`, `patch`, `delete`, `head`, or any method with `-X`),
/// checked and ready to send.
struct RequestPlan: Sendable {
    let method: HTTPMethod
    let url: URL
    let headers: RequestHeaders
    let body: RequestBody?
    /// `-o FILE`: the body is streamed to this file instead of stdout.
    let output: URL?
    /// `-i`: the status line and headers are printed before the body.
    let includeHeaders: Bool
    /// `--json-output`: status, headers and body as one JSON object on stdout.
    let jsonOutput: Bool
    /// `-w`: what is printed on stdout once the request is over.
    let writeOut: WriteOut?
    /// `-v`: request and response heads, redirects, retries and timings on stderr.
    let verbose: Bool
    /// `--max-filesize`: a larger body fails the request (exit 63).
    let maxFilesize: Int64?
    /// `-b`, `-c`: the cookies the request starts with and where they are saved; `nil` without either.
    let cookies: CookieJar?
    /// `-N`: every chunk goes out as it arrives, even JSON on a terminal (never held to be
    /// pretty-printed).
    let noBuffer: Bool
    let settings: Settings

    /// - Parameter namedMethod: The method of the command given on the command line, or `nil`
    ///   when none was named (then `-X` names it, or a body means `POST`, an upload `PUT`, as in curl).
    init(_ options: Options, namedMethod: HTTPMethod?, standardInput: () -> Data) throws(Failure) {
        if options.directory != nil { throw .usage("--dir is for download; use -o FILE") }
        if options.noResume { throw .usage("--no-resume is for download") }
        guard let urlText = options.urls.first else { throw .usage("no URL given") }
        guard options.urls.count == 1 else {
            throw .usage("one URL at a time (got \(options.urls.count)); use 'courier download' for several")
        }
        var options = options
        let namedMethod = try Self.method(named: namedMethod, typed: options.method)

        var url = try URLInput.parse(urlText)
        var headers = try RequestHeaders(options)
        if options.dataInQuery {
            url = try Self.url(url, withDataOf: options, standardInput: standardInput)
            options.dataArguments = []
        }
        let body = try RequestBodyInput(options, standardInput: standardInput)

        let method: HTTPMethod
        switch (namedMethod, body) {
        case let (named?, nil):
            method = named
        case let (named?, body?):
            // URLSession refuses to send a GET with a body.
            guard named != .get, named != .head else {
                let query = body.optionName == "--data" ? ", or -G to send it in the URL" : ""
                throw .usage("\(named.rawValue.lowercased()) sends no body; use post, put or patch (or name no command) with \(body.optionName)\(query)")
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
        if options.jsonOutput, options.includeHeaders || options.output != nil {
            throw .usage("--json-output prints status, headers and body as one object; it cannot be combined with \(options.output != nil ? "-o" : "-i")")
        }

        self.method = method
        self.url = url
        self.headers = headers
        self.body = body?.body
        self.output = options.output.map { URL(fileURLWithPath: $0) }
        self.includeHeaders = options.includeHeaders || method == .head
        self.jsonOutput = options.jsonOutput
        self.writeOut = try options.writeOut.map(WriteOut.init(argument:))
        self.verbose = options.verbose
        self.maxFilesize = options.maxFilesize
        self.cookies = try CookieJar(options)
        self.noBuffer = options.noBuffer
        self.settings = try Settings(options)
    }

    /// The method named by the command or by `-X`; both may be given only if they agree.
    private static func method(named: HTTPMethod?, typed: String?) throws(Failure) -> HTTPMethod? {
        guard let typed else { return named }
        // RFC 9110's token characters: anything else could break the request line.
        let tokenSymbols = Set("!#$%&'*+-.^_`|~")
        guard !typed.isEmpty, typed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || tokenSymbols.contains($0)) }) else {
            throw .usage("-X needs a method name such as PUT or PROPFIND, not '\(typed)'")
        }
        let method = HTTPMethod(rawValue: typed)
        if let named, named != method {
            throw .usage("the \(named.rawValue.lowercased()) command and -X \(typed) name different methods; give one of them")
        }
        return method
    }

    /// `-G`: the `--data` pieces appended to the query (after any it has), joined with `&`.
    private static func url(_ url: URL, withDataOf options: Options, standardInput: () -> Data) throws(Failure) -> URL {
        for (given, name) in [(options.json != nil, "--json"), (!options.form.isEmpty, "--form"),
                              (options.uploadFile != nil, "--upload-file")] where given {
            throw .usage("-G sends --data in the URL; it cannot be combined with \(name)")
        }
        guard !options.dataArguments.isEmpty else { return url }
        let query = FormData.queryText(try FormData.encoded(options.dataArguments, standardInput: standardInput))
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw Failure(.invalidURL, "cannot add the -G data to '\(Redaction.standard.redact(url))'")
        }
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "&")
        guard let withQuery = components.url else {
            throw Failure(.invalidURL, "cannot add the -G data to '\(Redaction.standard.redact(url))'")
        }
        return withQuery
    }
}
