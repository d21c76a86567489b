/// How progress is shown, decided once per run from the options and from where stderr goes.
enum ProgressStyle: Equatable {
    /// Nothing (stderr is not a terminal and `--progress` was not given, or `-s`, or
    /// `--no-progress-meter`).
    case none
    /// One bar per transfer on stderr, redrawn in place.
    /// - `transient`: erased at the end, because the body follows on the same terminal.
    /// - `delay`: seconds before the first draw, so quick requests do not flash a bar.
    case bars(transient: Bool, delay: Double)
    /// Plain lines for logs, at most one a second per transfer.
    case lines

    /// - Parameter keepsBars: Whether the bars stay once done: downloads and `-o` keep them as a
    ///   record; a body printed to stdout replaces them.
    static func choose(_ settings: Settings, stderrIsTerminal: Bool, keepsBars: Bool) -> ProgressStyle {
        if settings.noProgressMeter || settings.silent && !settings.progressRequested { return .none }
        if stderrIsTerminal { return .bars(transient: !keepsBars, delay: keepsBars ? 0 : 0.5) }
        return settings.progressRequested ? .lines : .none
    }
}
