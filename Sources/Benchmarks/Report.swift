import Courier
import Foundation

/// One benchmark result, printed as a single JSON line on standard output for `scripts/bench`.
///
/// Fields keep their insertion order so the lines stay readable; values are numbers, strings or
/// booleans only, which is all the aggregation needs (no JSONSerialization round trip).
struct Report {
    enum Value {
        case int(Int)
        case double(Double)
        case string(String)
        case bool(Bool)
    }

    private var fields: [(String, Value)] = []

    init(case name: String, client: String) {
        self["case"] = .string(name)
        self["client"] = .string(client)
    }

    subscript(key: String) -> Value? {
        get { fields.first { $0.0 == key }?.1 }
        set {
            fields.removeAll { $0.0 == key }
            if let newValue { fields.append((key, newValue)) }
        }
    }

    /// The JSON object, on one line.
    var json: String {
        "{" + fields.map { "\(JSONText.string($0.0)): \(Self.encode($0.1))" }.joined(separator: ", ") + "}"
    }

    /// Writes the line unbuffered, so that nothing is lost if the process exits or is killed right after.
    func emit() {
        FileHandle.standardOutput.write(Data((json + "\n").utf8))
    }

    private static func encode(_ value: Value) -> String {
        switch value {
        case let .int(number): return String(number)
        // JSON has no NaN or infinity: a figure that could not be measured is null.
        case let .double(number): return number.isFinite ? String(number) : "null"
        case let .string(text): return JSONText.string(text)
        case let .bool(flag): return flag ? "true" : "false"
        }
    }
}

/// Stops the benchmark with a message on standard error and a non-zero status, so that
/// `scripts/bench` marks the case as failed rather than aggregating a wrong figure.
func benchmarkFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data("Benchmarks: \(message)\n".utf8))
    exit(1)
}
