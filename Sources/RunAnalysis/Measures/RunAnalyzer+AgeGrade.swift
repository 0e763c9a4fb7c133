import Foundation
import RunFiles

/// Alan Jones's road-running age standards (USATF Masters Long Distance Running, CC0): the CSV files in
/// `AgeGrade/`, embedded at build time as the source publishes them (values unchanged, so a reader can
/// check them against the source), parsed once when first used.
///
/// Each table gives, for distances from 1 mile to 200 km, the open-class standard in seconds and one age
/// factor per age from 5 to 100. The age standard is the open standard divided by the factor; an age grade
/// is the age standard over the runner's time. Between the tables' distances the standard is interpolated
/// in log distance, as the tables' author does: u = ln(d / d1) / ln(d2 / d1), S(d) = S(d1)(1 − u) + S(d2) u.
public struct AgeGradeTable: Sendable {
    /// The columns' distances in metres, ascending.
    public let distances: [Double]
    /// The open-class standard of each column, seconds.
    public let openSeconds: [Double]
    /// Age factors by age (the row's first cell) and column.
    public let factors: [Int: [Double]]

    /// The table of `sex` (`male`, `female`) in `edition` (`2025`, `2020`), nil for another.
    public static func named(sex: String, edition: String) -> AgeGradeTable? {
        switch (sex, edition) {
        case ("male", "2025"): return male2025
        case ("female", "2025"): return female2025
        case ("male", "2020"): return male2020
        case ("female", "2020"): return female2020
        default: return nil
        }
    }

    static let male2025 = AgeGradeTable(csv: PackageResources.MaleRoadStd2025_csv)
    static let female2025 = AgeGradeTable(csv: PackageResources.FemaleRoadStd2025_csv)
    static let male2020 = AgeGradeTable(csv: PackageResources.MaleRoadStd2020_csv)
    static let female2020 = AgeGradeTable(csv: PackageResources.FemaleRoadStd2020_csv)

    /// Reads the source's CSV layout: a row `Distance` (km), a row `OC sec`, and rows whose first cell is an
    /// age; other rows (titles, notes, the `OC` clock times) are skipped. A row shorter than the distances
    /// (the 2020 files' notes) is not an age row.
    init(csv bytes: [UInt8]) {
        var distances: [Double] = [], open: [Double] = [], factors: [Int: [Double]] = [:]
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let head = cells.first else { continue }
            let numbers = cells.dropFirst().map { Double($0) }
            if head == "Distance" {
                distances = numbers.prefix { $0 != nil }.map { $0! * 1000 }
            } else if head == "OC sec" {
                open = numbers.prefix { $0 != nil }.map { $0! }
            } else if let age = Int(head), !distances.isEmpty {
                let row = numbers.prefix(distances.count).compactMap { $0 }
                if row.count == distances.count { factors[age] = row }
            }
        }
        let columns = min(distances.count, open.count)
        self.distances = Array(distances.prefix(columns)); openSeconds = Array(open.prefix(columns))
        self.factors = factors.mapValues { Array($0.prefix(columns)) }
    }

    /// The age standard in seconds at `age` (whole years) over `meters`: exact at a table distance,
    /// interpolated in log distance between two, nil outside the tables' distances or ages.
    public func standardSeconds(age: Int, meters: Double) -> Double? {
        guard let row = factors[age], let first = distances.first, let last = distances.last,
              meters.isFinite, meters >= first * (1 - 1e-9), meters <= last * (1 + 1e-9) else { return nil }
        func standard(_ column: Int) -> Double? { row[column] > 0 ? openSeconds[column] / row[column] : nil }
        guard let upper = distances.firstIndex(where: { $0 >= meters * (1 - 1e-9) }) else { return nil }
        if abs(distances[upper] - meters) <= meters * 1e-9 || upper == 0 { return standard(upper) }
        let lower = upper - 1
        guard let s1 = standard(lower), let s2 = standard(upper) else { return nil }
        let u = log(meters / distances[lower]) / log(distances[upper] / distances[lower])
        return s1 * (1 - u) + s2 * u
    }

    /// The fastest a runner of `age` (this table's sex) could have held over `meters`, m/s: the world
    /// record's speed (`WorldRecord`) slowed by the share the age standard is of the open one, at
    /// `meters` within the tables, at the nearest table distance outside them (so under a mile, as
    /// over 400 m, the mile's: generous, for sprint speed falls faster with age than a mile's). It is
    /// the world record's speed where the age standard is no slower (the young); nil outside the ages.
    public func fastestSpeed(age: Int, meters: Double) -> Double? {
        guard let first = distances.first, let last = distances.last, meters.isFinite, meters > 0 else { return nil }
        let column = min(max(meters, first), last)
        guard let standard = standardSeconds(age: age, meters: column), standard > 0 else { return nil }
        let recordSeconds = column / WorldRecord.speed(forDistance: column)
        return WorldRecord.speed(forDistance: meters) * min(1, recordSeconds / standard)
    }
}

