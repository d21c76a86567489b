import Courier
import Foundation

/// `courier download URL...`: which file each URL goes to, and how.
struct DownloadPlan: Sendable {
    struct Item: Sendable, Equatable {
        let url: URL
        let destination: URL
    }

    let items: [Item]
    let headers: RequestHeaders
    let options: DownloadOptions
    let settings: Settings

    init(_ options: Options) throws(Failure) {
        for (given, name) in [(!options.data.isEmpty, "--data"), (options.json != nil, "--json"),
                              (!options.form.isEmpty, "--form"), (options.uploadFile != nil, "--upload-file"),
                              (options.includeHeaders, "-i")] where given {
            throw .usage("\(name) cannot be used with download")
        }
        // For download, -d is --dir.
        var directoryArguments = options.shortD
        if let directory = options.directory { directoryArguments.append(directory) }
        guard directoryArguments.count <= 1 else { throw .usage("give one download folder (-d DIR), not several") }
        let directory = directoryArguments.first
        guard !options.urls.isEmpty else { throw .usage("no URL given") }
        if options.output != nil, directory != nil { throw .usage("give either -o FILE or -d DIR, not both") }
        if options.output != nil, options.urls.count > 1 {
            throw .usage("-o names one file but \(options.urls.count) URLs were given; use -d DIR")
        }

        var items: [Item] = []
        var urlByDestination: [String: String] = [:]
        for text in options.urls {
            let url = try URLInput.parse(text)
            try URLPolicy.check(url, options)
            let destination: URL
            if let output = options.output {
                destination = try Self.destination(named: output)
            } else {
                destination = URL(fileURLWithPath: directory ?? ".").appendingPathComponent(DownloadFileName.of(url))
            }
            let path = destination.standardizedFileURL.path
            if let earlier = urlByDestination[path] {
                throw .usage("\(Redaction.standard.redact(urlString: earlier)) and \(Redaction.standard.redact(urlString: text)) would both be saved as \(path)")
            }
            urlByDestination[path] = text
            items.append(Item(url: url, destination: destination.standardizedFileURL))
        }

        var downloadOptions: DownloadOptions = [.replaceExisting]
        if directory != nil { downloadOptions.insert(.createDirectories) }
        if options.noResume { downloadOptions.insert(.noResume) }

        self.items = items
        self.headers = try RequestHeaders(options)
        self.options = downloadOptions
        self.settings = try Settings(options)
    }

    /// The file `-o` names. A link of the user's (`-o /dev/stdout`, `-o latest.iso` pointing
    /// into a downloads folder) is followed, as curl follows it: the download, resumable as any,
    /// goes to the file, device or FIFO it leads to, and the link stays. Only names courier
    /// makes up itself (`-d DIR`) refuse links (see ``OutputPath``).
    private static func destination(named output: String) throws(Failure) -> URL {
        let url = URL(fileURLWithPath: output)
        switch OutputPath.target(of: url) {
        case .notALink:
            return url
        case let .path(target):
            return target
        case .unnamed:
            // A pipe or a socket behind /proc: written as the body arrives by `courier URL -o`.
            throw .usage("download cannot save through \(output), a link to no file (a pipe or a socket); "
                + "use courier URL -o \(output)")
        }
    }
}
