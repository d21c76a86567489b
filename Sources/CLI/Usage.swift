/// The texts of `--help`, `--version` and usage errors.
enum Usage {
    static let version = "courier 0.1.0"

    /// Printed after a usage error, with the problem on the line before it.
    static let short = """
        usage: courier [get|post|put|patch|delete|head] [options] URL
               courier download [options] URL...
        Try 'courier --help' for more.
        """

    static var help: String {
        """
        courier: HTTP requests and downloads from the command line, built on the Courier library.

        USAGE
          courier [get] URL                      stream the body to stdout
          courier post|put|patch|delete URL      send a request (a body option implies post)
          courier head URL                       print the status line and headers only
          courier download URL... [-o FILE | -d DIR] [--no-resume]
                                                 save files, several in parallel, resumable

        REQUEST OPTIONS
          -H, --header 'Name: value'   add a header (repeatable)
          -u, --user USER:PASSWORD     HTTP Basic credentials
              --bearer TOKEN           Authorization: Bearer TOKEN
          -d, --data TEXT|@FILE        form body (application/x-www-form-urlencoded); repeat to join with &;
                                       @FILE sends the file as is, @- reads stdin
              --json TEXT|@FILE        JSON body; sets Content-Type and Accept to application/json
          -F, --form NAME=VALUE        multipart form field (repeatable);
              --form NAME=@PATH[;type=MIME][;filename=NAME]   a file part
          -T, --upload-file FILE       stream FILE as the body (PUT unless a command is named)

        OUTPUT OPTIONS
          -o, --output FILE            write the body to FILE (streamed, resumable for get)
          -i, --include                print the status line and headers before the body
          -N, --no-buffer              write each chunk as it arrives, even JSON on a terminal
                                       (otherwise held to be pretty-printed)
          -s, --silent                 no progress or notices (errors are still reported)
          -f, --fail                   exit 22 on HTTP status >= 400, with the body on stderr
              --progress               show progress even when stderr is not a terminal (plain lines)

        DOWNLOAD OPTIONS
          -d, --dir DIR                save into DIR (created if missing), named after each URL
          -o, --output FILE            save the single URL as FILE
              --no-resume              ignore a .partial file left by an earlier run

        GENERAL OPTIONS
          -m, --timeout SECONDS        give up on a request after SECONDS (default: no limit)
              --retries N              retry failed requests N times (default 0)
              --max-concurrent N       transfers in parallel (default 4)
          -h, --help                   show this help
          -V, --version                show the version

        Without a scheme, http:// is assumed. Progress goes to stderr, never stdout. On a terminal,
        JSON is pretty-printed and binary bodies are not shown; anywhere else the body is byte-exact.
        Ctrl-C keeps partial downloads; run the same command again to resume.

        EXIT CODES
        \(exitCodeTable)
        """
    }

    private static var exitCodeTable: String {
        ExitCode.allCases.compactMap { code in
            code.summary.map { "  " + String(code.rawValue).leftPadded(to: 3) + "  " + $0 }
        }.joined(separator: "\n")
    }
}
