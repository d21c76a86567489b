import Courier

/// The state of one transfer as the progress display shows it.
struct ProgressRow {
    enum State: Equatable {
        /// Not started: queued behind `--max-concurrent`, or connecting.
        case waiting
        case running
        case done
        case failed
        case interrupted
    }

    var label: String
    var state: State = .waiting
    var progress: TransferProgress?
    var speed: Double?
    /// Bytes per second over the whole run, shown once the transfer is over.
    var averageSpeed: Double?
}

/// Renders a ``ProgressRow`` as text: pure functions, so the layout is testable without a terminal.
enum ProgressLine {
    /// One line for a terminal, at most `width - 1` columns so that redrawing in place never
    /// wraps (a wrapped line would break the cursor-up arithmetic, and writing the last column
    /// makes some terminals wrap). The columns have fixed widths, so the bar does not jump about
    /// between redraws and the rows of parallel downloads line up:
    /// `file.bin   45%  [=========>           ]  12.3 MB / 27.0 MB   4.5 MB/s  ETA 0:03`
    static func bar(_ row: ProgressRow, width: Int) -> String {
        let usable = max(width, 20) - 1
        let fraction = row.progress?.fractionCompleted
        // Percent 4, amount 19, speed 10, status 11, and the gaps between them: 50 columns. The
        // rest is shared by the label and the gauge; the gauge goes first on a narrow terminal.
        let shared = usable - 50 - 2
        let gaugeWidth = shared >= 26 ? min(30, (shared - 4) / 2) : 0
        var columns: [String] = []
        if row.state == .waiting {
            columns.append("".leftPadded(to: 4))
        } else {
            columns.append((fraction.map(percent) ?? "").leftPadded(to: 4))
        }
        if gaugeWidth > 0 {
            let drawn = fraction.map { "[" + gauge($0, width: gaugeWidth) + "]" } ?? ""
            columns.append(drawn.rightPadded(to: gaugeWidth + 2))
        }
        columns.append((row.state == .waiting ? "" : amount(row.progress)).leftPadded(to: 19))
        let speed: Double? = row.state == .running ? row.speed : row.state == .done ? row.averageSpeed : nil
        columns.append((speed.map(Units.speed) ?? (row.state == .running ? "--" : "")).leftPadded(to: 10))
        let status: String
        switch row.state {
        case .waiting: status = "waiting"
        case .running: status = eta(row).map { "ETA " + Units.duration($0) } ?? ""
        case .done: status = "done"
        case .failed: status = "failed"
        case .interrupted: status = "interrupted"
        }
        columns.append(status.rightPadded(to: 11))
        let right = columns.joined(separator: "  ")
        let labelWidth = max(8, usable - right.count - 2)
        let line = row.label.truncated(to: labelWidth).rightPadded(to: labelWidth) + "  " + right
        // Trailing spaces are not needed: each redraw erases the line first.
        return String(line.truncated(to: usable).reversed().drop { $0 == " " }.reversed())
    }

    /// A plain line for logs (`--progress` when stderr is not a terminal):
    /// `file.bin 12.3 MB / 100.0 MB (12%) 45.6 MB/s`
    static func plain(_ row: ProgressRow) -> String {
        var text = row.label + " " + amount(row.progress)
        if let fraction = row.progress?.fractionCompleted { text += " (\(percent(fraction)))" }
        switch row.state {
        case .waiting, .running:
            if let speed = row.speed { text += " " + Units.speed(speed) }
        case .done:
            if let average = row.averageSpeed { text += " " + Units.speed(average) }
            text += " done"
        case .failed:
            text += " failed"
        case .interrupted:
            text += " interrupted"
        }
        return text
    }

    private static func amount(_ progress: TransferProgress?) -> String {
        guard let progress else { return Units.bytes(0) }
        guard let total = progress.totalBytes else { return Units.bytes(progress.completedBytes) }
        return Units.bytes(progress.completedBytes) + " / " + Units.bytes(total)
    }

    private static func percent(_ fraction: Double) -> String {
        "\(Int((fraction * 100).rounded(.down)))%"
    }

    /// `=====>     `: the arrow marks the front while the transfer runs.
    static func gauge(_ fraction: Double, width: Int) -> String {
        let filled = Int((Double(width) * min(max(fraction, 0), 1)).rounded(.down))
        if filled >= width { return String(repeating: "=", count: width) }
        return String(repeating: "=", count: filled) + ">" + String(repeating: " ", count: width - filled - 1)
    }

    private static func eta(_ row: ProgressRow) -> Double? {
        guard let progress = row.progress, let total = progress.totalBytes,
              let speed = row.speed, speed > 0 else { return nil }
        return Double(max(0, total - progress.completedBytes)) / speed
    }
}

extension String {
    /// Cut to `width` characters, the last one an ellipsis when something was cut.
    func truncated(to width: Int) -> String {
        guard count > width else { return self }
        guard width > 3 else { return String(prefix(max(0, width))) }
        return String(prefix(width - 3)) + "..."
    }

    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
