import Courier
import Foundation

/// A request command (`get`, `post`, `put`, `patch`, `delete`, `head`, any method with `-X`, or
/// none named), checked and ready to send: one request shape, and one transfer per URL.
struct RequestPlan: Sendable {
    let method: HTTPMethod
    let headers: RequestHeaders
    let body: RequestBody?
    /// The bytes of the body, for `%{size_upload}` (0 without one).
    let bodySize: Int64
    /// On a line of several uploads (``TransferPlan/Upload``): the method of a transfer that
    /// sends a file, and of one that sends nothing.
    let uploadMethod: HTTPMethod
    let methodWithoutUpload: HTTPMethod
    /// Whether courier added `Expect: 100-continue` for `-T` (not a `-H` of the user's).
    let expectIsImplied: Bool
    /// One per URL, in order.
    let transfers: [TransferPlan]
    /// `-i`: the head is written before the body, to the same place.
    let includeHeaders: Bool
    /// `-I` (or `head`): a `HEAD` request whose head is the output.
    let headOnly: Bool
    /// `-D FILE` (`-` for stdout): every head of each transfer, redirects included.
    let dumpHeader: String?
    /// `--json-output`: status, headers and body as one JSON object on stdout.
    let jsonOutput: Bool
    /// `-w`: what is printed once each transfer is over.
    let writeOut: WriteOut?
    /// `-v`: request and response heads, redirects, retries and timings on stderr.
    let verbose: Bool
    /// `--trace`/`--trace-ascii` (file and style) with `--trace-time`: where the exchange is traced.
    let trace: (path: String, style: TraceFile.Style, timed: Bool)?
    /// `--max-filesize`: a larger body fails the transfer (exit 63).
    let maxFilesize: Int64?
    /// `-b`, `-c`: the cookies the requests start with and where they are saved; `nil` without either.
    let cookies: CookieJar?
    /// `-N`: every chunk goes out as it arrives, even JSON on a terminal.
    let noBuffer: Bool
    /// `--fail-with-body`: exit 22 on an error status, the body written as usual.
    let failWithBody: Bool
    /// `--fail-early`: the transfers after the first that fails are not started (one after another).
    let failEarly: Bool
    /// More `-o`/`-O` than URLs were given (curl warns, and leaves the others unused).
    let hasMoreOutputsThanURLs: Bool
    /// `-z`: what libcurl checks of the answer's `Last-Modified` (``TimeCondition/Check``).
    let timeCheck: TimeCondition.Check?
    /// `-C`: where a file output resumes.
    let resume: ResumePoint?
    /// `--remove-on-error`: the output file of a failed transfer is removed.
    let removeOnError: Bool
    /// `--create-dirs`: the folders an output path names are made.
    let createDirectories: Bool
    /// `--no-clobber` (``OutputFile/Mode/keepsExisting``).
    let noClobber: Bool
    /// `--etag-save FILE`.
    let etagSave: String?
    /// `--retry` and its kin, as curl applies them.
    let retry: RetryRules
    /// `-Z`: the transfers run at once, at most `parallelMax` at a time.
    let parallel: Bool
    let parallelMax: Int
    let settings: Settings
    /// What reading the command line found worth a warning (a `-d @file` that cannot be read),
    /// printed before the transfers unless `-s`.
    let warnings: [String]

    /// `-C OFFSET` or `-C -`.
    enum ResumePoint: Sendable, Equatable {
        /// `-C -`: from the size of the output file, if it exists.
        case fromFileSize
        case offset(Int64)
    }

