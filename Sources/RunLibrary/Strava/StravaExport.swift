import Foundation
import RunFiles

/// One row of a Strava bulk export's `activities.csv`.
public struct StravaActivity: Sendable, Equatable {
    /// Strava's activity id (`Activity ID`).
    public var id: String
    /// `Activity Date` as written (UTC, e.g. `Mar 11, 2019, 5:40:43 PM`).
    public var date: String
    /// `date` as epoch seconds when it is in a form we know.
    public var startEpochSeconds: Double?
    /// `Activity Name`.
    public var name: String
    /// `Activity Type` as written (`Run`, `Ride`, `Trail Run`, ...).
    public var type: String
    /// `type` through `Sport.normalise` (`running`, `cycling`, ...).
    public var sport: String
    /// `Filename` relative to the export folder (`activities/123.gpx.gz`), nil for manual entries.
    public var filename: String?
    /// The export folder joined with `filename`.
    public var path: String?
    /// The first `Elapsed Time` column (seconds), when numeric.
    public var elapsedSeconds: Double?
    /// The line of `activities.csv` the row starts on.
    public var line: Int
}

/// A Strava bulk export folder: `activities.csv` beside an `activities/` folder of GPX, TCX and
/// FIT files (often gzip'd). The CSV header repeats names (`Elapsed Time`, `Distance` appear twice,
/// in different units), so columns are found by the FIRST occurrence of their name.
public enum StravaExport {
    public static let requiredColumns = ["Activity ID", "Activity Date", "Activity Name", "Activity Type", "Filename"]

    /// True when `directory` holds `activities.csv` and an `activities` folder.
    public static func isExport(directory: String) -> Bool {
        var isDirectory: ObjCBool = false
        let fm = FileManager.default
        guard fm.fileExists(atPath: directory + "/activities.csv", isDirectory: &isDirectory), !isDirectory.boolValue else {
            return false
        }
        return fm.fileExists(atPath: directory + "/activities", isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Every row of `activities.csv`, whatever its type (the caller filters runs).
    public static func read(directory: String) throws -> [StravaActivity] {
        let csvPath = directory + "/activities.csv"
        return try read(csv: FileBytes.read(path: csvPath), source: csvPath, directory: directory)
    }

    /// Parses the CSV bytes; `source` names the file in errors, `directory` prefixes `path`.
    public static func read(csv bytes: [UInt8], source: String, directory: String) throws -> [StravaActivity] {
        let rows = try CSV.parse(bytes, source: source)
        guard let header = rows.first else {
            throw ActivityError.malformed(path: source, line: 1, offset: nil, reason: "empty file, expected a header row")
        }
        var columns: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() {
            let key = name.trimmingCharacters(in: .whitespaces)
            if columns[key] == nil { columns[key] = index }
        }
        var required: [Int] = []
        for name in requiredColumns {
            guard let index = columns[name] else {
                throw ActivityError.malformed(
                    path: source, line: header.line, offset: nil, reason: "no '\(name)' column in the header (not a Strava activities.csv?)")
            }
            required.append(index)
        }
        let elapsedIndex = columns["Elapsed Time"]
        let needed = (required.max() ?? 0) + 1
        var result: [StravaActivity] = []
        for row in rows.dropFirst() {
            guard row.fields.count >= needed else {
                throw ActivityError.malformed(
                    path: source, line: row.line, offset: nil,
                    reason: "\(row.fields.count) fields, fewer than the \(needed) the header's required columns need")
            }
            let field = { (i: Int) in row.fields[i].trimmingCharacters(in: .whitespaces) }
            let id = field(required[0]), date = field(required[1]), type = field(required[3])
            let file = field(required[4])
            var filename: String?
            var path: String?
            if !file.isEmpty {
                let parts = file.split(separator: "/")
                guard !file.hasPrefix("/"), !parts.contains("..") else {
                    throw ActivityError.malformed(
                        path: source, line: row.line, offset: nil, reason: "Filename '\(file)' points outside the export folder")
                }
                filename = file
                path = directory + "/" + file
            }
            var elapsed: Double?
            if let e = elapsedIndex, e < row.fields.count { elapsed = Double(field(e)) }
            result.append(StravaActivity(
                id: id, date: date, startEpochSeconds: parseDate(date), name: row.fields[required[2]],
                type: type, sport: Sport.normalise(type), filename: filename, path: path,
                elapsedSeconds: elapsed, line: row.line))
        }
        return result
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Epoch seconds of the date forms Strava exports write: `Mar 11, 2019, 5:40:43 PM`,
    /// `11 Mar 2019, 17:40:43`, or ISO 8601. Strava writes them in UTC.
    public static func parseDate(_ text: String) -> Double? {
        if let iso = Timestamps.parse(text) { return iso.epoch }
        // Words and numbers in order: month name, day, year, hour, minute, second, AM/PM.
        var numbers: [Int] = []
        var month: Int?
        var meridiem: String?
        var token = ""
        func flush() {
            defer { token = "" }
            guard !token.isEmpty else { return }
            if let v = Int(token) { numbers.append(v); return }
            let lower = token.lowercased()
            if lower == "am" || lower == "pm" { meridiem = lower; return }
            if let m = months.firstIndex(of: String(lower.prefix(3))) { month = m + 1 }
        }
        for ch in text {
            if ch.isLetter || ch.isNumber { token.append(ch) } else { flush() }
        }
        flush()
        guard let month, numbers.count >= 5 else { return nil }
        var day = numbers[0], year = numbers[1]
        if day > 31 { swap(&day, &year) }
        var hour = numbers[2]
        let minute = numbers[3], second = numbers.count > 4 ? numbers[4] : 0
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            if meridiem == "am" { hour = hour == 12 ? 0 : hour } else { hour = hour == 12 ? 12 : hour + 12 }
        }
        guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else {
            return nil
        }
        let days = Timestamps.daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
    }
}

extension StravaExport {
    /// Gives runs read from a Strava export folder the name and sport its `activities.csv` lists for
    /// their file (`id` is the path relative to `directory`, as `RunFolder` makes it). Runs whose file
    /// the CSV does not list keep what their file said.
    public static func annotate(_ runs: [RunSummary], directory: String) throws -> [RunSummary] {
        guard isExport(directory: directory) else { return runs }
        return annotate(runs, with: try read(directory: directory)) { $0 }
    }

    /// `runs` with the name and sport of the activity whose file (`id(filename)`, the run id
    /// without its `#n`) they were read from; the others as they are.
    static func annotate(_ runs: [RunSummary], with activities: [StravaActivity], id: (String) -> String) -> [RunSummary] {
        var byFile: [String: StravaActivity] = [:]
        for activity in activities {
            if let file = activity.filename { byFile[id(file)] = activity }
        }
        return runs.map { run in
            let file = run.id.split(separator: "#").first.map(String.init) ?? run.id
            guard let activity = byFile[file] else { return run }
            var run = run
            if !activity.name.isEmpty { run.name = activity.name }
            run.sport = activity.sport
            return run
        }
    }
}
