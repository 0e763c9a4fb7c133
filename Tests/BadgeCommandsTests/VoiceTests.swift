import RunFixtures
import Foundation
import XCTest

/// Issue #26 (U): the command line as a runner reads it. Each case the issue lists is a test here,
/// through the built binary: one voice, one set of defaults, arguments like the best CLIs, the report.
final class VoiceTests: XCTestCase {
    /// An empty folder: a history with no runs (whatif's).
    func emptyFolder() throws -> TemporaryFolder { try TemporaryFolder() }

    // MARK: - One voice

    func testCountsHaveTheirPlural() throws {
        let folder = try TemporaryFolder()
        try folder.write("a.json", #"{ "start": "2024-05-01T07:00:00Z", "distance_m": 5200, "duration_s": 1800 }"#)
        let one = try CLI.run(["evaluate", folder.path, "--rules", "rules/checkpoints", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertNotNil(one.stdout.range(of: #"^1 run, \d+ awards\n"#, options: .regularExpression), one.stdout)
        XCTAssertFalse(one.stdout.contains("1 runs"), one.stdout)
    }

    func testStartBadgeSaysNoPassedAtZeroAndEveryAwardHasADetail() throws {
        let output = try CLI.run(["evaluate", "runs/", "--no-cache", "--tz", "UTC", "--wide"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertFalse(output.stdout.contains("passed 0 m at 0:00"), output.stdout)
        let laceUp = try XCTUnwrap(output.stdout.split(separator: "\n").first { $0.hasPrefix("Lace Up ") && $0.contains(" earned ") })
        XCTAssertTrue(laceUp.hasSuffix("3.23 km at 6:27/km"), String(laceUp))
        let nonStop = try XCTUnwrap(output.stdout.split(separator: "\n").first { $0.hasPrefix("Non-Stop Ten ") })
        XCTAssertTrue(nonStop.hasSuffix("10.48 km without a stop of 10 s or longer"), String(nonStop))
        // JSON: no award of the shipped packs has an empty detail.
        let json = try CLI.run(["evaluate", "runs/", "--no-cache", "--tz", "UTC", "--format", "json"])
        let awards = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["awards"] as? [[String: Any]])
        XCTAssertFalse(awards.isEmpty)
        for award in awards { XCTAssertFalse((award["detail"] as? String ?? "").isEmpty, "\(award)") }
    }

    /// The silver pace reads the same in evaluate, explain and the report: "5:40/km or faster", the
    /// whole second at least 0.1 s below the pace the rule compares against (strictly).
    func testATiersPaceIsWrittenOneWayEverywhere() throws {
        let evaluate = try CLI.run(["evaluate", "runs/", "--no-cache", "--tz", "UTC"])
        let row = try XCTUnwrap(evaluate.stdout.split(separator: "\n").first { $0.hasPrefix("Fifteen K ") && $0.contains("or faster") })
        XCTAssertFalse(evaluate.stdout.contains("< "), evaluate.stdout)
        let silver = try XCTUnwrap(row.split(separator: " ").first { $0.hasSuffix("/km") }).description
        let explain = try CLI.run(["explain", "Fifteen K", "runs/", "--no-cache", "--tz", "UTC"])
        XCTAssertTrue(explain.stdout.contains("for silver: a run of 15.01 km or more at \(silver) or faster"), explain.stdout)
        let folder = try TemporaryFolder()
        let report = try CLI.run(["report", "runs/", "--no-cache", "--tz", "UTC", "-o", folder.path + "/r.html"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOfFile: folder.path + "/r.html", encoding: .utf8)
        XCTAssertTrue(html.contains("Silver: run more than 15 km at \(silver) or faster"), silver)
    }

    func testExplainNeverSaysEarnedForATargetNotEarned() throws {
        let output = try CLI.run(["explain", "Thirty K", "runs/", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("Not earned yet."), output.stdout)
        XCTAssertFalse(output.stdout.contains("earned: a run"), output.stdout)
        XCTAssertTrue(output.stdout.contains("to earn it: a run of 30.01 km or more"), output.stdout)
    }

    func testTheShortLastSplitSaysWhatItIs() throws {
        let output = try CLI.run(["summarize", "runs/2026-08-01-first-run.gpx", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let splits = try XCTUnwrap(output.stdout.split(separator: "\n").first { $0.hasPrefix("  splits/km") })
        XCTAssertTrue(splits.range(of: #"^  splits/km  \d+:\d\d \d+:\d\d \d+:\d\d, last \d+ m at \d+:\d\d/km$"#, options: .regularExpression) != nil,
                      String(splits))
    }

    func testNotesSayWhatToDoInARunnersWords() throws {
        let output = try CLI.run(["evaluate", "runs/", "--no-cache", "--tz", "UTC"])
        XCTAssertFalse(output.stdout.contains("is nil in every run"), output.stdout)
        XCTAssertTrue(output.stdout.contains("note (habits): zone 2 needs your heart-rate zones: give your profile with --athlete FILE"), output.stdout)
    }

    /// Tables fit the width (`COLUMNS`): columns that can go go, the detail wraps; `--wide` shows all.
    func testTablesFitTheTerminalAndWideShowsEverything() throws {
        let narrow = try CLI.run(["evaluate", "runs/", "--no-cache", "--tz", "UTC"], environment: ["COLUMNS": "100"])
        XCTAssertEqual(narrow.status, 0, narrow.stderr)
        for line in narrow.stdout.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 100, String(line)) }
        XCTAssertTrue(narrow.stdout.contains("Non-Stop Ten"), narrow.stdout)
        let wide = try CLI.run(["evaluate", "runs/", "--no-cache", "--tz", "UTC", "--wide"], environment: ["COLUMNS": "100"])
        XCTAssertTrue(wide.stdout.split(separator: "\n").contains { $0.count > 100 }, "--wide keeps every column")
        XCTAssertTrue(wide.stdout.contains("PACK"), wide.stdout)
        XCTAssertFalse(narrow.stdout.contains("  PACK  "), narrow.stdout)

        let empty = try emptyFolder()
        let whatif = try CLI.run(["whatif", empty.path, "--distance", "16km", "--time", "1:36:00", "--tz", "UTC", "--no-cache"],
                                 environment: ["COLUMNS": "80"])
        XCTAssertEqual(whatif.status, 0, whatif.stderr)
        XCTAssertTrue(whatif.stdout.contains("It would earn"), whatif.stdout)
        for line in whatif.stdout.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    // MARK: - One set of defaults

    /// Installed, from another folder: summarize finds the installed catalogue (checkpoints listed) and
    /// every "using" notice is printed once.
    func testInstalledSummarizeFindsTheCatalogueAndEachNoticeIsPrintedOnce() throws {
        let prefix = try TemporaryFolder()
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/bin/bash")
        install.arguments = [CLI.repository.appendingPathComponent("scripts/install").path, prefix.path]
        install.currentDirectoryURL = CLI.repository
        install.environment = ProcessInfo.processInfo.environment.merging(["BADGECTL_BINARY": CLI.binary.path]) { $1 }
        install.standardOutput = FileHandle.nullDevice
        try install.run()
        install.waitUntilExit()
        XCTAssertEqual(install.terminationStatus, 0)
        let binary = prefix.url.appendingPathComponent("bin/badgectl")
        let home = try TemporaryFolder()
        try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/2026-08-01-first-run.gpx"),
                                         to: home.url.appendingPathComponent("first.gpx"))
        func run(_ arguments: [String]) throws -> CLI.Output {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            process.currentDirectoryURL = home.url
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return CLI.Output(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
        }
        let summary = try run(["summarize", "first.gpx", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(summary.status, 0, summary.stderr)
        XCTAssertTrue(summary.stdout.contains("  passed     Three K (3.00 km) after "), summary.stdout)
        XCTAssertEqual(summary.stderr.components(separatedBy: "badgectl: using ").count - 1, 1, summary.stderr)
        let evaluate = try run(["evaluate", ".", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(evaluate.status, 0, evaluate.stderr)
        XCTAssertEqual(evaluate.stderr.components(separatedBy: "/badges.json (no ./badges.json here").count - 1, 1, evaluate.stderr)
        XCTAssertEqual(evaluate.stderr.components(separatedBy: "/rules (no ./rules here").count - 1, 1, evaluate.stderr)
        let tested = try run(["test"])
        XCTAssertEqual(tested.status, 0, tested.stderr)
        XCTAssertTrue(tested.stderr.contains("/rules (no ./rules here"), tested.stderr)
    }

    // MARK: - Arguments

    func testUsageErrorsShowTheSubcommandsUsage() throws {
        let empty = try emptyFolder()
        let noTime = try CLI.run(["whatif", empty.path, "--distance", "10km"])
        XCTAssertEqual(noTime.status, 64)
        XCTAssertTrue(noTime.stderr.contains("Usage: badgectl whatif <dir> --distance <distance> (--time <time> | --pace <pace>)"), noTime.stderr)
        XCTAssertFalse(noTime.stderr.contains("badgectl <subcommand>"), noTime.stderr)
        let zone = try CLI.run(["whatif", empty.path, "--distance", "10km", "--time", "50:00", "--tz", "Europe/Pari"])
        XCTAssertEqual(zone.status, 64)
        XCTAssertTrue(zone.stderr.contains("unknown time zone 'Europe/Pari'"), zone.stderr)
        XCTAssertTrue(zone.stderr.contains("See 'badgectl whatif --help'"), zone.stderr)
        let evaluateZone = try CLI.run(["evaluate", empty.path, "--tz", "Europe/Pari"])
        XCTAssertEqual(evaluateZone.status, 64)
        XCTAssertTrue(evaluateZone.stderr.contains("Usage: badgectl evaluate "), evaluateZone.stderr)
    }

    func testDidYouMeanForCommandsOptionsAndBadges() throws {
        let command = try CLI.run(["evalute", "."])
        XCTAssertEqual(command.status, 64)
        XCTAssertTrue(command.stderr.contains("unknown command 'evalute'; did you mean 'evaluate'?"), command.stderr)
        let nested = try CLI.run(["new", "pak", "mine"])
        XCTAssertEqual(nested.status, 64)
        XCTAssertTrue(nested.stderr.contains("unknown command 'pak' for 'badgectl new'; did you mean 'pack'?"), nested.stderr)
        let option = try CLI.run(["evaluate", "runs/", "--sprot", "all"])
        XCTAssertEqual(option.status, 64)
        XCTAssertTrue(option.stderr.contains("Did you mean '--sport'?"), option.stderr)
        let badge = try CLI.run(["explain", "Ten L", "runs/", "--no-cache"])
        XCTAssertEqual(badge.status, 64, "an unknown badge is a usage error")
        XCTAssertTrue(badge.stderr.contains("unknown badge 'Ten L'; did you mean 'ten-k'?"), badge.stderr)
        XCTAssertTrue(badge.stderr.contains("Usage: badgectl explain "), badge.stderr)
    }

    func testEveryHelpHasExamplesAndTheExitCodes() throws {
        let top = try CLI.run(["--help"])
        XCTAssertTrue(top.stdout.contains("64 for a usage error"), top.stdout)
        XCTAssertGreaterThan(CLI.everyCommand.count, 14)
        for command in CLI.everyCommand {
            let help = try CLI.run(command + ["--help"])
            XCTAssertEqual(help.status, 0, command.joined(separator: " "))
            XCTAssertTrue(help.stdout.contains("Examples:\n  badgectl \(command[0])") || help.stdout.contains("Examples:\n  badgectl evaluate"),
                          "\(command): \(help.stdout)")
            XCTAssertTrue(help.stdout.contains("64"), "\(command): exit codes")
        }
        let test = try CLI.run(["test", "--help"])
        XCTAssertFalse(test.stdout.contains("for unusable arguments"), test.stdout)
        let generate = try CLI.run(["generate", "--help"])
        XCTAssertFalse(generate.stdout.contains("--sample"), generate.stdout)
    }

    func testOptionsOnlyWhereTheyAct() throws {
        let worker = try CLI.run(["worker", "--help"]).stdout
        XCTAssertFalse(worker.contains("--theme"), worker)
        XCTAssertTrue(worker.contains("--as-of"), "the worker selects each athlete's runs up to --as-of")
        let add = try CLI.run(["add", "--help"]).stdout
        XCTAssertFalse(add.contains("--theme"), add)
        XCTAssertFalse(add.contains("--as-of"), add)
        XCTAssertTrue(add.contains("--keep-duplicates"), "add selects the new runs as evaluate does")
        XCTAssertTrue(try CLI.run(["evaluate", "--help"]).stdout.contains("--theme"))
    }

    func testDistancesAreReadAsRunnersWriteThem() throws {
        let empty = try emptyFolder()
        for (text, meters) in [("10k", 10_000.0), ("10 km", 10_000), ("5mi", 8_046.72), ("half", 21_097.5), ("marathon", 42_195), ("800m", 800)] {
            let output = try CLI.run(["whatif", empty.path, "--distance", text, "--pace", "6:00", "--tz", "UTC", "--format", "json", "--no-cache"])
            XCTAssertEqual(output.status, 0, "\(text): \(output.stderr)")
            let run = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])?["run"] as? [String: Any])
            XCTAssertEqual(try XCTUnwrap(run["distance_m"] as? Double), meters, accuracy: meters * 0.001, text)
        }
        let bad = try CLI.run(["whatif", empty.path, "--distance", "far", "--pace", "6:00"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("10k"), bad.stderr)
    }

    func testAWhatIfMissingABadgeByTheStrictRuleSaysSo() throws {
        let empty = try emptyFolder()
        let at = try CLI.run(["whatif", empty.path, "--distance", "10km", "--time", "50:00", "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(at.status, 0, at.stderr)
        XCTAssertTrue(at.stdout.contains("Not earned: Ten K: a badge needs a run strictly longer than its distance (10.00 km): 10.01 km earns it."),
                      at.stdout)
        let over = try CLI.run(["whatif", empty.path, "--distance", "10.01km", "--time", "50:03", "--tz", "UTC", "--no-cache"])
        XCTAssertFalse(over.stdout.contains("Not earned: Ten K"), over.stdout)
        XCTAssertTrue(over.stdout.contains("Ten K "), over.stdout)
        // After a history that holds Ten K, a run of exactly 10 km misses its tiers by the same rule.
        let held = try CLI.run(["whatif", "runs/", "--distance", "10km", "--time", "40:00", "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(held.status, 0, held.stderr)
        XCTAssertTrue(held.stdout.contains("Not earned: Ten K: a badge needs a run strictly longer than its distance (10.00 km): 10.01 km counts for its tiers."),
                      held.stdout)
        let summary = try CLI.run(["summarize", "runs/2026-08-01-first-run.gpx", "--no-cache", "--tz", "UTC"])
        XCTAssertTrue(summary.stdout.contains("  passed     Lace Up at the start ("), summary.stdout)
        XCTAssertFalse(summary.stdout.contains("(0 m) after 0:00"), summary.stdout)
    }

    // MARK: - The report

    func testTheReportIsGeneratedNowWithTheHistorysSpanApart() throws {
        let folder = try TemporaryFolder()
        let fixed = try CLI.run(["report", "runs/", "--no-cache", "--tz", "UTC", "-o", folder.path + "/a.html"],
                                environment: ["SOURCE_DATE_EPOCH": "1893456000"])
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        let html = try String(contentsOfFile: folder.path + "/a.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<p class=\"generated\">Generated 2030-01-01 00:00 UTC</p>"), "the injected clock")
        XCTAssertTrue(html.contains("<p class=\"span\">Runs from 2026-08-01 to 2026-10-18</p>"))
        _ = try CLI.run(["report", "runs/", "--no-cache", "--tz", "UTC", "-o", folder.path + "/b.html"],
                        environment: ["SOURCE_DATE_EPOCH": ""])
        let now = try String(contentsOfFile: folder.path + "/b.html", encoding: .utf8)
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        XCTAssertTrue(now.contains("<p class=\"generated\">Generated \(year)-"), "now, not the last run's time")
    }

    /// Every medallion of a wall reads differently, over every shipped catalogue and theme.
    func testEveryMedallionHasItsOwnLabel() throws {
        let folder = try TemporaryFolder()
        for theme in [nil, "moon", "trail"] {
            let page = folder.path + "/\(theme ?? "plain").html"
            let output = try CLI.run(["report", "runs/", "--no-cache", "--tz", "UTC", "-o", page] + (theme.map { ["--theme", $0] } ?? []))
            XCTAssertEqual(output.status, 0, output.stderr)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            let medallions = html.components(separatedBy: "<svg class=\"medallion\"").dropFirst()
            XCTAssertGreaterThan(medallions.count, 40)
            let labels = medallions.map { svg -> String in
                let body = svg.components(separatedBy: "</svg>")[0]
                return body.components(separatedBy: "<text").dropFirst().map { $0.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" } }
                    .joined(separator: " ")
            }
            let repeated = Dictionary(grouping: labels, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            XCTAssertEqual(repeated, [], "theme \(theme ?? "none")")
            XCTAssertTrue(labels.contains("E100") && labels.contains("E1K"), "\(labels)")
        }
    }
}
