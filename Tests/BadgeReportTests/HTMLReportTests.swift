import RunFixtures
import Foundation
import RunAnalysis
import RunFiles
import XCTest

import BadgeReport

final class HTMLReportTests: XCTestCase {
    // MARK: helpers

    func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The route's stretches: colour bin (`class="bN"`, -1 for `nospeed`) and absolute points,
    /// decoded from the paths' `M x y l dx dy …` data.
    func stretches(_ html: String) -> [(bin: Int, points: [(x: Int, y: Int)])] {
        var result: [(bin: Int, points: [(x: Int, y: Int)])] = []
        for part in html.components(separatedBy: "<path class=\"").dropFirst() {
            let name = part.prefix { $0 != "\"" }
            let bin = name == "nospeed" ? -1 : Int(name.dropFirst()) ?? -2
            guard let d = part.components(separatedBy: "d=\"").dropFirst().first?.prefix(while: { $0 != "\"" }) else { continue }
            var tokens: [String] = []
            var number = ""
            for ch in d {
                if ch.isNumber { number.append(ch); continue }
                if !number.isEmpty, number != "-" { tokens.append(number) }
                number = ch == "-" ? "-" : ""
                if ch == "M" || ch == "l" { tokens.append(String(ch)) }
            }
            if !number.isEmpty { tokens.append(number) }
            var i = 0
            while i < tokens.count {
                guard tokens[i] == "M", i + 2 < tokens.count, let x = Int(tokens[i + 1]), let y = Int(tokens[i + 2]) else { i += 1; continue }
                var points = [(x: x, y: y)]
                i += 3
                if i < tokens.count, tokens[i] == "l" { i += 1 }
                while i + 1 < tokens.count, let dx = Int(tokens[i]), let dy = Int(tokens[i + 1]) {
                    let last = points[points.count - 1]
                    points.append((last.x + dx, last.y + dy))
                    i += 2
                }
                result.append((bin, points))
            }
        }
        return result
    }

    /// The colour bins used by the route, in document (bin) order.
    func bins(_ html: String) -> [Int] { stretches(html).map(\.bin) }

    /// The circle centre of the start or finish marker.
    func marker(_ name: String, in html: String) -> (x: Int, y: Int)? {
        guard let part = html.components(separatedBy: "<circle class=\"\(name)\" ").dropFirst().first else { return nil }
        func attribute(_ key: String) -> Int? { Int(part.components(separatedBy: key + "=\"").dropFirst().first?.prefix { $0 != "\"" } ?? "") }
        guard let x = attribute("cx"), let y = attribute("cy") else { return nil }
        return (x, y)
    }

