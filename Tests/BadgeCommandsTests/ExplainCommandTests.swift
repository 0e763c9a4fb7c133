import RunFixtures
import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunLibrary
import SyntheticRuns
import XCTest

@testable import BadgeCommands

/// `badgectl explain` and `--theme`, in-process through `Badgectl.parseAsRoot`, over the repository's
/// packs and catalogue and a folder of JSON run summaries written here.
final class ExplainCommandTests: XCTestCase {
    static let repoRoot = Repository.root
    static let rules = repoRoot.appendingPathComponent("rules").path
    static let badges = repoRoot.appendingPathComponent("badges.json").path

    var temporary: TemporaryFolder!
    var folder = ""

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
        // 2025-01-06 is the Monday of 2025-W02.
        let runs = [
            ("a-short.json", #"{"start": "2025-01-06T07:00:00Z", "distance_m": 4000, "duration_s": 1440, "sport": "running"}"#),
            ("b-six.json", #"{"start": "2025-01-08T07:00:00Z", "distance_m": 6000, "duration_s": 2100, "sport": "running"}"#),
        ]
        for (name, text) in runs { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
    }

    override func tearDownWithError() throws { temporary = nil }

    func explain(_ arguments: [String]) throws -> (String, BadgeExplanation) {
        let parsed = try Badgectl.parseAsRoot(["explain"] + arguments + ["--rules", Self.rules, "--badges", Self.badges, "--tz", "UTC"])
        let command = try XCTUnwrap(parsed as? ExplainCommand)
        return try command.output()
    }

    func testEarnedBadgeNamesRunRuleAndNumbers() throws {
        let (text, explanation) = try explain(["five-k", folder])
        XCTAssertTrue(explanation.earned)
        XCTAssertEqual(explanation.awards.map { "\($0.tier)@\($0.run)" }, ["earned@b-six.json", "best@b-six.json"])
        let earned = try XCTUnwrap(explanation.awards.first)
        XCTAssertEqual(earned.detail, "6.00 km at 5:50/km")   // 2100 s / 6 km = 350 s/km
        XCTAssertEqual(earned.rule, "distance")
        XCTAssertEqual(try XCTUnwrap(earned.paceSecondsPerKilometre), 350, accuracy: 1e-9)
        XCTAssertTrue(text.hasPrefix("Five K (five-k), pack checkpoints\n"), text)
        XCTAssertTrue(text.contains("earned  2025-01-08  b-six.json  6.00 km   35:00  5:50/km  checkpoints/distance  6.00 km at 5:50/km"), text)
        XCTAssertTrue(text.contains("    evidence: badge_distance_m=5000, checkpoint=five-k, distance_m=6000, elapsed_s=2100"), text)
        XCTAssertEqual(earned.packVersion, "1.0.0")
        XCTAssertEqual(earned.evidence?["elapsed_s"]?.number, 2100)
        // silver needs 5% more speed than the earning run: 2100 / (6 × 1.05) = 333.3 s/km
        // named as the whole second below (333.3 -> 5:33; gold 2100 / 6.6 = 318.2 -> 5:18): running it earns the tier
        XCTAssertTrue(text.contains("checkpoints/distance: run more than 5.00 km at 5:33/km or faster for silver"), text)
        XCTAssertTrue(text.contains("for silver: a run of 5.01 km or more at 5:33/km or faster"), text)
        XCTAssertTrue(text.contains("for gold: a run of 5.01 km or more at 5:18/km or faster"), text)
        XCTAssertEqual(explanation.targets, [
            BadgeExplanation.Target(tier: "silver", distanceMeters: 5010, paceSecondsPerKilometre: 333),
            BadgeExplanation.Target(tier: "gold", distanceMeters: 5010, paceSecondsPerKilometre: 318),
        ])
    }

    func testNotYetGivesHintsProgressAndDistanceToGo() throws {
        let (text, explanation) = try explain(["ten-k", folder])
        XCTAssertFalse(explanation.earned)
        XCTAssertEqual(try XCTUnwrap(explanation.remainingMeters), 4000, accuracy: 1e-9)
        XCTAssertTrue(text.contains("Not earned yet."), text)
        XCTAssertTrue(text.contains("checkpoints/distance: run more than 10.00 km to earn [6.00 km of 10.00 km (60%)]"), text)
        XCTAssertTrue(text.contains("4.00 km to go."), text)

        let (weekText, _) = try explain(["week-100k", folder])
        XCTAssertTrue(weekText.contains("lifetime/week: 90.0 km left this ISO week (2025-W02) [10 of 100 km (10%)]"), weekText)
        let (streakText, _) = try explain(["streak-7", folder])
        // the 6th and the 8th: the 7th was missed, so the streak is 1 day
        XCTAssertTrue(streakText.contains("6 more days for a 7-day streak (current streak 1, last run 2025-01-08)"), streakText)
    }

    func testJSONFormat() throws {
        let (text, _) = try explain(["runs-10", folder, "--format", "json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["badge"] as? String, "runs-10")
        XCTAssertEqual(object["earned"] as? Bool, false)
        let statuses = try XCTUnwrap(object["statuses"] as? [[String: Any]])
        XCTAssertEqual(statuses.first?["hint"] as? String, "8 more runs (2 of 10)")
    }

    func testUnknownBadgeSuggestsClosestAndNamesWork() throws {
        XCTAssertThrowsError(try explain(["fiv-k", folder])) { error in
            XCTAssertEqual(error as? CommandError, .unknownBadge(id: "fiv-k", suggestion: "five-k"))
            XCTAssertEqual("\(error)", "unknown badge 'fiv-k'; did you mean 'five-k'?")
        }
        XCTAssertThrowsError(try explain(["lifetime-100", folder])) { error in
            XCTAssertEqual(error as? CommandError, .unknownBadge(id: "lifetime-100", suggestion: "lifetime-100k"))
        }
        XCTAssertEqual(try explain(["five k", folder]).1.badge, "five-k")               // a name, any case
        XCTAssertEqual(try explain(["Lookout Rock", folder, "--theme", "trail"]).1.badge, "five-k")  // a themed name
    }

    func testThemeRenamesButNeverChangesAwards() throws {
        let (plainText, plain) = try explain(["five-k", folder])
        let (moonText, moon) = try explain(["five-k", folder, "--theme", "moon"])
        let (_, trail) = try explain(["five-k", folder, "--theme", "trail"])
        XCTAssertEqual(plain.name, "Five K")
        XCTAssertEqual(moon.name, "Edge of Space")
        XCTAssertEqual(moon.information, "Five kilometres, and the sky turns from blue to black.")
        XCTAssertEqual(moon.image, "moon-karman.png")
        XCTAssertEqual(trail.name, "Lookout Rock")
        XCTAssertEqual(moon.awards.map(\.run), plain.awards.map(\.run))
        XCTAssertEqual(moon.awards.map(\.tier), plain.awards.map(\.tier))
        XCTAssertEqual(trail.awards.map(\.detail), plain.awards.map(\.detail))
        XCTAssertTrue(moonText.hasPrefix("Edge of Space (five-k)"), moonText)
        XCTAssertNotEqual(plainText, moonText)
        // A badge the theme does not cover keeps its own text.
        XCTAssertEqual(try explain(["week-100k", folder, "--theme", "moon"]).1.name, "Hundred-Kilometre Week")
    }

    func testUnknownThemeListsAvailable() throws {
        XCTAssertThrowsError(try explain(["five-k", folder, "--theme", "mars"])) { error in
            XCTAssertEqual("\(error)", "unknown theme 'mars'; available: moon, trail")
        }
        XCTAssertThrowsError(try Theme.resolve("moon", packs: [])) { error in
            XCTAssertEqual("\(error)", "unknown theme 'moon': the loaded packs define no themes")
        }
    }

    /// The evaluate report's rows carry the themed name, information and image; awards are the same.
    func testThemedEvaluationReport() throws {
        let catalogue = try Catalogue.load(path: Self.badges)
        let packs = ["checkpoints", "lifetime", "segments"].map { Self.rules + "/" + $0 }
        let engine = RuleEngine(packDirectories: packs, catalogue: catalogue)
        let theme = try Theme.resolve("trail", packs: engine.packs)
        let runFolder = try RunFolder.read(folder, analyzer: RunAnalyzer(), zone: TimeZone(identifier: "UTC") ?? .current)
        let evaluation = engine.evaluate(runs: runFolder.runs)
        let plain = EvaluationReport(folder: runFolder, evaluation: evaluation, catalogue: catalogue, packBadges: engine.packs.flatMap(\.badges),
                                     header: .init(zone: .gmt, packs: engine.packs))
        let themed = EvaluationReport(folder: runFolder, evaluation: evaluation, catalogue: theme.apply(catalogue),
                                      packBadges: theme.apply(engine.packs.flatMap(\.badges)), header: .init(zone: .gmt, packs: engine.packs))
        let row = try XCTUnwrap(themed.badges.first { $0.id == "five-k" })
        XCTAssertEqual(row.name, "Lookout Rock")
        XCTAssertEqual(row.image, "trail-lookout.png")
        XCTAssertEqual(row.earned?.run, "b-six.json")
        XCTAssertEqual(themed.badges.map(\.id), plain.badges.map(\.id))
        XCTAssertEqual(themed.awards, plain.awards)
        XCTAssertTrue(EvaluateCommand.table(themed).contains("Lookout Rock"))
        XCTAssertFalse(EvaluateCommand.table(themed).contains("Five K "))
    }

    /// End to end through the GPX reader and the analyzer: a 10 km run with a 5 km stretch at 4:50/km
    /// inside it (from 3 km to 8 km) earns the 5 km bronze and silver (under 30:00 and 25:00) from that
    /// stretch, not from the whole run (10 km at 5:30/km outside it).
    func testSegmentPaceFromAGeneratedGPX() throws {
        var generator = RunGenerator(seed: 7, distanceMeters: 10_000, paceSecondsPerKilometre: 330)
        generator.startEpochSeconds = 1_736_150_400  // 2025-01-06T08:00:00Z
        generator.gpsNoiseMeters = 0  // noise lengthens the track and would flatter the pace by ~1%
        generator.fastSection = RunGenerator.FastSection(startMeters: 3000, lengthMeters: 5000, paceSecondsPerKilometre: 290)
        try generator.writeGPX(to: folder + "/c-fast-middle.gpx")
        let (text, explanation) = try explain(["pace-5k", folder])
        XCTAssertEqual(explanation.awards.map { "\($0.tier)@\($0.run)" }, ["bronze@c-fast-middle.gpx", "silver@c-fast-middle.gpx"])
        let silver = try XCTUnwrap(explanation.awards.last)
        let effortSeconds = try XCTUnwrap(silver.progress?.current)
        XCTAssertEqual(effortSeconds, 5 * 290, accuracy: 5, "the fast stretch: about 24:10")
        XCTAssertTrue(silver.detail.hasPrefix("5 km in 24:"), silver.detail)
        XCTAssertTrue(text.contains("segments/pace: 5 km in 24:"), text)
        XCTAssertTrue(text.contains("under 20:00 for gold"), text)
    }
}