    /// - Parameter namedMethod: The method of the command given on the command line, or `nil`
    ///   when none was named (then `-X` names it, `-I` means `HEAD`, a body means `POST`, an
    ///   upload `PUT`, as in curl).
    init(_ options: Options, namedMethod: HTTPMethod?, standardInput: () -> Data) throws(Failure) {
        if options.directory != nil { throw .usage("--dir is for download; use -o FILE or --output-dir DIR") }
        if options.noResume { throw .usage("--no-resume is for download") }
        guard !options.urls.isEmpty else { throw .usage("no URL given") }
        var options = options
        let typedMethod = try Self.method(named: namedMethod, typed: options.method)

        var headers = try RequestHeaders(options)
        var warnings: [String] = options.warnings
        var query: String?
        if options.dataInQuery {
            query = try Self.queryText(of: options, standardInput: standardInput) { warnings.append($0) }
            options.dataArguments = []
        }
        // Several uploads, or one on a line of several URLs: each transfer its own (curl's
        // pairing, see TransferPlan.Upload); the body options then must not give another body.
        let perURLUploads = Self.sendsUploadsPerURL(options)
        var bodyOptions = options
        if perURLUploads { bodyOptions.uploadFiles = [] }
        let bodyInput = try RequestBodyInput(bodyOptions, standardInput: standardInput) { warnings.append($0) }
        if perURLUploads, let other = bodyInput {
            throw .usage("choose one of \(other.optionName), --upload-file for the body")
        }

        let method: HTTPMethod
        switch (typedMethod, bodyInput) {
        case let (named?, nil):
            method = named
        case let (named?, body?):
            // URLSession refuses to send a GET with a body.
            guard named != .get, named != .head else {
                let hint = body.optionName == "--data" ? ", or -G to send it in the URL" : ""
                throw .usage("\(named.rawValue.lowercased()) sends no body; use post, put or patch (or name no command) with \(body.optionName)\(hint)")
            }
            method = named
        case (nil, nil):
            method = perURLUploads ? .put : options.headOnly ? .head : .get
        case let (nil, body?):
            guard !options.headOnly else { throw .usage("-I sends a HEAD request, which has no body; leave out \(body.optionName)") }
            method = body.isUpload ? .put : .post
        }
        var body = bodyInput?.body
        if headers.isRemoved("Content-Type"), case let .data(bytes, _)? = body {
            // `-H 'Content-Type:'` sends the body with no media type, as in curl.
            body = .data(bytes, contentType: "")
        }
        if bodyInput?.isUpload == true, options.uploadFile == "-", !headers.contains("Transfer-Encoding"), !options.libcurl.usesHTTP1_0,
           (options.engine ?? .automatic).resolved == .curl {
            // curl sends stdin (-T -) chunked, its length unknown: so does courier on the curl
            // engine, libcurl framing the bytes (read whole first). Not over HTTP/1.0, which has
            // no chunks.
            headers.setDefault("Transfer-Encoding", "chunked")
        }
        let expectWasGiven = headers.contains("Expect")
        if bodyInput?.isUpload == true && Self.size(of: body) > 0 || perURLUploads, !headers.isRemoved("Expect"), !options.libcurl.usesHTTP1_0,
           (options.engine ?? .automatic).resolved == .curl {
            // curl's -T asks before sending (libcurl waits up to a second for the `100`); a
            // `-H 'Expect:'` removes it, as in curl. The curl engine only: that is libcurl's wait.
            // Not over HTTP/1.0 (-0), which has no `100 Continue`: libcurl asks only from 1.1.
            headers.setDefault("Expect", "100-continue")
        }
        if bodyInput?.isJSON == true {
            headers.setDefault("Content-Type", "application/json")
            headers.setDefault("Accept", "application/json")
        }

        if options.jsonOutput, options.includeHeaders || !options.outputs.isEmpty || options.remoteNameAll || options.urls.count > 1
            || options.writeOut != nil || options.dumpHeader != nil || options.retries > 0 || options.continueAt != nil {
            throw .usage("--json-output prints one response as one JSON object; it cannot be combined with -i, -o, -O, -w, -D, "
                + "--retry, -C or several URLs")
        }

        self.warnings = warnings
        self.method = method
        self.headers = headers
        self.body = body
        self.bodySize = Self.size(of: body)
        self.uploadMethod = typedMethod ?? .put
        self.methodWithoutUpload = typedMethod ?? (options.headOnly ? .head : .get)
        self.expectIsImplied = !expectWasGiven && headers.contains("Expect")
        var transfers = try Self.transfers(options, query: query, upload: bodyInput?.uploadedFileName)
        if perURLUploads {
            transfers = try Self.pairingUploads(options, with: transfers, standardInput: standardInput)
        }
        self.transfers = transfers
        self.includeHeaders = options.includeHeaders
        self.headOnly = method == .head
        self.dumpHeader = options.dumpHeader
        self.jsonOutput = options.jsonOutput
        if let format = options.writeOut {
            self.writeOut = try WriteOut(argument: format, standardInput: standardInput)
        } else {
            self.writeOut = nil
        }
        self.verbose = options.verbose
        self.trace = options.trace.map { ($0.path, $0.style, options.traceTime) }
        self.maxFilesize = options.maxFilesize
        self.cookies = try CookieJar(options)
        self.noBuffer = options.noBuffer
        self.failWithBody = options.failWithBody
        self.failEarly = options.failEarly
        self.timeCheck = options.timeCondition.flatMap(TimeCondition.Check.init)
        self.hasMoreOutputsThanURLs = options.outputs.count > options.urls.count
        self.resume = options.continueAt.map { $0 == "-" ? .fromFileSize : .offset(Int64($0) ?? 0) }
        self.removeOnError = options.removeOnError
        self.createDirectories = options.createDirectories
        self.noClobber = options.noClobber
        self.etagSave = options.etagSave
        self.retry = RetryRules(options)
        self.parallel = options.parallel
        self.parallelMax = options.parallelMax
        var settings = try Settings(options, followsRedirects: options.location, decompresses: options.compressed,
                                    retriesInLibrary: false, defaultMaxRedirects: 50)   // curl's -L limit
        settings.keepsCookies = !options.cookies.isEmpty || options.cookieJar != nil
        self.settings = settings
        if resume != nil, method != .get, method != .head {
            // A range of a response to a body sent again is nothing a server can promise.
            throw .usage("-C resumes a download; it cannot be used with a request body")
        }
    }

