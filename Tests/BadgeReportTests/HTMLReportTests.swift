import Activities
import Foundation
import XCTest

@testable import BadgeReport

final class HTMLReportTests: XCTestCase {
    // MARK: helpers

    func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The colour bins of the route polylines (`class="bN"`), in document order.
    func bins(_ html: String) -> [Int] {
        html.components(separatedBy: "<polyline class=\"b").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    /// The colours of the route polylines, in document order.
    func strokes(_ html: String) -> [(r: Int, g: Int, b: Int)] {
        bins(html).compactMap { bin in
            Int(PaceScale.colour(bin: bin).dropFirst(), radix: 16).map { ($0 >> 16, ($0 >> 8) & 0xff, $0 & 0xff) }
        }
    }

    func render(_ runs: [RunSummary], badges: [ReportBadge] = []) throws -> String {
        try HTMLReport.render(ReportInput(title: "t", generatedAt: Date(timeIntervalSince1970: 1_700_000_000), badges: badges, runs: runs))
    }

    func assertNoNonFiniteNumbers(_ html: String, file: StaticString = #filePath, line: UInt = #line) {
        for bad in ["nan", "NaN", "inf", "Inf"] {
            let pattern = try? NSRegularExpression(pattern: "[^A-Za-z]\(bad)[^A-Za-z]")
            let hits = pattern?.numberOfMatches(in: html, range: NSRange(html.startIndex..., in: html)) ?? 1
            XCTAssertEqual(hits, 0, "found \(bad) in the HTML", file: file, line: line)
        }
    }

    // MARK: routes

    func testSlowFirstHalfIsRedAndFastSecondHalfIsGreen() throws {
        let track = SyntheticRuns.parkRun(distanceMeters: 4000, startEpoch: 1_700_000_000, seed: 11) { s in s < 2000 ? 2.5 : 4.5 }
        let html = try render([SyntheticRuns.summary(of: track, id: "split.gpx")])
        let colours = strokes(html)
        XCTAssertGreaterThan(colours.count, 1)
        let first = try XCTUnwrap(colours.first), last = try XCTUnwrap(colours.last)
        XCTAssertGreaterThan(first.r, first.g + 100, "first segment should be red, got \(first)")
        XCTAssertGreaterThan(last.g, last.r + 60, "last segment should be green, got \(last)")
        XCTAssertLessThanOrEqual(bins(html).first ?? 99, 2)
        XCTAssertTrue(bins(html).contains(0))
        XCTAssertGreaterThanOrEqual(bins(html).last ?? 0, PaceScale.binCount - 4)
        XCTAssertTrue(bins(html).contains(PaceScale.binCount - 1))
        // Each colour in the stylesheet.
        XCTAssertTrue(html.contains(".route .b0{stroke:#dc2626}"))
        assertNoNonFiniteNumbers(html)
    }

    func testConstantSpeedIsOneColour() throws {
        // No GPS noise, steady 3.2 m/s: every segment in the middle bin, one colour, no division by zero.
        let track = SyntheticRuns.parkRun(distanceMeters: 3000, startEpoch: 1_700_000_000, seed: 12, gpsSigmaMeters: 0) { _ in 3.2 }
        let html = try render([SyntheticRuns.summary(of: track, id: "steady.gpx")])
        let colours = strokes(html)
        XCTAssertGreaterThanOrEqual(colours.count, 1)
        XCTAssertEqual(Set(colours.map { "\($0.r),\($0.g),\($0.b)" }).count, 1)
        XCTAssertEqual(bins(html), [Int](repeating: PaceScale.middleBin, count: colours.count))
        assertNoNonFiniteNumbers(html)
    }

    func testRepeatedTimestampsRenderWithoutNaN() throws {
        var track = SyntheticRuns.parkRun(distanceMeters: 2500, startEpoch: 1_700_000_000, seed: 13) { s in 3 + sin(s / 300) }
        // Every second timestamp repeats the one before (dt = 0).
        for i in stride(from: 1, to: track.count, by: 2) { track.times[i] = track.times[i - 1] }
        let summary = SyntheticRuns.summary(of: track, id: "dt0.gpx")
        let route = try XCTUnwrap(summary.route)
        XCTAssertTrue(route.speedsMetersPerSecond.allSatisfy(\.isFinite))
        let html = try render([summary])
        assertNoNonFiniteNumbers(html)
        XCTAssertGreaterThan(strokes(html).count, 1)
    }

    func testOutliersAreClampedByPercentiles() {
        var speeds = (0..<200).map { 2.0 + Double($0) / 100 }  // 2…4 m/s
        speeds.append(40)  // a GPS spike
        speeds.append(0)  // standing at a crossing
        let scale = PaceScale(speeds: speeds)
        XCTAssertNotNil(scale)
        XCTAssertLessThan(scale?.fastMetersPerSecond ?? 99, 4.1)
        XCTAssertGreaterThan(scale?.slowMetersPerSecond ?? 0, 1.9)
        XCTAssertEqual(scale?.bin(40), PaceScale.binCount - 1)
        XCTAssertEqual(scale?.bin(0), 0)
        XCTAssertEqual(scale?.bin(3), PaceScale.middleBin)
        XCTAssertEqual(PaceScale(speeds: [3, 3, 3])?.isConstant, true)
        XCTAssertEqual(PaceScale(speeds: [3, 3, 3])?.bin(3), PaceScale.middleBin)
        XCTAssertNil(PaceScale(speeds: [.nan, .infinity]))
        XCTAssertEqual(PaceScale.colour(bin: 0), "#dc2626")
        XCTAssertEqual(PaceScale.colour(bin: PaceScale.middleBin), "#eac814")
        XCTAssertEqual(PaceScale.colour(bin: PaceScale.binCount - 1), "#16a34a")
    }

    func testCheckpointMarkersSplitsAndHeadline() throws {
        let targets = [
            RunAnalyzer.CheckpointTarget(badge: "1k", name: "One K", distanceMeters: 1000),
            RunAnalyzer.CheckpointTarget(badge: "3k", name: "Three K", distanceMeters: 3000),
            RunAnalyzer.CheckpointTarget(badge: "50k", name: "Fifty K", distanceMeters: 50_000),
        ]
        let track = SyntheticRuns.parkRun(distanceMeters: 3500, startEpoch: 1_700_000_000, seed: 14) { _ in 3 }
        let summary = SyntheticRuns.summary(of: track, id: "cp.gpx", checkpointTargets: targets)
        XCTAssertEqual(summary.checkpoints.count, 2)
        let html = try render([summary])
        XCTAssertEqual(count("<g class=\"checkpoint\"", in: html), 2)
        XCTAssertTrue(html.contains("data-badge=\"1k\""))
        XCTAssertTrue(html.contains(">Three K</text>"))
        // The marker lies inside the route's viewBox.
        let svg = try XCTUnwrap(html.components(separatedBy: "<svg class=\"route\"").dropFirst().first)
        let viewBox = try XCTUnwrap(svg.components(separatedBy: "viewBox=\"0 0 ").dropFirst().first?.prefix { $0 != "\"" })
        let size = viewBox.split(separator: " ").compactMap { Int($0) }
        XCTAssertEqual(size.count, 2)
        let circle = try XCTUnwrap(svg.components(separatedBy: "data-badge=\"1k\"").dropFirst().first)
        let cx = Int(circle.components(separatedBy: "cx=\"").dropFirst().first?.prefix { $0 != "\"" } ?? "") ?? -1
        let cy = Int(circle.components(separatedBy: "cy=\"").dropFirst().first?.prefix { $0 != "\"" } ?? "") ?? -1
        XCTAssertTrue((0...size[0]).contains(cx) && (0...size[1]).contains(cy), "marker at \(cx),\(cy) outside \(size)")
        // 3 whole kilometres and a partial one.
        XCTAssertEqual(count("<rect class=\"split b", in: html), 4)
        XCTAssertEqual(count(" partial\" data-index=\"4\"", in: html), 1)
        XCTAssertEqual(summary.distanceMeters, 3600, accuracy: 150, "3.5 km plus a little GPS wobble")
        let distance = Format.fixed(summary.distanceMeters / 1000, 2)
        XCTAssertTrue(html.contains("<dt>Distance</dt><dd>\(distance) km</dd>"))
        XCTAssertTrue(html.contains("<dt>Pace</dt><dd>\(Format.pace(summary.paceSecondsPerKilometre))</dd>"))
        XCTAssertTrue(html.contains("<dt>Elapsed</dt><dd>\(Format.duration(summary.elapsedSeconds))</dd>"))
        XCTAssertTrue(html.contains("<dt>Heart rate</dt>"))
        XCTAssertTrue(html.contains("<dt>Elevation</dt><dd>+"))
    }

    func testIndoorRunHasNoRouteButSplits() throws {
        var run = RunSummary(id: "tm.fit", format: "fit", distanceMeters: 2000, elapsedSeconds: 600)
        run.splitsKilometre = [
            Split(index: 1, distanceMeters: 1000, elapsedSeconds: 300, cumulativeSeconds: 300, partial: false),
            Split(index: 2, distanceMeters: 1000, elapsedSeconds: 300, cumulativeSeconds: 600, partial: false),
        ]
        let html = try render([run])
        XCTAssertFalse(html.contains("<svg class=\"route\""))
        XCTAssertTrue(html.contains("No route recorded."))
        XCTAssertEqual(count("<rect class=\"split b\(PaceScale.middleBin)\"", in: html), 2, "equal splits: middle colour")
        assertNoNonFiniteNumbers(html)
    }

    // MARK: badge wall

    func wallBadges() -> [ReportBadge] {
        let run = ReportAward(runId: "a.gpx", date: "2024-05-01", paceSecondsPerKilometre: 330)
        return [
            ReportBadge(id: "gold", name: "Gold One", distanceMeters: 1000, earned: run, silver: run, gold: ReportAward(runId: "b.gpx", date: "2024-06-02")),
            ReportBadge(id: "silver", name: "Silver One", distanceMeters: 2000, earned: run, silver: run, goldPaceSecondsPerKilometre: 300),
            ReportBadge(id: "plain", name: "Plain", distanceMeters: 5000, earned: run, best: run,
                        silverPaceSecondsPerKilometre: 310, goldPaceSecondsPerKilometre: 295),
            ReportBadge(id: "todo", name: "Far Away", distanceMeters: 10000),
            ReportBadge(id: "custom", name: "Streak", hint: "Run three days in a row"),
        ]
    }

    func testBadgeWallCardsTiersAndPaceNeeded() throws {
        let html = try render([], badges: wallBadges())
        XCTAssertEqual(count("<article class=\"badge ", in: html), 5)
        XCTAssertEqual(count("<article class=\"badge earned\"", in: html), 3)
        XCTAssertEqual(count("<article class=\"badge unearned\"", in: html), 2)
        XCTAssertTrue(html.contains("data-badge-id=\"gold\" data-tier=\"gold\""))
        XCTAssertTrue(html.contains("data-badge-id=\"silver\" data-tier=\"silver\""))
        XCTAssertTrue(html.contains("data-badge-id=\"plain\" data-tier=\"earned\""))
        XCTAssertTrue(html.contains("data-badge-id=\"todo\" data-tier=\"none\""))
        XCTAssertEqual(count("class=\"mark gold got\"", in: html), 1)
        XCTAssertEqual(count("class=\"mark silver got\"", in: html), 2)
        XCTAssertTrue(html.contains(">Gold 2024-06-02</span>"))
        XCTAssertTrue(html.contains("Earned 2024-05-01"))
        XCTAssertTrue(html.contains("data-needed=\"gold\">Gold: run 2 km at 5:00 /km or faster"))
        XCTAssertTrue(html.contains("data-needed=\"silver\">Silver: run 5 km at 5:10 /km or faster"))
        XCTAssertTrue(html.contains("data-needed=\"gold\">Gold: run 5 km at 4:55 /km or faster"))
        XCTAssertEqual(count("class=\"pace-needed\"", in: html), 3, "no pace needed for tiers already held")
        XCTAssertTrue(html.contains("<p class=\"hint\">Run more than 10 km to earn</p>"))
        XCTAssertTrue(html.contains("<p class=\"hint\">Run three days in a row</p>"))
        XCTAssertTrue(html.contains("<dt>Badges</dt><dd>3 of 5</dd>"))
    }

    func testGeneratedMedallionsAreDistinct() throws {
        let html = try render([], badges: wallBadges())
        XCTAssertEqual(count("<svg class=\"medallion\"", in: html), 5)
        var fills: Set<String> = []
        for part in html.components(separatedBy: "<svg class=\"medallion\"").dropFirst() {
            fills.insert(String(part.components(separatedBy: "fill=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""))
        }
        XCTAssertEqual(fills.count, 5)
        XCTAssertTrue(html.contains(">10</text><text x=\"60\" y=\"84\" class=\"medal-unit\">km</text>"))
        XCTAssertTrue(html.contains(">S</text>"), "initials for a badge without a distance")
        XCTAssertTrue(html.contains("stroke=\"#c9a227\""), "gold rim")
    }

    func testImagesAreEmbeddedAsDataURIs() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("badgectl-images-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        try Data(png).write(to: dir.appendingPathComponent("earth.png"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("moon.imageset"), withIntermediateDirectories: true)
        try Data(png).write(to: dir.appendingPathComponent("moon.imageset/moon.png"))
        try Data(png).write(to: dir.appendingPathComponent("moon.imageset/moon@2x.png"))
        let badges = [
            ReportBadge(id: "earth", name: "Earth", image: "earth"),
            ReportBadge(id: "moon", name: "Moon", image: "moon"),
            ReportBadge(id: "mars", name: "Mars", image: "mars"),
            ReportBadge(id: "escape", name: "Escape", image: "../earth.png"),
        ]
        var input = ReportInput(title: "t", generatedAt: Date(timeIntervalSince1970: 0), badges: badges, runs: [], imagesDirectory: dir.path)
        let html = try HTMLReport.render(input)
        let uri = "data:image/png;base64," + Data(png).base64EncodedString()
        XCTAssertEqual(count("<img src=\"\(uri)\"", in: html), 2)
        XCTAssertEqual(count("<svg class=\"medallion\"", in: html), 2, "a missing image and a path outside the folder get a medallion")
        input.imagesDirectory = dir.appendingPathComponent("nope").path
        XCTAssertThrowsError(try HTMLReport.render(input)) { error in
            XCTAssertEqual(error as? ReportError, .imagesDirectoryNotFound(path: dir.appendingPathComponent("nope").path))
            XCTAssertTrue("\(error)".contains("nope: images folder not found"))
        }
    }

    // MARK: safety and determinism

    func testTextFromFilesIsEscaped() throws {
        var run = RunSummary(id: "x\"><script>alert(1)</script>.gpx", name: "<script>alert('run')</script>", format: "gpx", distanceMeters: 1000, elapsedSeconds: 300)
        run.checkpoints = []
        let badges = [ReportBadge(id: "b\"'", name: "<script>alert(2)</script>", information: "a & b <b>", earned: ReportAward(runId: "<i>", date: "<2024>"))]
        let input = ReportInput(title: "<script>t</script>", generatedAt: Date(timeIntervalSince1970: 0), badges: badges, runs: [run],
                                next: NextBadge(name: "<img src=x onerror=alert(3)>", remainingMeters: 10))
        let html = try HTMLReport.render(input)
        XCTAssertFalse(html.lowercased().contains("<script"))
        XCTAssertFalse(html.contains("<img src=x"))
        XCTAssertFalse(html.contains("<i>"))
        XCTAssertFalse(html.contains("<b>"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&#39;run&#39;)&lt;/script&gt;"))
        XCTAssertTrue(html.contains("data-badge-id=\"b&quot;&#39;\""))
        XCTAssertTrue(html.contains("a &amp; b &lt;b&gt;"))
    }

    func testSelfContainedAndDeterministic() throws {
        let input = SyntheticRuns.sampleInput()
        let a = try HTMLReport.render(input)
        var shuffled = input
        shuffled.runs.reverse()
        let b = try HTMLReport.render(shuffled)
        XCTAssertEqual(a, b, "same runs in another order must give the same bytes")
        XCTAssertEqual(a, try HTMLReport.render(input))
        XCTAssertFalse(a.contains("<script"))
        XCTAssertFalse(a.contains("http://") && a.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://"))
        XCTAssertFalse(a.contains("https://"))
        XCTAssertFalse(a.contains("url("))
        XCTAssertTrue(a.contains("Content-Security-Policy"))
        assertNoNonFiniteNumbers(a)
        // Runs newest first.
        let runs = try XCTUnwrap(a.components(separatedBy: "<section class=\"runs\"").last)
        let order = ["05-09-treadmill", "05-07-long", "05-04-negative", "05-01-park"].map { runs.range(of: $0)?.lowerBound }
        XCTAssertTrue(order.allSatisfy { $0 != nil })
        XCTAssertEqual(order.compactMap { $0 }, order.compactMap { $0 }.sorted())
    }

    func testFormatting() {
        XCTAssertEqual(Format.fixed(2.345, 2), "2.35")
        XCTAssertEqual(Format.fixed(-0.004, 2), "0.00")
        XCTAssertEqual(Format.fixed(-1.5, 1), "-1.5")
        XCTAssertEqual(Format.fixed(.nan, 1), "–")
        XCTAssertEqual(Format.duration(3725), "1:02:05")
        XCTAssertEqual(Format.duration(59.6), "1:00")
        XCTAssertEqual(Format.pace(333.3), "5:33 /km")
        XCTAssertEqual(Format.pace(speed: 0), "–")
        XCTAssertEqual(Format.shortDistance(21097.5), "21.1 km")
        XCTAssertEqual(Format.shortDistance(5000), "5 km")
        XCTAssertEqual(Format.shortDistance(400), "400 m")
    }
}
