import RunFixtures
import BadgeReport
import Foundation
import RunAnalysis
import RunFiles
import XCTest

/// Writes sample reports to disk: the one `scripts/browser-test.sh` renders in Chromium, and a
/// large one to keep the file size per run in check.
///
///     BADGECTL_REPORT_OUT=/tmp/report.html swift test --filter SampleReportTests/testWriteSampleReport
///     BADGECTL_REPORT_RUNS=1000 BADGECTL_REPORT_MANY_OUT=/tmp/many.html \
///         swift test -c release --filter SampleReportTests/testManyRunsStayCompact
final class SampleReportTests: XCTestCase {
    /// The path `variable` names, else `fallback`.html in `scratch` (removed with it).
    func outputPath(_ variable: String, _ fallback: String, in scratch: TemporaryFolder) -> String {
        if let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty { return path }
        return scratch.path + "/\(fallback).html"
    }

    func testWriteSampleReport() throws {
        let scratch = try TemporaryFolder()
        defer { withExtendedLifetime(scratch) {} }
        let path = outputPath("BADGECTL_REPORT_OUT", "badgectl-sample-report", in: scratch)
        let html = try HTMLReport.render(SyntheticRuns.sampleInput())
        XCTAssertEqual(try HTMLReport.write(SyntheticRuns.sampleInput(), to: path), html.utf8.count)
        XCTAssertThrowsError(try HTMLReport.write(SyntheticRuns.sampleInput(), to: "/nonexistent-dir/r.html")) { error in
            XCTAssertTrue("\(error)".hasPrefix("/nonexistent-dir/r.html: cannot write the report"), "\(error)")
        }
        let back = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(back, html)
        XCTAssertEqual(back.components(separatedBy: "<article class=\"badge ").count - 1, SyntheticRuns.catalogue.count)
        XCTAssertEqual(back.components(separatedBy: "<article class=\"run\"").count - 1, 4)
        XCTAssertEqual(back.components(separatedBy: "<svg class=\"route\"").count - 1, 3)
        XCTAssertGreaterThan(back.components(separatedBy: "<g class=\"checkpoint\"").count - 1, 4)
        print("sample report: \(path) (\(html.utf8.count) bytes)")
    }

    /// Many runs of 3–16 km around parks of different sizes: the report must stay small per run.
    /// The bound is on bytes, not time (speed is for benchmarks); the time is printed.
    func testManyRunsStayCompact() throws {
        let count = Int(ProcessInfo.processInfo.environment["BADGECTL_REPORT_RUNS"] ?? "") ?? 60
        let clock = ContinuousClock()
        var points = 0
        var runs: [RunSummary] = []
        let targets = SyntheticRuns.catalogue.filter { $0.meters > 0 }.map {
            RunAnalyzer.CheckpointTarget(badge: $0.id, name: $0.name, distanceMeters: $0.meters)
        }
        var routeTime = Duration.zero
        var summaryTime = Duration.zero
        for i in 0..<count {
            let distance = 3000 + Double((i * 7919) % 13_000)
            let scale = 0.6 + Double(i % 5) * 0.3
            let base = 2.6 + Double(i % 7) * 0.15
            let track = SyntheticRuns.parkRun(
                distanceMeters: distance, startEpoch: 1_600_000_000 + Double(i) * 86_400, seed: UInt64(i + 100),
                scale: scale, stopAtMeters: i % 3 == 0 ? distance / 2 : nil, name: "Run \(i + 1)"
            ) { s in base + 0.5 * sin(s / 400 + Double(i)) }
            points += track.count
            var summary: RunSummary = RunSummary(id: "", format: "gpx", distanceMeters: 0)
            summaryTime += clock.measure { summary = RunAnalyzer().summarize(track, id: "runs/\(i).gpx") }
            let profile = RunAnalyzer.profile(of: track)
            summary.splitsKilometre = SyntheticRuns.splits(profile)
            summary.checkpoints = targets.compactMap { SyntheticRuns.checkpoint($0, profile: profile, track: track) }
            routeTime += clock.measure {
                summary.route = RouteTrace.make(track: track, profile: RunAnalyzer.profile(of: track))
            }
            runs.append(summary)
        }
        let input = ReportInput(title: "\(count) runs", generatedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                badges: SyntheticRuns.sampleInput().badges, runs: runs)
        var html = ""
        let renderTime = try clock.measure { html = try HTMLReport.render(input) }
        let bytes = html.utf8.count
        let vertices = runs.reduce(0) { $0 + ($1.route?.count ?? 0) }
        XCTAssertEqual(html.components(separatedBy: "<article class=\"run\"").count - 1, count)
        XCTAssertLessThan(bytes / count, 12_000, "report should stay under 12 kB per run")
        XCTAssertLessThanOrEqual(runs.compactMap { $0.route?.count }.max() ?? 0, 800)
        let path = ProcessInfo.processInfo.environment["BADGECTL_REPORT_MANY_OUT"]
        if let path { try Data(html.utf8).write(to: URL(fileURLWithPath: path)) }
        print("""
            \(count) runs, \(points) points → \(vertices) route vertices (\(vertices / max(1, count)) per run); \
            report \(bytes) bytes (\(bytes / max(1, count)) per run); \
            summaries \(summaryTime), routes \(routeTime), render \(renderTime)\(path.map { "; written to " + $0 } ?? "")
            """)
    }
}
