import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// `badgectl summarize FILE...`: everything badgectl computes about runs.
struct SummarizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summarize",
        abstract: "Print the summary of run files: distance, times, pace, splits, fastest efforts, elevation, checkpoints.",
        discussion: """
            The JSON is always {"runs": [...]} with the same run objects as `evaluate`.

            Examples:
              badgectl summarize runs/2026-08-20-first-10k.fit
              badgectl summarize ~/runs --rules rules/habits --athlete me.json

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("Run files (or folders).", valueName: "file"))
    var files: [String]

    @Option(name: .long, help: ArgumentHelp(
        "Badge catalogue whose distances are located on the route as checkpoints.",
        discussion: "Defaults to ./badges.json, else the installed <binary>/../share/badgectl/badges.json (as every command looks it up).",
        valueName: "file"))
    var badges: String?

    @OptionGroup var runOptions: RunOptions

    @Option(name: .long, help: ArgumentHelp(
        "A rule pack whose measures to compute and print (pack.lua's `measures`). Repeat for more.", valueName: "pack"))
    var rules: [String] = []

    @Option(name: .long, help: ArgumentHelp("The runner's profile, for measures of heart-rate zones (JSON).", valueName: "file"))
    var athlete: String?

    @Option(name: .long, help: "Output format: table or json.")
    var format: OutputFormat = .table

    struct Output: Encodable {
        var runs: [RunSummary]
        /// With `--rules`: by run id, by pack, each declared measure's value (null when the run has none).
        var measures: [String: [String: [String: MeasureValue?]]]?
    }

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    /// What was asked for, as plain values (`Settings`).
    var settings: Settings {
        Settings(
            files: files, badges: badges, tz: runOptions.tz, rules: rules, athlete: athlete, format: format,
            cache: cacheOptions.cache, noCache: cacheOptions.noCache)
    }

    func run() throws { try settings.run() }

    /// A `summarize` command line's values, without the argument parser's property wrappers, so that
    /// `FastPath` can run the command it parsed itself the way `run()` runs a parsed one.
    struct Settings: Equatable {
        var files: [String]
        var badges: String?
        var tz: String?
        var rules: [String] = []
        var athlete: String?
        var format: OutputFormat = .table
        var cache: String?
        var noCache = false

        func run() throws {
            let zone = try RunOptions.zone(named: tz)
            var catalogue = Catalogue(badges: [])
            do {
                // The README's lookup order, as every command: --badges, ./badges.json, the installed one.
                let path = try Installation.locate("badges.json", given: badges, flag: "--badges FILE", directory: false)
                catalogue = try Catalogue.load(path: path)
            } catch {
                Console.error(CommandError.prefix + "\(error) (checkpoints left out)")
            }
            // Each pack loaded once here for its own message; the pipeline's engine loads them for their measures.
            for directory in rules {
                do { _ = try RulePack.load(directory: directory) } catch { throw ValidationError("--rules \(directory): \(error)") }
            }
            var profile: Athlete?
            if let athlete {
                do { profile = try Athlete.read(path: athlete) } catch { throw CommandError.badAthlete(reason: "\(error)").usage }
            }
            var engine = RuleEngine(packDirectories: rules, catalogue: catalogue)
            engine.athlete = profile
            let packs = engine.packs
            let table = PackMeasureTable(packs: packs, athlete: profile)
            // Read as evaluate reads them (the same analyzer, the cache), none left out: summarize shows every run.
            let pipeline = RunPipeline(engine: engine, zone: zone, cache: CacheOptions<SummaryCache>.open(cache: cache, noCache: noCache))
            var runs: [RunSummary] = []
            var failed = false
            for file in files {
                do {
                    let folder = try pipeline.read(folder: file)
                    runs += folder.runs
                    for error in folder.errors {
                        Console.error(CommandError.skipped + error.message)
                        failed = true
                    }
                    for path in folder.ignored { Console.error("ignored \(ShownName.of(path)): \(folder.ignoredReasons[path] ?? "not a run file")") }
                } catch {
                    Console.error(CommandError.skipped + "\(error)")
                    failed = true
                }
            }
            EvaluationPipeline.printWarnings(of: pipeline.cache)
            switch format {
            case .json:
                var output = Output(runs: runs)
                if !packs.isEmpty {
                    var measures: [String: [String: [String: MeasureValue?]]] = [:]
                    for run in runs {
                        for (index, pack) in packs.enumerated() {
                            for measure in pack.measures {
                                measures[run.id, default: [:]][pack.name, default: [:]][measure.name] = .some(table.value(pack: index, name: measure.name, in: run))
                            }
                        }
                    }
                    output.measures = measures
                }
                print(try JSONOutput.encode(output))
            case .table:
                print(Format.join(runs.map { run in
                    SummarizeCommand.describe(run) + SummarizeCommand.describeMeasures(run, packs: packs, table: table)
                }, "\n\n"))
            }
            if failed { throw ExitCode(ExitStatus.partial.rawValue) }
        }
    }

    /// One line per measure of each pack: `measure    habits.best3k  elapsed_s = 1160.2, ...` (or why it is nil).
    static func describeMeasures(_ run: RunSummary, packs: [RulePack], table: PackMeasureTable) -> String {
        var lines: [String] = []
        for (index, pack) in packs.enumerated() {
            for measure in pack.measures {
                let text: String
                if let value = table.value(pack: index, name: measure.name, in: run) {
                    text = value.text(kind: measure.definition.kind)
                } else if let reason = table.unavailable(pack: index, name: measure.name) {
                    text = "nil (\(reason))"
                } else {
                    text = "nil (\(MeasureKind.nilReason(measure.definition.kind)))"
                }
                lines.append("  measure    \(pack.name).\(measure.name)  \(text)")
            }
        }
        return lines.isEmpty ? "" : "\n" + Format.join(lines, "\n")
    }

    static func describe(_ run: RunSummary) -> String {
        var lines: [String] = []
        lines.append("\(ShownName.of(run.id))\(run.name.map { " — \(ShownName.of($0))" } ?? "")")
        lines.append("  start      \(run.start ?? ClockText.unknown)  (local date \(run.localDate ?? ClockText.unknown))   sport \(run.sport)   \(run.format), \(Format.count(run.points, "point"))")
        lines.append("  distance   \(Format.distance(run.distanceMeters))\(run.deviceDistanceMeters.map { "  (device: \(Format.distance($0)))" } ?? "")")
        lines.append("  elapsed    \(Format.duration(run.elapsedSeconds))   timer \(Format.duration(run.timerSeconds))   moving \(Format.duration(run.movingSeconds))")
        if run.deviceElapsedSeconds != nil || run.deviceTimerSeconds != nil {
            // The device's own counts, beside ours (they differ on files with auto-pause).
            lines.append("  device     elapsed \(Format.duration(run.deviceElapsedSeconds))   timer \(Format.duration(run.deviceTimerSeconds))")
        }
        if let totals = deviceTotals(run) { lines.append("  device     " + totals) }
        lines.append("  pace       \(Format.paceText(run.paceSecondsPerKilometre))   \(Format.pace(run.paceSecondsPerMile))/mi   moving \(Format.paceText(run.movingPaceSecondsPerKilometre))")
        if let e = run.elevation {
            lines.append("  elevation  +\(Format.whole(e.gainMeters)) m / -\(Format.whole(e.lossMeters)) m   (\(Format.whole(e.minMeters))–\(Format.whole(e.maxMeters)) m)")
        }
        if let hr = run.heartRate {
            lines.append("  heart rate avg \(Format.whole(hr.average))  max \(Format.whole(hr.maximum)) bpm   (average by \(hr.weighting.rawValue))")
        }
        if let cad = run.cadence { lines.append("  cadence    avg \(Format.whole(cad.average))  max \(Format.whole(cad.maximum))") }
        if !run.splitsKilometre.isEmpty {
            lines.append("  splits/km  " + splits(run.splitsKilometre))
        }
        if !run.efforts.isEmpty {
            lines.append("  fastest    " + Format.join(run.efforts.map { "\($0.name) \(Format.duration($0.elapsedSeconds))" }, "  "))
        }
        for c in run.checkpoints {
            let position = c.latitude.flatMap { latitude in c.longitude.map { Format.position(latitude: latitude, longitude: $0) } }
            // A start badge (distance 0) is passed where the run starts: no "0 m after 0:00".
            if c.distanceMeters <= 0 {
                lines.append("  passed     \(c.name) at the start\(position.map { " (\($0))" } ?? "")")
            } else {
                lines.append("  passed     \(c.name) (\(Format.distance(c.distanceMeters))) after \(Format.duration(c.elapsedSeconds))\(position.map { " at " + $0 } ?? "")")
            }
        }
        for lap in run.laps { lines.append(Format.padded("  lap \(lap.index)", to: 13) + describe(lap)) }
        for d in run.dropped { lines.append("  dropped    \(d.count) × \(d.reason)") }
        return Format.join(lines, "\n")
    }

    /// `6:46 6:08 7:21 8:46, last 669 m at 6:15/km`: the whole kilometres' paces, then the short last
    /// split said as what it is (its distance and pace), never a bare pace that reads as a kilometre.
    static func splits(_ splits: [Split]) -> String {
        let whole = Format.join(splits.filter { !$0.partial }.map { Format.pace($0.paceSecondsPerKilometre) }, " ")
        let last = splits.filter(\.partial).map { "last \(Format.distance($0.distanceMeters)) at \(Format.paceText($0.paceSecondsPerKilometre))" }
        return Format.join([whole].filter { !$0.isEmpty } + last, ", ")
    }

    /// The device's own climb, moving time, heart rate and lap count, or nil when the file records none.
    static func deviceTotals(_ run: RunSummary) -> String? {
        var parts: [String] = []
        if run.deviceAscentMeters != nil || run.deviceDescentMeters != nil {
            let up = run.deviceAscentMeters.map { "+\(Format.whole($0)) m" } ?? ClockText.unknown
            let down = run.deviceDescentMeters.map { "-\(Format.whole($0)) m" } ?? ClockText.unknown
            parts.append("climb \(up) / \(down)")
        }
        if let moving = run.deviceMovingSeconds { parts.append("moving \(Format.duration(moving))") }
        if run.deviceAverageHeartRate != nil || run.deviceMaximumHeartRate != nil {
            let average = run.deviceAverageHeartRate.map { Format.whole($0) } ?? ClockText.unknown
            let maximum = run.deviceMaximumHeartRate.map { Format.whole($0) } ?? ClockText.unknown
            parts.append("heart rate avg \(average)  max \(maximum) bpm")
        }
        if let laps = run.deviceLaps { parts.append(Format.count(laps, "lap")) }
        return parts.isEmpty ? nil : Format.join(parts, "   ")
    }

    /// `1.00 km in 4:05 (4:05/km)  avg 160 max 168 bpm  distance, active`: what the device says of a lap.
    static func describe(_ lap: RunLap) -> String {
        var text = lap.distanceMeters.map { Format.distance($0) } ?? ClockText.unknown
        text += " in \(Format.duration(lap.timerSeconds ?? lap.elapsedSeconds))"
        if let pace = lap.paceSecondsPerKilometre { text += " (\(Format.paceText(pace)))" }
        if let average = lap.averageHeartRate {
            text += "  avg \(Format.whole(average))" + (lap.maximumHeartRate.map { " max \(Format.whole($0))" } ?? "") + " bpm"
        }
        let why = [lap.trigger, lap.intensity].compactMap { $0 }
        if !why.isEmpty { text += "  " + Format.join(why, ", ") }
        return text
    }
}