    /// Colour bins of the stretch leaving the start and of the stretch reaching the finish.
    func startAndFinishBins(_ html: String) -> (start: Int?, finish: Int?) {
        let all = stretches(html)
        let start = marker("start", in: html), finish = marker("finish", in: html)
        let first = all.first { s in s.points.first.map { $0.x == start?.x && $0.y == start?.y } ?? false }
        let last = all.first { s in s.points.last.map { $0.x == finish?.x && $0.y == finish?.y } ?? false }
        return (first?.bin, last?.bin)
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
        let summary = SyntheticRuns.summary(of: track, id: "split.gpx")
        let html = try render([summary])
        let (start, finish) = startAndFinishBins(html)
        let first = try XCTUnwrap(start), last = try XCTUnwrap(finish)
        XCTAssertLessThanOrEqual(first, 2, "the slow start should be red")
        XCTAssertGreaterThanOrEqual(last, PaceScale.binCount - 4, "the fast finish should be green")
        let red = try XCTUnwrap(Int(PaceScale.colour(bin: first).dropFirst(), radix: 16))
        let green = try XCTUnwrap(Int(PaceScale.colour(bin: last).dropFirst(), radix: 16))
        XCTAssertGreaterThan(red >> 16, (red >> 8 & 0xff) + 100, "reddish: \(PaceScale.colour(bin: first))")
        XCTAssertGreaterThan(green >> 8 & 0xff, (green >> 16) + 60, "greenish: \(PaceScale.colour(bin: last))")
        XCTAssertTrue(bins(html).contains(0))
        XCTAssertTrue(bins(html).contains(PaceScale.binCount - 1))
        XCTAssertTrue(html.contains(".route .b0{stroke:#dc2626}"))
        // Every vertex is drawn exactly where the projection puts it: the decoded stretches hold
        // all route vertices (plus one shared vertex where the colour changes), inside the viewBox.
        let all = stretches(html)
        let route = try XCTUnwrap(summary.route)
        XCTAssertEqual(all.reduce(0) { $0 + $1.points.count - 1 }, route.count - 1)
        XCTAssertTrue(all.allSatisfy { $0.points.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x <= 1200 && $0.y <= 1200 } })
        assertNoNonFiniteNumbers(html)
    }

    func testConstantSpeedIsOneColour() throws {
        // No GPS noise, steady 3.2 m/s: the whole route in the middle bin, one colour, no division by zero.
        let track = SyntheticRuns.parkRun(distanceMeters: 3000, startEpoch: 1_700_000_000, seed: 12, gpsSigmaMeters: 0) { _ in 3.2 }
        let html = try render([SyntheticRuns.summary(of: track, id: "steady.gpx")])
        XCTAssertEqual(html.components(separatedBy: "<path class=").count - 1, 1)
        XCTAssertEqual(Set(bins(html)), [PaceScale.middleBin])
        assertNoNonFiniteNumbers(html)
    }

    func testRepeatedTimestampsRenderWithoutNaN() throws {
        var track = SyntheticRuns.parkRun(distanceMeters: 2500, startEpoch: 1_700_000_000, seed: 13) { s in 3 + sin(s / 300) }
        // Every second timestamp repeats the one before (dt = 0).
        for i in stride(from: 1, to: track.count, by: 2) { track.times[i] = track.times[i - 1] }
        let summary = SyntheticRuns.summary(of: track, id: "dt0.gpx")
        let route = try XCTUnwrap(summary.route)
        XCTAssertTrue(route.speedsMetersPerSecond.allSatisfy { $0?.isFinite == true })
        let html = try render([summary])
        assertNoNonFiniteNumbers(html)
        XCTAssertGreaterThan(Set(bins(html)).count, 1)
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
        let distance = ReportFormat.fixed(summary.distanceMeters / 1000, 2)
        XCTAssertTrue(html.contains("<dt>Distance</dt><dd>\(distance) km</dd>"))
        XCTAssertTrue(html.contains("<dt>Pace</dt><dd>\(ReportFormat.pace(summary.paceSecondsPerKilometre))</dd>"))
        XCTAssertTrue(html.contains("<dt>Elapsed</dt><dd>\(ReportFormat.duration(summary.elapsedSeconds))</dd>"))
        XCTAssertTrue(html.contains("<dt>Heart rate</dt>"))
        XCTAssertTrue(html.contains("<dt>Elevation</dt><dd>+"))
    }

    func testTinyRouteIsCentredNotBlownUp() throws {
        // 60 points jittering within a metre of one spot, then an empty report.
        var track = Track(source: "still.gpx")
        for i in 0..<60 {
            track.append(latitude: 50 + Double(i % 3) * 3e-6, longitude: 8 + Double(i % 5) * 3e-6, time: Double(i))
        }
        var run = RunAnalyzer().summarize(track, id: "still.gpx")
        run.route = RouteTrace.make(track: track, profile: RunAnalyzer.profile(of: track), colourStrideMeters: 0)
        let html = try render([run])
        let points = stretches(html).flatMap(\.points)
        XCTAssertFalse(points.isEmpty)
        // A 100 m box shown 1000 units wide: the metre of jitter stays within ~20 units of the centre (560, 560).
        XCTAssertTrue(html.contains("viewBox=\"0 0 1120 1120\""))
        XCTAssertTrue(points.allSatisfy { abs($0.x - 560) <= 20 && abs($0.y - 560) <= 20 }, "\(points)")
        assertNoNonFiniteNumbers(html)
        let empty = try render([])
        XCTAssertTrue(empty.contains("<p class=\"empty\">No runs.</p>"))
        XCTAssertTrue(empty.contains("<dt>Badges</dt><dd>0 of 0</dd>"))
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
        XCTAssertTrue(html.contains("data-needed=\"gold\">Gold: run more than 2 km at 5:00/km or faster"))
        XCTAssertTrue(html.contains("data-needed=\"silver\">Silver: run more than 5 km at 5:10/km or faster"))
        XCTAssertTrue(html.contains("data-needed=\"gold\">Gold: run more than 5 km at 4:55/km or faster"))
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
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let dir = temporary.url
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

    func testAClickOnAnEarnedBadgeShowsEachAwardsProvenanceAndEvidence() throws {
        var badge = ReportBadge(id: "five-k", name: "Five K", earned: ReportAward(runId: "a.gpx", date: "2024-05-01"))
        badge.provenance = [ReportProvenance(tier: "earned", runId: "a.gpx", date: "2024-05-01", pack: "checkpoints 1.0.0", rule: "distance",
                                             detail: "5.20 km at 5:00/km", evidence: [("checkpoint_elapsed_s", "1500"), ("note", "<b>x</b>")])]
        let unearned = ReportBadge(id: "ten-k", name: "Ten K")
        let html = try HTMLReport.render(ReportInput(title: "t", generatedAt: Date(timeIntervalSince1970: 0), badges: [badge, unearned], runs: []))
        XCTAssertTrue(html.contains("<details class=\"provenance\"><summary>Why</summary><div class=\"award\" data-award-tier=\"earned\">"), html)
        XCTAssertTrue(html.contains("<p class=\"rule\">checkpoints 1.0.0 / distance</p>"), html)
        XCTAssertTrue(html.contains("<dt>checkpoint_elapsed_s</dt><dd>1500</dd><dt>note</dt><dd>&lt;b&gt;x&lt;/b&gt;</dd>"), html)
        XCTAssertEqual(html.components(separatedBy: "<details class=\"provenance\">").count, 2, "only the earned badge has one")
        // A badge with many awards: the first and the last, and a line for those left out between them.
        var many = badge
        many.provenance = [badge.provenance[0], ReportProvenance(tier: "earned", runId: "z.gpx", date: "2024-09-01", pack: "p 1", rule: "r",
                                                                 detail: "", evidence: [])]
        many.provenanceLeftOut = 5
        let folded = try HTMLReport.render(ReportInput(title: "t", generatedAt: Date(timeIntervalSince1970: 0), badges: [many], runs: []))
        XCTAssertTrue(folded.contains("</div><p class=\"left-out\">… 5 more awards</p><div class=\"award\""), folded)
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
        XCTAssertEqual(ReportFormat.fixed(2.345, 2), "2.35")
        XCTAssertEqual(ReportFormat.fixed(-0.004, 2), "0.00")
        XCTAssertEqual(ReportFormat.fixed(-1.5, 1), "-1.5")
        XCTAssertEqual(ReportFormat.fixed(.nan, 1), "—")
        XCTAssertEqual(ReportFormat.duration(3725), "1:02:05")
        XCTAssertEqual(ReportFormat.duration(59.6), "1:00")
        XCTAssertEqual(ReportFormat.pace(333.3), "5:33/km")
        XCTAssertEqual(ReportFormat.pace(speed: 0), "—")
        XCTAssertEqual(ReportFormat.shortDistance(21097.5), "21.1 km")
        XCTAssertEqual(ReportFormat.shortDistance(5000), "5 km")
        XCTAssertEqual(ReportFormat.shortDistance(400), "400 m")
        XCTAssertEqual(ReportFormat.timestamp(epochSeconds: 1_714_545_000), "2024-05-01 06:30 UTC")
        XCTAssertEqual(ReportFormat.timestamp(epochSeconds: 1_714_545_000, offsetSeconds: 7200), "2024-05-01 08:30 +02:00")
        XCTAssertEqual(ReportFormat.timestamp(epochSeconds: 1_714_545_000, offsetSeconds: -16_200), "2024-05-01 02:00 -04:30")
        XCTAssertEqual(ReportFormat.timestamp(epochSeconds: .nan), "—")
    }
}
