import RunAnalysis
import RunFiles

extension RuleRunner {
    /// `failure` with the measures its call read as nil, when it failed on a nil value ("attempt to
    /// index a nil value (local 'band')"): which run, which measure and why it is nil ("the run has no
    /// heart rate"), the measure the message names first.
    func explainingNilMeasures(_ failure: RuleFailure) -> RuleFailure {
        guard !runs.nilMeasureReads.isEmpty, failure.message.contains("nil") else { return failure }
        let isNamed = { (read: (run: Int, pack: Int, name: String)) in failure.message.contains("'\(read.name)'") }
        let named = runs.nilMeasureReads.filter(isNamed) + runs.nilMeasureReads.filter { !isNamed($0) }
        var seen = Set<String>()
        var parts: [String] = []
        for read in named where read.run >= 1 && read.run <= runs.count {
            let run = runs.runs[read.run - 1].id
            guard seen.insert("\(read.run)\u{0}\(read.name)").inserted else { continue }
            parts.append("measure '\(read.name)' is nil in run '\(run)' (\(runs.measureTable.nilReason(pack: read.pack, name: read.name)))")
        }
        guard !parts.isEmpty else { return failure }
        var explained = failure
        explained.message += ": " + parts.joined(separator: "; ") + " (a rule checks a measure for nil before reading its fields)"
        return explained
    }
}

extension PackMeasureTable {
    /// Why measure `name` of pack `pack` is nil in a run: the evaluation's reason when it is nil in
    /// every run (a zone without a profile), else what the run lacks for its kind.
    func nilReason(pack: Int, name: String) -> String {
        if let reason = unavailable(pack: pack, name: name) { return reason }
        guard pack >= 0, pack < entries.count, let entry = entries[pack][name] else { return "not computed for this run" }
        let declared = entry.declared
        if declared.kind == MeasureKind.timeIn.name, let channel = declared.text("channel") {
            switch channel {
            case "heart_rate": return "the run has no heart rate"
            case "cadence": return "the run has no cadence"
            case "elevation", "grade": return "the run has no elevation"
            default: return "the run has no times"
            }
        }
        return MeasureKind.nilReason(declared.kind)
    }
}