extension RunAnalyzer {
    /// Whole years from `birth` (`YYYY-MM-DD`) to `date`: the age on that day (a year older on the birthday
    /// itself; born on 29 February, on 1 March of a common year).
    static func age(birth: String, on date: String) -> Int? {
        let b = birth.split(separator: "-").compactMap { Int($0) }, d = date.split(separator: "-").compactMap { Int($0) }
        guard b.count == 3, d.count == 3 else { return nil }
        var years = d[0] - b[0]
        if (d[1], d[2]) < (b[1], b[2]) { years -= 1 }
        return years
    }

    /// The `age_grade` measure (`MeasureKind.ageGrade`), resolved with the athlete's `birth_date` and `sex`:
    /// the whole run's percentage (its distance and elapsed time) and, for every table distance the run
    /// covers, its fastest stretch of that distance (the `effort` search, stops up to 120 s) graded the same
    /// way; `best_*` is the highest of them all. Percent: 100 × age standard ÷ time. nil without times or a
    /// date, for an age outside the table (5 to 100), or when neither the run nor any effort is in range.
    ///
    /// Only what a runner of the athlete's age and sex could have run is graded
    /// (`AgeGradeTable.fastestSpeed`: the world record slowed as the age standard is): a stretch of 400 m
    /// or more faster than that (a GPS jump; a phone's 0:51 400 m inside a 6:00 mile of a man of 53) is
    /// cut out of the effort search as a long stop is, so no effort spans it, and the whole run is then
    /// not graded either; an effort whose own average beats it is not graded, and a run whose average
    /// does has no grade. No grade is then over 100%.
    static func ageGrade(_ definition: MeasureDefinition, series: TimedSeries, startEpoch: Double?, localDate: String?) -> MeasureValue? {
        guard let birth = definition.text("birth_date"), let sex = definition.text("sex"),
              let table = AgeGradeTable.named(sex: sex, edition: definition.text("table") ?? "2025"),
              series.count >= 2, let date = localDate ?? startEpoch.map({ Timestamps.date($0, offsetSeconds: 0) }),
              let age = age(birth: birth, on: date), table.factors[age] != nil else { return nil }
        var value = MeasureValue(["age": .integer(age)])
        var best: (percent: Double, meters: Double, seconds: Double)?
        func consider(_ percent: Double, _ meters: Double, _ seconds: Double) {
            if percent > (best?.percent ?? -1) { best = (percent, meters, seconds) }
        }
        let meters = series.distances[series.count - 1] - series.distances[0]
        let seconds = series.elapsed[series.count - 1] - series.elapsed[0]
        // The fastest this runner's age and sex has run: what beats it is a GPS glitch, not a grade.
        let fastest: (Double) -> Double = { table.fastestSpeed(age: age, meters: $0) ?? WorldRecord.speed(forDistance: $0) }
        // A "run" no runner of this age could have run has no stretch worth grading.
        guard !WorldRecord.isBeaten(meters: meters, seconds: seconds, limit: fastest) else { return nil }
        let glitches = implausibleStretches(in: series, limit: fastest)
        if seconds > 0, glitches.isEmpty, let standard = table.standardSeconds(age: age, meters: meters) {
            let percent = 100 * standard / seconds
            value["percent"] = .float(percent); value["age_standard_s"] = .float(standard)
            value["distance_m"] = .float(meters); value["elapsed_s"] = .float(seconds)
            consider(percent, meters, seconds)
        }
        let wanted = table.distances.filter { $0 <= meters + distanceTolerance }.map { (name: "", meters: $0) }
        // The efforts' stretches: between the stops (as `effort`) and between the implausible stretches.
        let cuts = merged(stopRanges(of: series, maxStopSeconds: effortMaxStopSeconds), glitches)
        var efforts: [MeasureScalar] = []
        for effort in bestEfforts(in: series, wanted, stops: cuts).compactMap({ $0 }) where effort.elapsedSeconds > 0 {
            guard !WorldRecord.isBeaten(meters: effort.distanceMeters, seconds: effort.elapsedSeconds, limit: fastest),
                  let standard = table.standardSeconds(age: age, meters: effort.distanceMeters) else { continue }
            let percent = 100 * standard / effort.elapsedSeconds
            efforts.append(.record(["distance_m": .float(effort.distanceMeters), "elapsed_s": .float(effort.elapsedSeconds),
                                    "age_standard_s": .float(standard), "percent": .float(percent)]))
            consider(percent, effort.distanceMeters, effort.elapsedSeconds)
        }
        guard let best else { return nil }
        value["efforts"] = .list(efforts)
        value["best_percent"] = .float(best.percent)
        value["best_distance_m"] = .float(best.meters); value["best_elapsed_s"] = .float(best.seconds)
        return value
    }

