import BadgeRules
import Foundation
import RunFiles
import RunLibrary

extension EvaluationPipeline {
    /// The incremental evaluator over `store` with this pipeline's packs and duplicate policy, reading in `zone`
    /// (the pipeline's `--tz` when nil).
    func incremental(_ store: StateStore, zone: TimeZone? = nil) -> IncrementalEvaluator {
        let keep = keepDuplicates
        return IncrementalEvaluator(engine: engine, store: store, zone: ZoneNames.name(of: zone ?? self.zone)) { runs in
            keep ? runs : Duplicates.removeSameActivity(from: runs).kept
        }
    }
}
