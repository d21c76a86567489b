/// Transfer speed over the last few seconds: responsive to change, steady enough to read.
///
/// Only bytes seen during this run count: a resumed download starts at its offset, and that
/// offset must not look like a burst of speed.
struct SpeedMeter {
    private var samples: [(time: Double, bytes: Int64)] = []
    /// How far back the speed looks.
    private let window: Double

    init(window: Double = 3) {
        self.window = window
    }

    mutating func record(bytes: Int64, at time: Double) {
        samples.append((time, bytes))
        // Keep one sample older than the window, so the span stays close to `window` seconds.
        while samples.count > 2, samples[1].time <= time - window {
            samples.removeFirst()
        }
    }

    /// Bytes per second, or `nil` until enough time has passed to say.
    var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.25 else { return nil }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }

    /// Forgets everything, e.g. when an upload turns into the response's download.
    mutating func reset() {
        samples.removeAll()
    }
}
