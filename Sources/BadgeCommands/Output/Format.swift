import BadgeReport
import Foundation
import RunFiles

/// Human formatting for tables.
enum Format {
    /// `4:58` (minutes:seconds per km), `—` for nil.
    static func pace(_ secondsPerKilometre: Double?) -> String {
        guard let s = secondsPerKilometre, s.isFinite, s > 0 else { return "—" }
        return ReportFormat.clock(Int(s.rounded()), hours: false)
    }

    /// `1:02:03` or `25:41`.
    static func duration(_ seconds: Double?) -> String {
        guard let s = seconds, s.isFinite else { return "—" }
        return ReportFormat.clock(Int(s.rounded()))
    }

    /// `5.21 km`, `850 m`.
    static func distance(_ meters: Double?) -> String {
        guard let m = meters, m.isFinite else { return "—" }
        if m < 1000 { return "\(Int(m.rounded())) m" }
        return String(format: "%.2f km", m / 1000)
    }

    /// The date part of an ISO timestamp.
    static func date(_ iso: String?) -> String {
        guard let iso else { return "—" }
        return String(iso.prefix(10))
    }

    /// The local date of an award (or a run) at `at` (UTC, `YYYY-MM-DDThh:mm:ssZ`): the run's own
    /// `local_date` when the run is at hand (its file's UTC offset, else `--tz`), else the date in
    /// `zone` at that instant. Every DATE a table shows is local, as `--as-of` and the rules count days.
    static func localDate(_ at: String?, run: RunSummary?, zone: TimeZone) -> String {
        if let local = run?.localDate { return local }
        guard let at else { return "—" }
        guard let epoch = Timestamps.parse(at)?.epoch else { return date(at) }
        return Timestamps.date(epoch, offsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: epoch)))
    }
}

/// A plain text table with aligned columns.
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    /// A row; control characters in a cell (a newline in a file name) are escaped so a row stays one line.
    mutating func add(_ cells: String...) { rows.append(cells.map(ShownName.of)) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var out = ""
            for (i, cell) in cells.enumerated() {
                let isLast = i == cells.count - 1
                out += isLast ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
            }
            return out
        }
        var lines = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}

/// Writes to standard error.
enum Console {
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
