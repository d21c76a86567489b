import Courier
import Dispatch
import Foundation

/// Shows the progress of one or several transfers on stderr, never on stdout.
///
/// Progress events arrive on Courier's private queues, one per transfer, so everything here is
/// under a lock. Terminal redraws are throttled to 10 a second: more is invisible and costs CPU.
final class ProgressDisplay: @unchecked Sendable {  // all mutable state is under its lock.
    // `@unchecked` is sound: every mutable property is only touched with `lock` held.
    private let style: ProgressStyle
    private let console: Console
    private let clock: @Sendable () -> Double
    private let lock = NSLock()

    private var rows: [ProgressRow]
    private var meters: [SpeedMeter]
    /// First sample of the current direction of each transfer, for the average speed.
    private var firstSamples: [(time: Double, bytes: Int64)?]
    private var lastPlainLine: [Double?]
    private let startTime: Double
    private var lastDraw = -Double.infinity
    /// Lines of the last terminal draw, which the next draw moves the cursor back over.
    private var drawnLines = 0

    static let redrawInterval = 0.1
    static let plainLineInterval = 1.0

    init(labels: [String], style: ProgressStyle, console: Console = .shared,
         clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.style = style
        self.console = console
        self.clock = clock
        // Labels are file names and URL parts: their control characters are shown escaped.
        rows = labels.map { ProgressRow(label: TerminalText.escaped($0)) }
        meters = labels.map { _ in SpeedMeter() }
        firstSamples = labels.map { _ in nil }
        lastPlainLine = labels.map { _ in nil }
        startTime = clock()
    }

    /// Records an event of transfer `index`; draws when the throttle allows.
    func update(_ index: Int, _ progress: TransferProgress) {
        guard style != .none else { return }
        lock.withLock {
            let now = clock()
            if let previous = rows[index].progress, previous.direction != progress.direction {
                // An upload has become the response's download: its speed starts afresh.
                meters[index].reset()
                firstSamples[index] = nil
            }
            rows[index].state = .running
            rows[index].progress = progress
            meters[index].record(bytes: progress.completedBytes, at: now)
            rows[index].speed = meters[index].bytesPerSecond
            if firstSamples[index] == nil { firstSamples[index] = (now, progress.completedBytes) }
            switch style {
            case .none:
                break
            case .bars:
                if now - lastDraw >= Self.redrawInterval { drawBars(now: now) }
            case .lines:
                if let last = lastPlainLine[index], now - last < Self.plainLineInterval { return }
                lastPlainLine[index] = now
                console.writeError(Data((ProgressLine.plain(rows[index]) + "\n").utf8))
            }
        }
    }

    /// Marks transfer `index` as over and shows its final state.
    func finish(_ index: Int, _ state: ProgressRow.State) {
        guard style != .none else { return }
        lock.withLock {
            let now = clock()
            let started = rows[index].state != .waiting
            rows[index].state = state
            if let first = firstSamples[index], let progress = rows[index].progress, now > first.time {
                rows[index].averageSpeed = Double(progress.completedBytes - first.bytes) / (now - first.time)
            }
            switch style {
            case .none:
                break
            case .bars:
                drawBars(now: now)
            case .lines:
                // A transfer that never started has no line to finish; its error says why.
                if started { console.writeError(Data((ProgressLine.plain(rows[index]) + "\n").utf8)) }
            }
        }
    }

    /// Leaves the terminal clean: final bars stay, transient ones are erased.
    func close() {
        guard case let .bars(transient, _) = style else { return }
        lock.withLock {
            if transient {
                if drawnLines > 0 { console.writeError(Data("\u{1B}[\(drawnLines)A\r\u{1B}[J".utf8)) }
                drawnLines = 0
            } else {
                drawBars(now: clock(), force: true)
            }
        }
    }

    private func drawBars(now: Double, force: Bool = false) {
        guard case let .bars(_, delay) = style, force || now - startTime >= delay else { return }
        lastDraw = now
        let (columns, height) = console.stderrSize
        var text = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
        let lines = visibleLines(width: columns, limit: max(3, height - 1))
        for line in lines {
            text += "\r\u{1B}[2K" + line + "\n"
        }
        // A shorter draw than the last one (fewer running rows) must not leave old lines behind.
        if lines.count < drawnLines { text += "\u{1B}[J" }
        drawnLines = lines.count
        console.writeError(Data(text.utf8))
    }

    /// Every row when they fit on the screen; otherwise the running ones and a summary, since
    /// the cursor cannot move back above the top of the screen.
    private func visibleLines(width: Int, limit: Int) -> [String] {
        guard rows.count > limit else { return rows.map { ProgressLine.bar($0, width: width) } }
        let done = rows.filter { $0.state == .done }.count
        let failed = rows.filter { $0.state == .failed || $0.state == .interrupted }.count
        let waiting = rows.filter { $0.state == .waiting }.count
        var summary = "\(done) of \(rows.count) done"
        if failed > 0 { summary += ", \(failed) not completed" }
        if waiting > 0 { summary += ", \(waiting) waiting" }
        let running = rows.filter { $0.state == .running }.prefix(limit - 1)
        return running.map { ProgressLine.bar($0, width: width) } + [summary.truncated(to: width - 1)]
    }
}
