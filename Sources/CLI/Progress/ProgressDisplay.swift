import Courier
import Dispatch
import Foundation

/// Shows the progress of one or several transfers on stderr, never on stdout.
///
/// Progress events arrive on Courier's private queues, one per transfer, so everything here is
/// under one lock. Terminal redraws are throttled to 10 a second: more is invisible and costs CPU.
final class ProgressDisplay: Sendable {
    private let style: ProgressStyle
    private let console: Console
    private let clock: @Sendable () -> Double
    private let startTime: Double

    /// What the display has seen and drawn, one entry per transfer.
    private struct State {
        var rows: [ProgressRow]
        var meters: [SpeedMeter]
        /// First sample of the current direction of each transfer, for the average speed.
        var firstSamples: [(time: Double, bytes: Int64)?]
        var lastPlainLine: [Double?]
        var lastDraw = -Double.infinity
        /// Lines of the last terminal draw, which the next draw moves the cursor back over.
        var drawnLines = 0
    }

    /// Held while an event is recorded and drawn, so that two transfers' draws never interleave.
    private let state: Locked<State>

    static let redrawInterval = 0.1
    static let plainLineInterval = 1.0

    init(labels: [String], style: ProgressStyle, console: Console = .shared,
         clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.style = style
        self.console = console
        self.clock = clock
        // Labels are file names and URL parts: their control characters are shown escaped.
        state = Locked(State(rows: labels.map { ProgressRow(label: TerminalText.escaped($0)) },
                             meters: labels.map { _ in SpeedMeter() },
                             firstSamples: labels.map { _ in nil }, lastPlainLine: labels.map { _ in nil }))
        startTime = clock()
    }

    /// Records an event of transfer `index`; draws when the throttle allows.
    func update(_ index: Int, _ progress: TransferProgress) {
        guard style != .none else { return }
        state.withLock { state in
            let now = clock()
            if let previous = state.rows[index].progress, previous.direction != progress.direction {
                // An upload has become the response's download: its speed starts afresh.
                state.meters[index].reset()
                state.firstSamples[index] = nil
            }
            state.rows[index].state = .running
            state.rows[index].progress = progress
            state.meters[index].record(bytes: progress.completedBytes, at: now)
            state.rows[index].speed = state.meters[index].bytesPerSecond
            if state.firstSamples[index] == nil { state.firstSamples[index] = (now, progress.completedBytes) }
            switch style {
            case .none:
                break
            case .bars:
                if now - state.lastDraw >= Self.redrawInterval { drawBars(&state, now: now) }
            case .lines:
                if let last = state.lastPlainLine[index], now - last < Self.plainLineInterval { return }
                state.lastPlainLine[index] = now
                console.writeError(Data((ProgressLine.plain(state.rows[index]) + "\n").utf8))
            }
        }
    }

    /// Marks transfer `index` as over and shows its final state.
    func finish(_ index: Int, _ state: ProgressRow.State) {
        guard style != .none else { return }
        self.state.withLock { display in
            let now = clock()
            let started = display.rows[index].state != .waiting
            display.rows[index].state = state
            if let first = display.firstSamples[index], let progress = display.rows[index].progress, now > first.time {
                display.rows[index].averageSpeed = Double(progress.completedBytes - first.bytes) / (now - first.time)
            }
            switch style {
            case .none:
                break
            case .bars:
                drawBars(&display, now: now)
            case .lines:
                // A transfer that never started has no line to finish; its error says why.
                if started { console.writeError(Data((ProgressLine.plain(display.rows[index]) + "\n").utf8)) }
            }
        }
    }

    /// Leaves the terminal clean: final bars stay, transient ones are erased.
    func close() {
        guard case let .bars(transient, _) = style else { return }
        state.withLock { state in
            if transient {
                if state.drawnLines > 0 { console.writeError(Data("\u{1B}[\(state.drawnLines)A\r\u{1B}[J".utf8)) }
                state.drawnLines = 0
            } else {
                drawBars(&state, now: clock(), force: true)
            }
        }
    }

    private func drawBars(_ state: inout State, now: Double, force: Bool = false) {
        guard case let .bars(_, delay) = style, force || now - startTime >= delay else { return }
        state.lastDraw = now
        let (columns, height) = console.stderrSize
        var text = state.drawnLines > 0 ? "\u{1B}[\(state.drawnLines)A" : ""
        let lines = Self.visibleLines(of: state.rows, width: columns, limit: max(3, height - 1))
        for line in lines {
            text += "\r\u{1B}[2K" + line + "\n"
        }
        // A shorter draw than the last one (fewer running rows) must not leave old lines behind.
        if lines.count < state.drawnLines { text += "\u{1B}[J" }
        state.drawnLines = lines.count
        console.writeError(Data(text.utf8))
    }

    /// Every row when they fit on the screen; otherwise the running ones and a summary, since
    /// the cursor cannot move back above the top of the screen.
    private static func visibleLines(of rows: [ProgressRow], width: Int, limit: Int) -> [String] {
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
