import RunFixtures
import BadgeKit
import Foundation
import XCTest

/// The Getting Started article's code (Sources/BadgeKit/BadgeKit.docc/GettingStarted.md) is compiled and
/// run here: `gettingStarted` holds it between the `getting-started` markers, and
/// `testTheArticleShowsThisCode` fails when the article's block and that region differ, or either is gone.
final class GettingStartedTests: XCTestCase {
    static let root = Repository.root
    static let article = root.appendingPathComponent("Sources/BadgeKit/BadgeKit.docc/GettingStarted.md")

    /// What the article's code found, for the checks below.
    struct Found {
        var history: [RunSummary]
        var evaluation: Evaluation
        var update: StateUpdate
        var outcome: WhatIfOutcome
        var explanation: BadgeExplanation
    }

    /// The article's code, as a function of the repository (rules/, badges.json, runs/) and a folder for the state.
    func gettingStarted(repository: String, stateFolder: String) throws -> Found {
        // BEGIN getting-started
        // Load the packs and the catalogue once, when the server starts.
        let engine = try BadgeEngine(packs: [repository + "/rules"], catalogue: repository + "/badges.json",
                                     zone: TimeZone(identifier: "Europe/Amsterdam") ?? .current)
        for failure in engine.loadFailures { print("pack not loaded: \(failure)") }

        // Read a runner's files: GPX, TCX, FIT, their .gz forms, JSON summaries, zips.
        let files = ["2026-08-01-first-run.gpx", "2026-08-20-first-10k.fit", "2026-09-12-fifteen.gpx"]
        let history = try files.flatMap { try engine.summaries(file: repository + "/runs/" + $0, id: $0) }

        // Evaluate the whole history: awards, "why not yet", the next badge.
        let evaluation = engine.evaluate(history)
        for award in evaluation.awards { print("\(award.badge) (\(award.tier)) on \(award.run)") }
        if let next = evaluation.next { print("next: \(next.badge), \(Int(next.remainingMeters)) m to go") }

        // Keep the runner's state, and add each new run to it: only the new run is evaluated.
        let upload = try engine.summaries(file: repository + "/runs/2026-10-18-half.gpx", id: "upload")
        _ = try engine.saveState(of: history, in: stateFolder)
        let update = try engine.add(upload, toStateIn: stateFolder)
        for award in update.added { print("new: \(award.badge) (\(award.tier))") }

        // What would a 25 km run in 2:30 the day after earn?
        let start = (history.compactMap(\.startEpochSeconds).max() ?? 0) + 86_400
        let outcome = try engine.whatIf(WhatIfRun(distanceMeters: 25_000, elapsedSeconds: 9_000, startEpochSeconds: start,
                                                  utcOffsetSeconds: 7_200), history: history)
        for award in outcome.awards { print("a 25 km run would earn \(award.badge) (\(award.tier))") }

        // Why a badge was earned, or what would earn it.
        let explanation = try engine.explain("ten-k", history: history)
        print(explanation.earned ? "ten-k earned on \(explanation.awards[0].run)" : "ten-k: not yet")
        // END getting-started
        return Found(history: history, evaluation: evaluation, update: update, outcome: outcome, explanation: explanation)
    }

    func testTheArticlesCodeRuns() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path + "/state"
        let found = try gettingStarted(repository: Self.root.path, stateFolder: folder)
        XCTAssertEqual(found.history.count, 3)
        XCTAssertEqual(found.evaluation.failures, [])
        XCTAssertTrue(found.evaluation.awards.contains { $0.badge == "ten-k" })
        XCTAssertNil(found.update.replayed)
        XCTAssertFalse(found.update.added.isEmpty, "the half marathon earns something new")
        XCTAssertTrue(found.outcome.awards.contains { $0.badge == "half-marathon" }, "\(found.outcome.awards.map(\.badge))")
        XCTAssertTrue(found.explanation.earned)
        XCTAssertEqual(found.explanation.awards.first?.run, "2026-08-20-first-10k.fit")
    }

    /// The article's one Swift block is this file's region, line for line (indentation aside).
    func testTheArticleShowsThisCode() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let region = try XCTUnwrap(Self.region(of: source), "no getting-started region in \(#filePath)")
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let block = try XCTUnwrap(Self.swiftBlock(in: text), "no ```swift block in \(Self.article.path)")
        XCTAssertFalse(region.isEmpty)
        XCTAssertEqual(block, region, "GettingStarted.md's code and GettingStartedTests.gettingStarted differ: copy one to the other")
    }

    /// The lines between the markers (`// BEGIN name`, `// END name`), with the indentation of the first taken off each.
    static func region(of source: String, named name: String = "getting-started") -> [String]? {
        let lines = source.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// BEGIN " + name }),
              let end = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// END " + name }), begin < end else { return nil }
        let body = lines[(begin + 1)..<end]
        let indent = body.first.map { $0.prefix { $0 == " " }.count } ?? 0
        return body.map { $0.count >= indent ? String($0.dropFirst(indent)) : $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The lines of the only ```swift block (nil when there is none, or more than one).
    static func swiftBlock(in text: String) -> [String]? {
        let lines = text.components(separatedBy: "\n")
        let opens = lines.indices.filter { lines[$0] == "```swift" }
        guard opens.count == 1, let open = opens.first,
              let close = lines[(open + 1)...].firstIndex(of: "```") else { return nil }
        return Array(lines[(open + 1)..<close])
    }
}
