import RunFixtures
import BadgeKit
import Foundation
import SyntheticRuns
import XCTest

/// `BadgeEngine.league` on a generated population whose answers are known by construction
/// (LeaguePopulation: everyone laps the places pack's park loop at an even pace).
final class LeagueTests: XCTestCase {
    func testLeagueGivesTheConstructedCrownsLegendClubsAndRarityAsValues() throws {
        let day0 = 20_513  // 2026-03-01, in days since 1970-01-01
        // ana and cai equal (ana's effort earlier), ben the most efforts in 90 days, eve more but 200 days old.
        let population = LeaguePopulation(athletes: [
            .init(name: "ana", paceSecondsPerKilometre: 300, runs: 2, laps: 1, firstDay: day0, team: "red", sex: "F", birthDate: "1990-05-01", seed: 1),
            .init(name: "ben", paceSecondsPerKilometre: 320, runs: 12, laps: 1, firstDay: day0, team: "red", sex: "M", birthDate: "1980-01-01", seed: 2),
            .init(name: "cai", paceSecondsPerKilometre: 300, runs: 1, laps: 1, firstDay: day0 + 5, team: "blue", sex: "M", seed: 1),
            .init(name: "dee", paceSecondsPerKilometre: 340, runs: 3, laps: 2, firstDay: day0, team: "blue", sex: "F", seed: 3),
            .init(name: "eve", paceSecondsPerKilometre: 360, runs: 13, laps: 1, firstDay: day0 - 200, seed: 4),
        ])
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path + "/population"
        _ = try population.write(to: folder)
        let engine = try BadgeEngine(packs: [BadgeEngineTests.root + "/rules/places"], catalogue: BadgeEngineTests.root + "/badges.json",
                                     zone: TimeZone(identifier: "UTC") ?? .current)
        let athletes = try population.athletes.map { athlete in
            LeagueAthlete(name: athlete.name, profile: LeagueProfile(sex: athlete.sex, birthDate: athlete.birthDate, team: athlete.team),
                          runs: try (0..<athlete.runs).flatMap { try engine.summaries(file: folder + "/" + LeaguePopulation.file(athlete, run: $0)) })
        }
        var options = LeagueOptions()
        options.minimumAthletes = 5
        options.categories = [.sex]
        options.goals = [try XCTUnwrap(.init("runs=10"))]
        let outcome = engine.league(athletes, options: options)
        XCTAssertEqual(outcome.failures, [])
        let lines = outcome.lines

        let ranks = lines.filter { $0.kind == "rank" && $0.category == nil }
        XCTAssertEqual(ranks.map(\.athlete), ["ana", "cai", "ben", "dee", "eve"])
        XCTAssertEqual(ranks.map(\.rank), [1, 2, 3, 4, 5])
        XCTAssertEqual(try XCTUnwrap(ranks.first?.elapsedSeconds), 0.889 * 300, accuracy: 3)
        XCTAssertEqual(lines.filter { $0.kind == "crown" && $0.category == nil }.map(\.athlete), ["ana"])
        XCTAssertEqual(lines.filter { $0.kind == "crown" && $0.category == "sex:M" }.map(\.athlete), ["cai"])
        let legend = try XCTUnwrap(lines.first { $0.kind == "legend" })
        XCTAssertEqual(legend.athlete, "ben")
        XCTAssertEqual(legend.efforts, 12)
        let clubs = lines.filter { $0.kind == "club" }
        XCTAssertEqual(clubs.map(\.team), ["blue", "red"])
        XCTAssertEqual(clubs.map(\.total), [4, 14])
        XCTAssertEqual(clubs.map(\.achieved), [false, true])
        let fountain = try XCTUnwrap(lines.first { $0.kind == "rarity" && $0.badge == "fountain" })
        XCTAssertEqual(fountain.holders, 5)
        XCTAssertEqual(fountain.athletes, 5)
        XCTAssertEqual(lines.first { $0.kind == "rarity" && $0.badge == "park-corner-regular" }?.share, 0.4)
        XCTAssertEqual(Set(lines.map(\.id)).count, lines.count, "one id per line")

        // The same athletes in another order give the same lines; a repeated name is named and left out.
        XCTAssertEqual(engine.league(athletes.reversed(), options: options).lines, lines)
        let twice = engine.league(athletes + [athletes[0]], options: options)
        XCTAssertEqual(twice.lines, lines)
        XCTAssertEqual(twice.failures.count, 1)
    }
}
