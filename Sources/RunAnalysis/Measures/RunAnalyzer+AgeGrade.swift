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
        if seconds > 0, let standard = table.standardSeconds(age: age, meters: meters) {
            let percent = 100 * standard / seconds
            value["percent"] = .float(percent); value["age_standard_s"] = .float(standard)
            value["distance_m"] = .float(meters); value["elapsed_s"] = .float(seconds)
            consider(percent, meters, seconds)
        }
        let wanted = table.distances.filter { $0 <= meters + distanceTolerance }.map { (name: "", meters: $0) }
        var efforts: [MeasureScalar] = []
        for effort in bestEfforts(in: series, wanted, maxStopSeconds: effortMaxStopSeconds) where effort.elapsedSeconds > 0 {
            guard let standard = table.standardSeconds(age: age, meters: effort.distanceMeters) else { continue }
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
