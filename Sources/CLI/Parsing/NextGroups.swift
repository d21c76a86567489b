/// curl's `--next` (`-:`): the line is several command lines in one, run one after the other.
/// Each part has its own URLs and per-transfer options (`-o`, `-d`, `-H`, `--connect-to` …);
/// the options curl calls global (``carryGlobals(into:)``) hold for every part, wherever given.
enum NextGroups {
    /// The parts of `arguments` between `--next`s; one part without any. An empty part (two
    /// `--next` in a row, or one at the end) is left out.
    static func split(_ arguments: [String]) -> [[String]] {
        var groups: [[String]] = [[]]
        var optionsEnded = false
        for argument in arguments {
            if !optionsEnded, argument == "--next" || argument == "-:" {
                groups.append([])
            } else {
                if argument == "--" { optionsEnded = true }
                groups[groups.count - 1].append(argument)
            }
        }
        let parts = groups.filter { !$0.isEmpty }
        return parts.isEmpty ? [[]] : parts
    }

    /// Gives every part the global options any part set: `-s`, `-S`, `-v`, `--trace…`,
    /// `--trace-time`, `--engine`, as curl applies them to the whole line.
    static func carryGlobals(into parts: inout [Options]) {
        let silent = parts.contains(where: \.silent), showError = parts.contains(where: \.showError)
        let verbose = parts.contains(where: \.verbose), traceTime = parts.contains(where: \.traceTime)
        let trace = parts.last(where: { $0.trace != nil })?.trace
        let engine = parts.last(where: { $0.engine != nil })?.engine
        let noProgressMeter = parts.contains(where: \.noProgressMeter)
        for index in parts.indices {
            parts[index].silent = silent
            parts[index].showError = showError
            parts[index].verbose = verbose
            parts[index].traceTime = traceTime
            parts[index].trace = trace
            parts[index].engine = engine
            parts[index].noProgressMeter = noProgressMeter
        }
    }
}
