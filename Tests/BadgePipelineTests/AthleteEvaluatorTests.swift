import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// `AthleteEvaluator`, where an athlete's runs meet the rules: its kinds give the same awards for the
/// same runs. A fresh state for the whole history; one loaded state reused after another athlete's
/// evaluation (and again); a saved state begun with part of the history, added to a run at a time
/// and a run taken back, in a fresh and in the reused state. The repository's packs, with and
/// without a profile.
final class AthleteEvaluatorTests: XCTestCase {
    static let root = Repository.root

    func pipeline() throws -> RunPipeline {
        let catalogue = try Catalogue.load(path: Self.root.appendingPathComponent("badges.json").path)
        let engine = RuleEngine(packDirectories: RulePack.folders(in: [Self.root.appendingPathComponent("rules").path]), catalogue: catalogue)
        XCTAssertEqual(engine.loadFailures.map(\.message), [])
        return RunPipeline(engine: engine, zone: TimeZone(identifier: "UTC") ?? .current)
    }

    /// Eight runs a few days apart (one of them a ride, left out by the selection), made by the generator.
    func runs(_ pipeline: RunPipeline, seed: UInt64, profile: Athlete?) -> [RunSummary] {
        let own = pipeline.with(athlete: profile)
        return (0..<8).map { index in
            var generator = RunGenerator(seed: seed * 100 + UInt64(index), distanceMeters: 3_000 + Double(index) * 2_500,
                                         paceSecondsPerKilometre: 270 + Double(index % 3) * 30)
            generator.startEpochSeconds = 1_772_366_400 + Double(index) * 3 * 86_400
            generator.sampling = .every(5)
            if index == 5 { generator.sport = "cycling" }
            return own.summary(track: generator.track(), id: "run-\(seed)-\(index)")
        }
    }

    /// An award as compared: what and where.
    static func identities(_ awards: [Award]) -> [String] {
        awards.map { "\($0.pack)/\($0.rule)/\($0.badge)/\($0.tier)/\($0.run)/\($0.detail)" }.sorted()
    }

    func testEveryKindGivesTheSameAwards() throws {
        let pipeline = try pipeline()
        let profiles: [Athlete?] = [nil, Athlete(source: "test", maxHeartRate: 190, restingHeartRate: 50, birthDate: "1980-06-01", sex: "F")]
        for profile in profiles {
            let context = profile == nil ? "no profile" : "a profile"
            let history = runs(pipeline, seed: 7, profile: profile)
            let fresh = AthleteEvaluator(pipeline: pipeline).evaluate(history, profile: profile)
            XCTAssertEqual(fresh.selection.selected.count, 7, context)
            XCTAssertEqual(fresh.selection.excluded.map(\.id), ["run-7-5"], context)
            XCTAssertFalse(fresh.evaluation.awards.isEmpty, context)
            XCTAssertEqual(fresh.evaluation.failures.map(\.message), [], context)
            let expected = Self.identities(fresh.evaluation.awards)

            // Reused: after another athlete's evaluation in the same loaded state, and again.
            let reused = AthleteEvaluator(pipeline: pipeline, kind: .reused)
            _ = reused.evaluate(runs(pipeline, seed: 8, profile: nil))
            XCTAssertEqual(Self.identities(reused.evaluate(history, profile: profile).evaluation.awards), expected, "reused, \(context)")
            XCTAssertEqual(Self.identities(reused.evaluate(history, profile: profile).evaluation.awards), expected, "reused again, \(context)")

            // Incremental: three runs saved, then the rest added one at a time, in each kind's state.
            for kind in [AthleteEvaluator.Kind.fresh, .reused] {
                let folder = try TemporaryFolder()
                let store = StateStore(directory: folder.path + "/state")
                let evaluator = AthleteEvaluator(pipeline: pipeline, kind: kind)
                let started = try evaluator.start(evaluator.select(Array(history.prefix(3)), profile: profile), in: store, profile: profile)
                XCTAssertEqual(started.runCount, 3, "\(kind), \(context)")
                var last = started
                for run in history.dropFirst(3) {
                    last = try evaluator.add(evaluator.select([run], profile: profile), to: store, profile: profile)
                    XCTAssertNil(last.replayed, "\(kind), \(context): \(run.id)")
                }
                XCTAssertEqual(last.runCount, 7, "\(kind), \(context)")
                XCTAssertEqual(last.awardCount, fresh.evaluation.awards.count, "\(kind), \(context)")
                XCTAssertEqual(Self.identities(try store.awards()), expected, "incremental, \(kind), \(context)")
                // A run taken back: what a fresh evaluation of the history without it gives.
                let removed = try evaluator.remove(["run-7-3"], from: store, profile: profile)
                XCTAssertEqual(removed.unknown, [], "\(kind), \(context)")
                let without = AthleteEvaluator(pipeline: pipeline).evaluate(history.filter { $0.id != "run-7-3" }, profile: profile)
                XCTAssertEqual(Self.identities(try store.awards()), Self.identities(without.evaluation.awards), "remove, \(kind), \(context)")
            }
        }
    }
}