    /// One transfer per URL, each with the output `-o`/`-O` gave it, in order, as curl pairs them.
    private static func transfers(_ options: Options, query: String?, upload: String?) throws(Failure) -> [TransferPlan] {
        // A glob is one transfer per URL it stands for, each with its URL's -o (`#N` filled in).
        var expanded: [(index: Int, expansion: URLGlob.Expansion)] = []
        for (index, typed) in options.urls.enumerated() {
            let expansions = options.globOff ? [URLGlob.Expansion(url: typed, values: [])] : try URLGlob.expand(typed)
            expanded += expansions.map { (index, $0) }
        }
        var transfers: [TransferPlan] = []
        for (index, expansion) in expanded {
            let text = expansion.url
            var url = try URLInput.parse(text)
            try URLPolicy.check(url, options)
            if let query { url = try URLInput.appendingQuery(query, to: url, for: "-G") }
            if !options.urlQueries.isEmpty {
                var pieces: [String] = []
                for piece in options.urlQueries {
                    // `+name=value` goes as it is; anything else is encoded as --data-urlencode encodes.
                    pieces.append(piece.hasPrefix("+") ? String(piece.dropFirst())
                        : FormData.urlEncoded(piece, standardInput: { Data() }))
                }
                url = try URLInput.appendingQuery(pieces.joined(separator: "&"), to: url, for: "--url-query")
            }
            if let upload { url = URLInput.naming(url, after: upload) }

            let output: OutputTarget
            let given = index < options.outputs.count ? options.outputs[index] : (options.remoteNameAll ? .remoteName : nil)
            switch given {
            case nil, .file("-")?:
                output = .stdout
            case let .file(path)?:
                output = .file(OutputTarget.path(URLGlob.outputName(path, values: expansion.values), in: options.outputDirectory))
            case .remoteName?:
                output = .remoteName(OutputTarget.remoteName(of: url), directory: options.outputDirectory,
                                     usesHeaderName: options.remoteHeaderName)
            }
            transfers.append(TransferPlan(index: transfers.count, url: url, urlText: text, output: output))
        }
        return transfers
    }