    /// The stretches of `series` over which a runner went faster than any runner has (`WorldRecord`):
    /// every window from a point to the first point `meters` or more further on (two pointers, O(n))
    /// that beats the record for the distance it covers, overlapping windows merged, as point ranges
    /// (first, last) in order. A GPS jump of a few hundred metres in seconds shows as one; 400 m keeps
    /// the jitter of a few metres a second (and a sprint finish) out of it.
    static func implausibleStretches(in series: TimedSeries, meters: Double = 400,
                                     limit: (Double) -> Double = WorldRecord.speed(forDistance:)) -> [(start: Int, end: Int)] {
        let n = series.count, d = series.distances, t = series.elapsed
        var result: [(start: Int, end: Int)] = []
        var j = 0
        for i in 0..<n {
            if j <= i { j = i + 1 }
            while j < n, d[j] - d[i] < meters { j += 1 }
            guard j < n else { break }
            guard WorldRecord.isBeaten(meters: d[j] - d[i], seconds: t[j] - t[i], limit: limit) else { continue }
            if let last = result.last, i <= last.end {
                result[result.count - 1].end = max(last.end, j)
            } else {
                result.append((i, j))
            }
        }
        return result
    }

    /// Two ordered lists of point ranges as one, overlapping or touching ranges joined.
    static func merged(_ a: [(start: Int, end: Int)], _ b: [(start: Int, end: Int)]) -> [(start: Int, end: Int)] {
        guard !a.isEmpty, !b.isEmpty else { return a.isEmpty ? b : a }
        var result: [(start: Int, end: Int)] = []
        for range in (a + b).sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            if let last = result.last, range.start <= last.end {
                result[result.count - 1].end = max(last.end, range.end)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

extension RunAnalyzer {
    /// The `age_grade` measure of an even-paced run of `distanceMeters` in `elapsedSeconds` on `localDate`
    /// (`YYYY-MM-DD`), `definition` resolved with an athlete (`MeasureDefinition.resolved(athlete:)`):
    /// what the analyzer computes for a recorded run, from a series of one point a second, so that
    /// `t.run{ athlete = ..., distance_m = ..., elapsed_s = ... }` is graded by the same code. nil as
    /// there (no athlete, an age outside the table, shorter than a mile).
    public static func ageGrade(_ definition: MeasureDefinition, evenRunMeters distanceMeters: Double, elapsedSeconds: Double,
                                localDate: String) -> MeasureValue? {
        guard distanceMeters.isFinite, distanceMeters > 0, elapsedSeconds.isFinite, elapsedSeconds > 0,
              elapsedSeconds <= 30 * 86_400 else { return nil }
        let steps = Int(elapsedSeconds.rounded(.up))
        var distances: [Double] = [], elapsed: [Double] = []
        distances.reserveCapacity(steps + 1); elapsed.reserveCapacity(steps + 1)
        for k in 0...steps {
            let t = min(Double(k), elapsedSeconds)
            elapsed.append(t); distances.append(distanceMeters * t / elapsedSeconds)
        }
        return ageGrade(definition, series: TimedSeries(distances: distances, elapsed: elapsed), startEpoch: nil, localDate: localDate)
    }
}

extension RunAnalyzer {
    /// The measures of a run read without a track (a JSON summary: a race result typed in, a treadmill's
    /// totals): its age grades, as `t.run` makes them, of an even-paced run of its distance in its elapsed
    /// time (else its timer time) on its local date (the summary's own, else the wall clock of a start
    /// with no offset, else the start in the summary's offset or in `zone`, else UTC). Every other measure
    /// needs a track and is absent.
    public func measures(ofSummary summary: RunSummary) -> [String: MeasureValue] {
        var result: [String: MeasureValue] = [:]
        guard let epoch = summary.startEpochSeconds, epoch.isFinite,
              let seconds = summary.elapsedSeconds ?? summary.timerSeconds else { return result }
        let offset = summary.floatingStart == true ? 0
            : summary.utcOffsetSeconds ?? zone.map { $0.secondsFromGMT(for: Date(timeIntervalSince1970: epoch)) } ?? 0
        let localDate = summary.localDate ?? Timestamps.date(epoch, offsetSeconds: offset)
        for definition in measures where definition.kind == MeasureKind.ageGrade.name {
            if let value = RunAnalyzer.ageGrade(definition, evenRunMeters: summary.distanceMeters, elapsedSeconds: seconds, localDate: localDate) {
                result[definition.key] = value
            }
        }
        return result
    }
}
