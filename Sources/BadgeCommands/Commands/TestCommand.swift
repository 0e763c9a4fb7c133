import ArgumentParser
import BadgeRules
import Foundation

/// How `badgectl test` prints its results.
public enum TestOutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json, junit
}

/// `badgectl test [PATH...]`: runs rule packs' own tests, like `opa test`.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the tests of rule packs (rules/<pack>/*_test.lua and rules/<pack>/tests/*.lua).",
        discussion: """
            Each PATH is a pack folder (it holds pack.lua) or a folder of packs; the default is rules/. \
            Every failing test is shown with the test file's line of the failed expectation, what was \
            expected and what the rules gave. The last line of text output is `N passed, N failed` \
            (`, N skipped` when any). A test file or pack that does not load counts as one failed test.

            With --threshold N (implies --coverage), the run also fails when the coverage over every \
            pack is below N percent: covered (badge, tier) pairs plus rules run, over the declared pairs \
            plus the rules.

            For `test`: 0 when every test passed; 3 when a test failed, a test file, pack or catalogue \
            did not load, or coverage is below --threshold; 1 when there is nothing to test (no such \
            folder, no rules found); 64 for a usage error.

            Examples:
              badgectl test
              badgectl test rules/mine --run silver --coverage

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("Pack folders or folders of packs (default: rules).", valueName: "path"))
    var paths: [String] = []

    @Option(name: .customLong("run"), help: ArgumentHelp(
        "Run only tests whose name contains PATTERN, or matches it as a regular expression.",
        valueName: "pattern"))
    var pattern: String?

    @Option(name: .long, help: "Output format: text, json, or junit (JUnit XML for CI).")
    var format: TestOutputFormat = .text

    @Flag(name: .long, help: "List the badges and tiers no test awarded and the rules no test ran.")
    var coverage = false

    @Option(name: .long, help: ArgumentHelp(
        "Fail when coverage (every pack together) is below PERCENT (0-100); implies --coverage.", valueName: "percent"))
    var threshold: Double?

    @Flag(name: .shortAndLong, help: "Also list passing and skipped tests, and what tests printed.")
    var verbose = false

    @Option(name: .long, help: ArgumentHelp("Catalogue for tests that pass none (default: badges.json found upward from each pack).", valueName: "file"))
    var badges: String?

    @OptionGroup var limits: LimitOptions

    func run() throws {
        var options = RuleOptions()
        // No PATH: the packs as every command finds them (./rules, else the installed ones).
        do {
            options.rules = paths.isEmpty
                ? [try Installation.locate("rules", given: nil, flag: "a PATH argument (badgectl test PATH)", directory: true)] : paths
        } catch {
            Console.error(CommandError.prefix + "\(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        for path in options.rules {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                Console.error(CommandError.prefix + CommandError.noSuchFolder(path: path).description)
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        var tester = PackTester(limits: limits.limits, filter: pattern)
        if let badges {
            do {
                tester.catalogue = try Catalogue.load(path: badges)
            } catch {
                Console.error(CommandError.prefix + "\(error)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        if let threshold, !(0...100).contains(threshold) {
            throw ValidationError("--threshold must be a percentage from 0 to 100, got \(threshold)")
        }
        let coverage = self.coverage || threshold != nil
        let reports = try options.packDirectories().map { tester.run(packDirectory: $0) }
        let summary = TestSummary(reports: reports)
        switch format {
        case .text: print(TestCommand.text(reports, verbose: verbose, coverage: coverage))
        case .json: print(try JSONOutput.encode(TestSummary.JSON(summary: summary, coverage: coverage)))
        case .junit: print(JUnitReport.xml(reports))
        }
        if let threshold, summary.coveragePercent < threshold {
            Console.error(CommandError.prefix + String(format: "coverage %.1f%% is below the threshold %g%% (%d of %d badge/tier pairs and rules)",
                                                       summary.coveragePercent, threshold, summary.covered, summary.total))
            throw ExitCode(ExitStatus.testsFailed.rawValue)
        }
        if summary.failed > 0 { throw ExitCode(ExitStatus.testsFailed.rawValue) }
    }

    /// The text report: failures in full, then (with `coverage`) what no test covered, then the count line.
    static func text(_ reports: [PackTestReport], verbose: Bool, coverage: Bool) -> String {
        var out: [String] = []
        for report in reports {
            for result in report.results {
                let label = "\(report.pack): \(result.name)"
                switch result.outcome {
                case .passed:
                    if verbose { out.append("ok    \(label)") }
                case .skipped:
                    if verbose { out.append("skip  \(label)") }
                case .failed:
                    out.append("FAIL  \(label)  (\(result.line.map { "\(result.file):\($0)" } ?? result.file))")
                    for failure in result.failures {
                        out.append("  \(failure.place): \(failure.message)")
                        if let expected = failure.expected { out.append("    expected: \(indent(expected))") }
                        if let got = failure.got { out.append("    got:      \(indent(got))") }
                        if let traceback = failure.traceback { out.append("    " + traceback.replacingOccurrences(of: "\n", with: "\n    ")) }
                    }
                }
                if (verbose || result.outcome == .failed) && !result.output.isEmpty {
                    for line in result.output { out.append("    | \(line)") }
                }
            }
            if coverage, let c = report.coverage {
                let tests = report.results.filter { $0.name != "(load)" }.count
                out.append("coverage \(report.pack): \(Format.count(tests, "test")), "
                           + String(format: "%.1f%% (%d of %d badge/tier pairs and rules)", c.percent, c.covered, c.total))
                out.append(c.notAwarded.isEmpty ? "  every badge and tier awarded by some test"
                           : "  not awarded by any test: " + c.notAwarded.joined(separator: ", "))
                out.append(c.rulesNotRun.isEmpty ? "  every rule ran" : "  rules no test ran: " + c.rulesNotRun.joined(separator: ", "))
            }
        }
        out.append(TestSummary(reports: reports).line)
        return out.joined(separator: "\n")
    }

    static func indent(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\n              ")
    }
}

/// Counts over every pack.
struct TestSummary {
    var reports: [PackTestReport]
    var passed: Int { reports.reduce(0) { $0 + $1.passed } }
    var failed: Int { reports.reduce(0) { $0 + $1.failed } }
    var skipped: Int { reports.reduce(0) { $0 + $1.skipped } }

    /// Coverage over every pack: covered pairs and rules over all pairs and rules.
    var covered: Int { reports.reduce(0) { $0 + ($1.coverage?.covered ?? 0) } }
    var total: Int { reports.reduce(0) { $0 + ($1.coverage?.total ?? 0) } }
    var coveragePercent: Double { total == 0 ? 100 : 100 * Double(covered) / Double(total) }

    /// `N passed, N failed` (`, N skipped` when any).
    var line: String {
        "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "")
    }

    struct JSON: Encodable {
        var passed: Int
        var failed: Int
        var skipped: Int
        var packs: [PackTestReport]

        init(summary: TestSummary, coverage: Bool) {
            passed = summary.passed; failed = summary.failed; skipped = summary.skipped
            packs = summary.reports.map { report in
                var report = report
                if !coverage { report.coverage = nil }
                return report
            }
        }
    }
}