    /// Whether the line's uploads go one per URL (``TransferPlan/Upload``) rather than as the
    /// plan's one body: several `-T`, one `-T` on a line of several URLs, or a glob in its name.
    private static func sendsUploadsPerURL(_ options: Options) -> Bool {
        guard let first = options.uploadFile else { return false }
        return options.uploadFiles.count > 1 || options.urls.count > 1 || uploadNames(first, options).count > 1
    }

    /// The transfers of a line of uploads, as curl makes them: each URL as typed takes the `-T`
    /// of its position; a glob in that name is one upload per file, the files in the outer loop
    /// and the URL's expansions inside (`-T '{a,b}' 'http://h/{1,2}/'`: a to 1 and 2, then b);
    /// a URL ending with `/` gets the file's name. A URL without a `-T` sends nothing.
    private static func pairingUploads(_ options: Options, with transfers: [TransferPlan],
                                       standardInput: () -> Data) throws(Failure) -> [TransferPlan] {
        // The transfers of each typed URL, in order (``transfers(_:query:upload:)`` keeps it).
        var byTypedURL: [[TransferPlan]] = []
        var next = transfers.makeIterator()
        for typed in options.urls {
            let count = options.globOff ? 1 : try URLGlob.expand(typed).count
            byTypedURL.append((0..<count).compactMap { _ in next.next() })
        }
        var stdinBytes: Data?
        var paired: [TransferPlan] = []
        for (position, group) in byTypedURL.enumerated() {
            guard position < options.uploadFiles.count else {
                for transfer in group {
                    var transfer = transfer
                    transfer.upload = .none
                    paired.append(transfer)
                }
                continue
            }
            let name = options.uploadFiles[position]
            let files = uploadNames(name, options)
            for file in files {
                for transfer in group {
                    var upload: TransferPlan.Upload
                    if file == "-" {
                        if stdinBytes == nil { stdinBytes = standardInput() }
                        upload = .standardInput(stdinBytes ?? Data())
                    } else {
                        upload = .file(URL(fileURLWithPath: file))
                    }
                    let url = file == "-" ? transfer.url : URLInput.naming(transfer.url, after: URL(fileURLWithPath: file).lastPathComponent)
                    var each = TransferPlan(index: paired.count, url: url, urlText: transfer.urlText, output: transfer.output)
                    each.upload = upload
                    paired.append(each)
                }
            }
        }
        return paired
    }

    /// The files a `-T` name stands for: its glob's expansions, or the name itself where `-g`
    /// turns globbing off or it is no glob courier reads (`x[]y.txt` is a file's name).
    private static func uploadNames(_ name: String, _ options: Options) -> [String] {
        guard !options.globOff, let expansions = try? URLGlob.expand(name) else { return [name] }
        return expansions.map(\.url)
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

    /// `-G`: the `--data` pieces, joined with `&`, for the URL's query.
    private static func queryText(of options: Options, standardInput: () -> Data, warn: (String) -> Void) throws(Failure) -> String? {
        for (given, name) in [(options.json != nil, "--json"), (!options.form.isEmpty, "--form"),
                              (options.uploadFile != nil, "--upload-file")] where given {
            throw .usage("-G sends --data in the URL; it cannot be combined with \(name)")
        }
        guard !options.dataArguments.isEmpty else { return nil }
        return FormData.queryText(FormData.encoded(options.dataArguments, standardInput: standardInput, warn: warn))
    }

    /// The bytes a body sends, as far as they are known before sending.
    private static func size(of body: RequestBody?) -> Int64 {
        switch body {
        case nil: return 0
        case let .file(url)?, let .untypedFile(url)?:
            return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        case .multipart?: return 0
        case let body?: return Int64((try? body.encoded())?.count ?? 0)
        }
    }
}
