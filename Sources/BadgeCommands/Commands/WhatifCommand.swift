import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunFiles
import RunLibrary

/// `badgectl whatif DIR --distance 12km --time 1:00:00`: what a run like that, run next, would earn.
struct WhatifCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whatif",
        abstract: "What a run, run next, would earn: the awards with their tiers and details, and what it changes in next.",
        usage: "badgectl whatif <dir> --distance <distance> (--time <time> | --pace <pace>) [<options>]",
        discussion: """
            Imagines an even-paced run of --distance in --time (or at --pace), generated like a real \
            run (splits, efforts, checkpoints, measures), adds it to the history of DIR and evaluates \
            the history with and without it. The run starts on --date (local, --tz), by default a day \
            after the last run at the same time of day.

            The run made has the distance and time asked within 0.1%. It is from 100 m to 250 km, at \
            a pace no faster than the world record over the distance (evaluate leaves a faster run \
            out as implausible) and no slower than 30:00/km; anything else is refused with these limits.

            With --segment PACK/NAME the run goes along a segment a pack ships; with --place \
            PACK/NAME (and --distance) it goes out and back through a place a pack declares, so that \
            the measures of where it goes (places, segments, tiles) are computed on it.

            Examples:
              badgectl whatif ~/runs --distance 10k --time 50:00
              badgectl whatif ~/runs --distance 5k --pace 5:00 --place places/fountain
              badgectl whatif ~/runs --distance half --pace 5:30 --date 2026-12-06

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("A folder of run files (the history; may be empty).", valueName: "dir"))
    var directory: String

    @OptionGroup var options: PipelineOptions

    // Unconditional: `--distance -5km` is a value to refuse with the limits, not a missing one.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "The run's distance, from 100 m to 250 km: 12km, 10k, 10 km, 800m, 5mi, half, marathon (a bare number is km).", valueName: "distance"))
    var distance: String?

    @Option(name: .long, help: ArgumentHelp(
        "Or run along a segment a pack ships: PACK/NAME (places/park), its own path.",
        discussion: "The run starts a little before the start gate and ends a little past the end gate (twice the segment's "
            + "tolerance each); --time is the time over the segment itself, --pace its even pace.", valueName: "pack/name"))
    var segment: String?

    @Option(name: .long, help: ArgumentHelp(
        "Or, with --distance, run through a place a pack declares: PACK/NAME (places/fountain).",
        discussion: "The run goes out and back along the meridian through the place: from a quarter of the distance on "
            + "the equator's side, through it, a quarter beyond and back through it.", valueName: "pack/name"))
    var place: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "The run's time: h:mm:ss or mm:ss.",
        discussion: "The pace it makes must be between the world record over the distance and 30:00/km.", valueName: "time"))
    var time: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Or its pace per km: m:ss (4:30), between the world record over the distance and 30:00.", valueName: "pace"))
    var pace: String?

    @Option(name: .long, help: ArgumentHelp(
        "When the run starts, local time: YYYY-MM-DD (09:00) or YYYY-MM-DDThh:mm, from 1970 to 2099.",
        discussion: "Defaults to a day after the last run of the history (now when there is none).", valueName: "date"))
    var date: String?

    @Option(name: .long, help: ArgumentHelp("The run's climb: 200m (default: flat).", valueName: "climb"))
    var elevation: String?

    @Option(name: .long, help: "Output format: table (for people) or json.")
    var format: OutputFormat = .table

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    @Flag(name: .long, help: "Show every column of the table, however wide (by default it fits the terminal or $COLUMNS).")
    var wide = false

    /// What `whatif --format json` prints.
    struct Report: Encodable {
        struct Imagined: Encodable {
            var id: String
            var distanceMeters: Double
            var elapsedSeconds: Double
            var paceSecondsPerKilometre: Double
            @NullEncoded var start: String?
            @NullEncoded var localStart: String?
            @NullEncoded var elevationGainMeters: Double?
            /// The segment run along (`--segment PACK/NAME`), nil for an invented path.
            @NullEncoded var segment: String?
            /// The place run through (`--place PACK/NAME`), nil otherwise.
            @NullEncoded var place: String?
            enum CodingKeys: String, CodingKey {
                case id, start, segment, place
                case distanceMeters = "distance_m"
                case elapsedSeconds = "elapsed_s"
                case paceSecondsPerKilometre = "pace_s_per_km"
                case localStart = "local_start"
                case elevationGainMeters = "elevation_gain_m"
            }
        }
        var header: EvaluationReport.Header
        var run: Imagined
        /// The awards the run itself would get.
        var awards: [Award]
        /// Everything the run changes (its own awards as gained; a `best` that moves to it as moved).
        var changes: AwardDiff
        /// Each pack's next badge without the run, and with it.
        var nextBefore: [NextBadge]
        var nextAfter: [NextBadge]
        var errors: [RunFileError]
        var ruleErrors: [RuleFailure]
        /// Distance badges the run misses only because it is not longer than their distance (for the
        /// table; not in the JSON).
        var strictlyLonger: [String] = []
        enum CodingKeys: String, CodingKey {
            case header, run, awards, changes, errors
            case nextBefore = "next_before"
            case nextAfter = "next_after"
            case ruleErrors = "rule_errors"
        }
    }

    func validate() throws {
        if (time == nil) == (pace == nil) { throw CommandError.timeOrPace(both: time != nil).usage }
    }

    func run() throws {
        if wide { Terminal.unlimited = true }
        if place != nil, segment != nil || distance == nil { throw CommandError.placeRoute(segment: segment != nil).usage }
        guard (distance == nil) != (segment == nil) else { throw CommandError.distanceOrSegment(both: distance != nil).usage }
        let pipeline = try EvaluationPipeline(options, failures: .printAndExit)
        // Along a segment: the run is the route's length, at the pace asked over the segment.
        let route = try segment.map { reference in
            try EvaluationPipeline.guarding(.printAndExit) { try WhatIf.route(segment: reference, packs: pipeline.engine.packs) }
        }
        var meters: Double
        if let route {
            meters = route.routeMeters
        } else {
            let distance = distance ?? ""
            meters = try Quantity.meters(distance, flag: "--distance", signed: true)
            guard WhatIf.distanceRange.contains(meters) else {
                throw CommandError.outOfRange(flag: "--distance", value: distance, limits: WhatifCommand.limits(meters: nil)).usage
            }
        }
        let paced = route?.segmentMeters ?? meters
        var seconds: Double
        switch (time, pace) {
        case let (time?, nil): seconds = try Quantity.seconds(time, flag: "--time")
        case let (nil, pace?): seconds = try Quantity.seconds(pace, flag: "--pace") * paced / 1000
        default: throw CommandError.timeOrPace(both: time != nil).usage
        }
        // The segment's time stretched over the whole route at the same pace.
        if route != nil, paced > 0 { seconds *= meters / paced }
        // Faster than the world record, evaluate leaves the run out as implausible: a what-if of one would
        // promise awards no run earns. Slower than 30:00/km is standing about, not a pace.
        let paceAsked = seconds / (meters / 1000)
        guard paceAsked >= WhatifCommand.fastestPace(meters: meters), paceAsked <= WhatIf.slowestPace else {
            throw CommandError.outOfRange(flag: time == nil ? "--pace" : "--time", value: time ?? pace ?? "",
                                          limits: WhatifCommand.limits(meters: meters) + "; this is "
                                            + (seconds > 0 ? "\(Format.paceText(paceAsked)) over \(Format.distance(meters))" : "no time at all")).usage
        }
        // Through a place: out and back through it, the distance asked.
        let through = try place.map { reference in
            try EvaluationPipeline.guarding(.printAndExit) {
                try WhatIf.route(place: reference, packs: pipeline.engine.packs, distanceMeters: meters)
            }
        }
        let climb = try elevation.map { try Quantity.meters($0, flag: "--elevation", bareUnit: 1) }
        let outcome = try pipeline.run(directory: directory, cache: cacheOptions.open())
        let start = try startEpoch(history: outcome.selected, zone: pipeline.zone)
        let imagined = WhatIf.Run(distanceMeters: meters, elapsedSeconds: seconds, startEpochSeconds: start,
                                  utcOffsetSeconds: pipeline.zone.secondsFromGMT(for: Date(timeIntervalSince1970: start)),
                                  elevationGainMeters: climb, route: route?.waypoints ?? through)
        let result = try EvaluationPipeline.guarding(.printAndExit) {
            try pipeline.runs.whatIf(imagined, selected: outcome.selected)
        }
        var report = Report(
            header: pipeline.header,
            run: Report.Imagined(id: result.run.id, distanceMeters: result.run.distanceMeters, elapsedSeconds: result.run.elapsedSeconds ?? seconds,
                                 paceSecondsPerKilometre: seconds / (meters / 1000), start: result.run.start, localStart: result.run.localStart,
                                 elevationGainMeters: climb, segment: segment, place: place),
            awards: result.awards, changes: result.changes, nextBefore: result.before.nexts, nextAfter: result.after.nexts,
            errors: outcome.folder.errors, ruleErrors: result.after.failures)
        let names = pipeline.themedCatalogue.badges + pipeline.themedPackBadges
        report.strictlyLonger = WhatifCommand.missedByStrictness(askedMeters: meters, badges: pipeline.themedCatalogue.badges,
                                                                 held: Set(result.before.awards.map(\.badge)),
                                                                 awardedToRun: Set(result.awards.map(\.badge)))
        switch format {
        case .json: print(try JSONOutput.encode(report))
        case .table: print(WhatifCommand.table(report, names: names))
        }
        for error in report.errors { Console.error(CommandError.skipped + error.message) }
        for failure in report.ruleErrors { Console.error(CommandError.failed(failure)) }
        if !report.errors.isEmpty || !report.ruleErrors.isEmpty { throw ExitCode(ExitStatus.partial.rawValue) }
    }

    /// The distance badges a run of `askedMeters` misses because it is not strictly longer than their
    /// distance (asked at the distance, within whatif's 0.1%): what to say about each. `held`: badges
    /// the history or the run already has (then the run misses its tiers: silver, gold, best).
    static func missedByStrictness(askedMeters: Double, badges: [CatalogueBadge], held: Set<String>,
                                   awardedToRun: Set<String> = []) -> [String] {
        badges.compactMap { badge in
            guard let distance = badge.distanceMeters, distance > 0, !awardedToRun.contains(badge.id),
                  askedMeters <= distance, askedMeters >= distance * 0.999 else { return nil }
            let over = Format.distance(BadgeExplanation.qualifyingDistance(distance))
            return "\(badge.name): a badge needs a run strictly longer than its distance (\(Format.distance(distance))): "
                + (held.contains(badge.id) ? "\(over) counts for its tiers." : "\(over) earns it.")
        }
    }

    /// The fastest pace (s/km) whatif makes over `meters`: the world record's (`RunSelection`), at most
    /// `WhatIf.fastestPace`.
    static func fastestPace(meters: Double) -> Double {
        max(WhatIf.fastestPace, 1000 / RunSelection.recordSpeed(forDistance: meters))
    }

    /// What whatif makes, for messages; with the fastest pace over `meters` when given.
    static func limits(meters: Double?) -> String {
        let fastest = meters.map { "the world record over \(Format.distance($0)) (\(Format.paceText(fastestPace(meters: $0))); "
            + "evaluate leaves a faster run out as implausible)" } ?? "the world record over the distance"
        return "whatif makes runs from 100 m to 250 km at a pace no faster than \(fastest) and no slower than "
            + "\(Format.paceText(WhatIf.slowestPace))"
    }

    /// `--date` in `zone` (09:00 when no time is given), else a day after the last run, else now.
    func startEpoch(history: [RunSummary], zone: TimeZone) throws -> Double {
        guard let date else {
            if let last = history.compactMap(\.startEpochSeconds).max() { return last + 86_400 }
            return Date().timeIntervalSince1970.rounded()
        }
        let day = String(date.prefix(10))
        var hour = 9, minute = 0
        if date.utf8.count > 10 {
            let clock = date.dropFirst(11).split(separator: ":")
            guard date.dropFirst(10).first == "T", clock.count == 2, let h = Int(clock[0]), let m = Int(clock[1]),
                  (0..<24).contains(h), (0..<60).contains(m) else {
                throw CommandError.badDate(flag: "--date", value: date).usage
            }
            hour = h; minute = m
        }
        guard AsOfOptions.isDate(day) else { throw CommandError.badDate(flag: "--date", value: date).usage }
        let parts = day.split(separator: "-").compactMap { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // Foundation's calendar is Julian before 1582 (0001-01-01 started in year 0000), and a run is
        // dated by GPS time anyway: 1970 to 2099.
        guard parts.count == 3, (1970...2099).contains(parts[0]) else {
            throw CommandError.outOfRange(flag: "--date", value: date, limits: "whatif's runs start from 1970-01-01 to 2099-12-31").usage
        }
        guard let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: hour, minute: minute)) else {
            throw CommandError.badDate(flag: "--date", value: date).usage
        }
        return start.timeIntervalSince1970
    }

    static func table(_ report: Report, names: [CatalogueBadge]) -> String {
        func name(_ id: String) -> String { names.first { $0.id == id }?.name ?? id }
        let run = report.run
        var out = ["What if: \(Format.distance(run.distanceMeters)) in \(Format.duration(run.elapsedSeconds)) (\(Format.paceText(run.paceSecondsPerKilometre)))"
            + (run.localStart.map { " starting \($0.prefix(16).replacingOccurrences(of: "T", with: " "))" } ?? "")
            + (run.elevationGainMeters.map { String(format: ", %.0f m of climb", $0) } ?? "")
            + (run.segment.map { " along segment \($0)" } ?? "")
            + (run.place.map { " through place \($0)" } ?? "")]
        out.append("")
        if report.awards.isEmpty {
            out.append("It would earn no award.")
        } else {
            var table = TextTable("BADGE", "TIER", "PACK", "DETAIL", "EVIDENCE")
            table.droppable = ["PACK", "EVIDENCE"]
            for award in report.awards {
                table.add(name(award.badge), award.tier, award.pack, award.detail.isEmpty ? ClockText.unknown : award.detail, award.evidence?.text ?? ClockText.unknown)
            }
            out.append("It would earn \(Format.count(report.awards.count, "award")):")
            out.append(table.render())
        }
        var others: [String] = []
        for badge in report.changes.badges {
            let shown = name(badge.badge)
            for move in badge.moved {
                if move.to.run == run.id {
                    others.append("  \(shown) \(move.tier) moves to it from \(ShownName.of(move.from.run))")
                } else {
                    others.append("  \(shown) \(move.tier) moves from \(ShownName.of(move.from.run)) to \(ShownName.of(move.to.run))")
                }
            }
            for lost in badge.lost { others.append("  \(shown) \(lost.tier) on \(ShownName.of(lost.run)) is withdrawn") }
            for gained in badge.gained where gained.run != run.id {
                others.append("  \(shown) \(gained.tier) goes to \(ShownName.of(gained.run))")
            }
        }
        if !others.isEmpty {
            out.append("")
            out.append("It would also change:")
            out += others
        }
        let before = Dictionary(report.nextBefore.map { ("\($0.pack)/\($0.rule)", $0) }, uniquingKeysWith: { a, _ in a })
        var nexts: [String] = []
        for next in report.nextAfter {
            let old = before["\(next.pack)/\(next.rule)"]
            if old?.badge == next.badge && old?.remainingMeters == next.remainingMeters { continue }
            let was = old.map { " (was \(name($0.badge)), \(Format.distance($0.remainingMeters)) to go)" } ?? ""
            nexts.append("  \(next.pack): \(name(next.badge)), \(Format.distance(next.remainingMeters)) to go\(was)")
        }
        for old in report.nextBefore where !report.nextAfter.contains(where: { $0.pack == old.pack && $0.rule == old.rule }) {
            nexts.append("  \(old.pack): nothing left (was \(name(old.badge)))")
        }
        out.append("")
        out.append(nexts.isEmpty ? "Next: unchanged." : "Next, after it:")
        out += nexts
        if !report.strictlyLonger.isEmpty {
            out.append("")
            out += report.strictlyLonger.map { "Not earned: " + $0 }
        }
        return out.joined(separator: "\n")
    }
}

/// Quantities typed on the command line: distances (`12km`) and clock times (`1:00:00`).
enum Quantity {
    /// Meters from `12km`, `12.5 km`, `10k`, `800m`, `10mi`, `half`, `marathon`: the one parser of a
    /// distance typed on the command line (whatif's --distance and --elevation); a bare number is in `bareUnit` meters (km by default).
    /// `signed`: a negative distance is returned (for the caller to refuse with its limits), else refused.
    static func meters(_ text: String, flag: String, bareUnit: Double = 1000, signed: Bool = false) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let named = namedDistances[trimmed] { return named }
        let units: [(String, Double)] = [("km", 1000), ("k", 1000), ("mi", 1609.344), ("m", 1)]
        var number = trimmed, factor = bareUnit
        for (suffix, value) in units where trimmed.hasSuffix(suffix) {
            number = String(trimmed.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            factor = value
            break
        }
        let expected = "a distance such as 12km, 10k, 800m, 5mi, half or marathon (up to 1000 km)"
        guard let value = Double(number), value.isFinite else { throw CommandError.badQuantity(flag: flag, value: text, expected: expected).usage }
        if signed { return value * factor }
        guard value >= 0, value * factor <= 1_000_000 else { throw CommandError.badQuantity(flag: flag, value: text, expected: expected).usage }
        return value * factor
    }

    /// Race distances by name: World Athletics' half marathon and marathon.
    static let namedDistances: [String: Double] = [
        "half": 21_097.5, "half marathon": 21_097.5, "half-marathon": 21_097.5, "marathon": 42_195,
    ]

    /// Seconds from `h:mm:ss`, `mm:ss` or a number of seconds.
    static func seconds(_ text: String, flag: String) throws -> Double {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }
        guard (1...3).contains(parts.count), numbers.count == parts.count,
              parts.dropFirst().allSatisfy({ ($0.count == 2 || $0.contains(".")) && (Double($0) ?? 60) < 60 }) else {
            throw CommandError.badQuantity(flag: flag, value: text, expected: "a clock time h:mm:ss or m:ss (1:00:00, 4:30)").usage
        }
        let total = numbers.reduce(0) { $0 * 60 + $1 }
        guard total <= 7 * 86_400 else {
            throw CommandError.badQuantity(flag: flag, value: text, expected: "at most a week").usage
        }
        return total
    }
}
