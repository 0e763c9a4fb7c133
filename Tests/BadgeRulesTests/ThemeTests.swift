import RunFixtures
import BadgeRules
import Foundation
import RunFiles
import XCTest

/// The themes shipped in `rules/checkpoints/pack.lua`: each covers every badge of `badges.json`, with
/// its own name, information and image, and a theme declares nothing but those three (ids are the catalogue's).
final class ThemeTests: XCTestCase {
    func testShippedThemesCoverTheCatalogue() throws {
        let catalogue = try Catalogue.load(path: CheckpointsPackTests.repoRoot.appendingPathComponent("badges.json").path)
        let pack = try RulePack.load(directory: CheckpointsPackTests.packPath)
        XCTAssertEqual(pack.themes.keys.sorted(), ["moon", "trail"])
        for (name, badges) in pack.themes {
            XCTAssertEqual(badges.map(\.id), catalogue.badges.map(\.id), "theme \(name): one entry per catalogue badge, in order")
            for badge in badges {
                XCTAssertFalse(badge.information.isEmpty, "\(name)/\(badge.id)")
                XCTAssertTrue(badge.image?.hasPrefix(name + "-") ?? false, "\(name)/\(badge.id)")
                XCTAssertNil(badge.distanceMeters, "\(name)/\(badge.id): distances belong to the catalogue")
                XCTAssertNotEqual(badge.name, catalogue.badge(id: badge.id)?.name, "\(name)/\(badge.id)")
            }
            XCTAssertEqual(Set(badges.map(\.name)).count, badges.count, "theme \(name): names are distinct")
        }
    }

    /// Themes change no award: the pack evaluates the same with its themes removed.
    func testThemesDoNotChangeAwards() throws {
        let catalogue = try Catalogue.load(path: CheckpointsPackTests.repoRoot.appendingPathComponent("badges.json").path)
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let copy = temporary.url.appendingPathComponent("checkpoints")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CheckpointsPackTests.packPath + "/distance.lua", toPath: copy.appendingPathComponent("distance.lua").path)
        try #"return { name = "checkpoints", version = "1.0.0" }"#.write(to: copy.appendingPathComponent("pack.lua"), atomically: true, encoding: .utf8)
        func run(_ id: String, day: Int, meters: Double, seconds: Double) -> RunSummary {
            let epoch = Double(Timestamps.daysFromCivil(year: 2025, month: 1, day: day) * 86_400)
            return RunSummary(id: id, start: Timestamps.iso8601(epoch), startEpochSeconds: epoch, format: "json",
                              distanceMeters: meters, elapsedSeconds: seconds)
        }
        let runs = [run("a", day: 1, meters: 4000, seconds: 1440), run("b", day: 2, meters: 6000, seconds: 2100),
                    run("c", day: 3, meters: 11000, seconds: 3300)]
        let themed = RuleEngine(packDirectories: [CheckpointsPackTests.packPath], catalogue: catalogue).evaluate(runs: runs)
        let bare = RuleEngine(packDirectories: [copy.path], catalogue: catalogue).evaluate(runs: runs)
        XCTAssertEqual(themed.failures, [])
        // The same awards and evidence; only the provenance differs (the copy's files, so its fingerprint).
        XCTAssertEqual(themed.awards.map(\.decision), bare.awards.map(\.decision))
        XCTAssertEqual(themed.awards.map(\.evidence), bare.awards.map(\.evidence))
        XCTAssertNotEqual(themed.awards.first?.packFingerprint, bare.awards.first?.packFingerprint)
        XCTAssertEqual(themed.statuses, bare.statuses)
        XCTAssertEqual(themed.awards.first { $0.badge == "five-k" }?.run, "b")
    }
}
