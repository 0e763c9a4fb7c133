import BadgePipeline
import BadgeReport
import Foundation
import RunFiles

/// Human formatting: the one voice of every output a person reads (evaluate's and every other
/// table, explain, summarize, whatif, add, diff, test, and the report's figures through
/// `ReportFormat`, which this calls). Paces `m:ss`, times `h:mm:ss` or `m:ss`, distances `850 m` or
/// `5.21 km`, dates `YYYY-MM-DD`, counts with the right plural.
enum Format {
    /// `1 run`, `25 awards`: `count` and the noun, plural unless the count is 1.
    static func count(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }

    /// `parts` with `separator` between them, as `parts.joined(separator:)` gives.
    ///
    /// `summarize` prints through this rather than the standard library's generic
    /// `joined(separator:)`, whose first call in a process looks up the associated types of
    /// `[String]` at run time, which scans every conformance record of the static binary (0.15 ms of
    /// a one-file `summarize`); this loop over a concrete `[String]` needs no look-up.
    static func join(_ parts: [String], _ separator: String) -> String {
        var text = ""
        for (k, part) in parts.enumerated() {
            if k > 0 { text += separator }
            text += part
        }
        return text
    }

    /// `text` padded with spaces to `width` characters, without bridging to `NSString` (whose first
    /// use decodes through a generic path and a conformance look-up). For ASCII text shorter than
    /// `width` it is what `padding(toLength: width, withPad: " ", startingAt: 0)` gives; it never
    /// cuts a longer text (which `padding` would), and counts characters, not UTF-16 units.
    static func padded(_ text: String, to width: Int) -> String {
        let length = text.count
        return length >= width ? text : text + String(repeating: " ", count: width - length)
    }

    /// The pace a runner must hold for a tier whose rule compares strictly (`FigureText.tierPace`).
    static func tierPace(_ target: Double) -> Double { FigureText.tierPace(target) }

    /// `11:04/km or faster`: what earns a tier whose rule wants a pace below `target`.
    static func tierPaceText(_ target: Double) -> String { FigureText.tierPaceText(target) }

    /// `52.37016, 4.89521`: a position as C's `%.5f, %.5f` writes it (what `String(format:)` gave, byte
    /// for byte), each number through glibc's `strfromd`, which takes one `double` and no variable
    /// arguments: Foundation's formatter loads its locale machinery on first use, and Swift's
    /// `withVaList` casts each argument to `CVarArg` at run time, whose first lookup scans every
    /// conformance of the (static) binary: 1.2M instructions, a tenth of a one-file `summarize`.
    static func position(latitude: Double, longitude: Double) -> String {
        fixed5(latitude) + ", " + fixed5(longitude)
    }

    /// `value` as `%.5f` writes it.
    static func fixed5(_ value: Double) -> String {
        if let strfromd = Self.strfromd {
            var buffer = [CChar](repeating: 0, count: 48)
            let written = buffer.withUnsafeMutableBufferPointer { strfromd($0.baseAddress, $0.count, "%.5f", value) }
            if written >= 0, Int(written) < buffer.count {
                return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return String(format: "%.5f", value)
    }

    /// glibc's `strfromd` (C23, glibc 2.25), looked up in libc: the Glibc module does not declare it.
    private typealias Strfromd = @convention(c) (UnsafeMutablePointer<CChar>?, Int, UnsafePointer<CChar>?, Double) -> Int32
    private static let strfromd: Strfromd? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "strfromd")
        .map { unsafeBitCast($0, to: Strfromd.self) }

    // The figures (distances, times, paces): `FigureText`, the one implementation the report, the
    // league and the packs' `badgectl.format_*` helpers write through too.

    /// `152`, `-410`, `—` when it is not a figure.
    static func whole(_ value: Double) -> String { FigureText.whole(value) }

    /// `4:58` (minutes:seconds per km), `—` for nil.
    static func pace(_ secondsPerKilometre: Double?) -> String { FigureText.pace(secondsPerKilometre) }

    /// `4:58/km`, `—` for nil.
    static func paceText(_ secondsPerKilometre: Double?) -> String { FigureText.paceText(secondsPerKilometre) }

    /// `1:02:03` or `25:41`.
    static func duration(_ seconds: Double?) -> String { FigureText.duration(seconds) }

    /// `5.21 km`, `850 m`.
    static func distance(_ meters: Double?) -> String { FigureText.distance(meters) }

    /// The date part of an ISO timestamp.
    static func date(_ iso: String?) -> String {
        guard let iso else { return ClockText.unknown }
        return String(iso.prefix(10))
    }

    /// A line of prose fitted to `width` (the terminal's): broken at spaces, continuation lines indented.
    static func paragraph(_ text: String, width: Int? = Terminal.width, indent: Int = 2) -> [String] {
        guard let width, text.count > width else { return [text] }
        let lines = TextTable.wrap(text, width: width - indent)
        return [lines[0]] + TextTable.wrap(lines.dropFirst().joined(separator: " "), width: width - indent)
            .filter { !$0.isEmpty }.map { String(repeating: " ", count: indent) + $0 }
    }

    /// The local date of an award (or a run) at `at` (UTC, `YYYY-MM-DDThh:mm:ssZ`): the run's own
    /// `local_date` when the run is at hand (its file's UTC offset, else `--tz`), else the date in
    /// `zone` at that instant. Every DATE a table shows is local, as `--as-of` and the rules count days.
    static func localDate(_ at: String?, run: RunSummary?, zone: TimeZone) -> String {
        if let local = run?.localDate { return local }
        guard let at else { return ClockText.unknown }
        guard let epoch = Timestamps.parse(at)?.epoch else { return date(at) }
        return Timestamps.date(epoch, offsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: epoch)))
    }
}

/// A plain text table with aligned columns, fitted to a width: past it, the columns named in
/// `droppable` go first (in that order), then the last column wraps onto continuation lines under
/// itself (at spaces where it can). `render()` fits the terminal (`Terminal.width`); `--wide` passes nil.
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// Headers of columns that may be left out to fit, the first to go first.
    var droppable: [String] = []

    init(_ headers: String...) { self.headers = headers }

    /// A row; control characters in a cell (a newline in a file name) are escaped so a row stays one line.
    mutating func add(_ cells: String...) { rows.append(cells.map(ShownName.of)) }

    /// Narrowest the wrapped last column gets before more columns are dropped.
    static let minimumLastColumn = 24

    /// The table in at most `width` columns (nil: as wide as its cells).
    func render(width: Int? = Terminal.width) -> String {
        var keep = Array(headers.indices)
        func widths(_ columns: [Int]) -> [Int] {
            columns.map { i in rows.reduce(headers[i].count) { max($0, i < $1.count ? $1[i].count : 0) } }
        }
        func fixedWidth(_ columns: [Int]) -> Int { widths(columns).dropLast().reduce(0) { $0 + $1 + 2 } }
        if let width {
            var toDrop = droppable.compactMap { headers.firstIndex(of: $0) }
            while widths(keep).reduce(0, +) + 2 * (keep.count - 1) > width,
                  width - fixedWidth(keep) < Self.minimumLastColumn, !toDrop.isEmpty {
                let column = toDrop.removeFirst()
                keep.removeAll { $0 == column }
            }
        }
        var columnWidths = widths(keep)
        var lastWidth = columnWidths.last ?? 0
        if let width, !keep.isEmpty {
            lastWidth = max(Self.minimumLastColumn, min(lastWidth, width - fixedWidth(keep)))
            columnWidths[columnWidths.count - 1] = min(columnWidths[columnWidths.count - 1], lastWidth)
        }
        let indent = fixedWidth(keep)
        func line(_ cells: [String]) -> [String] {
            var out = ""
            for (k, cell) in cells.enumerated() where k < cells.count - 1 {
                out += cell + String(repeating: " ", count: max(0, columnWidths[k] - cell.count) + 2)
            }
            let pieces = Self.wrap(cells.last ?? "", width: lastWidth)
            return [out + (pieces.first ?? "")] + pieces.dropFirst().map { String(repeating: " ", count: indent) + $0 }
        }
        func pick(_ row: [String]) -> [String] { keep.map { $0 < row.count ? row[$0] : "" } }
        var lines = line(pick(headers)) + line(columnWidths.map { String(repeating: "-", count: $0) })
        for row in rows { lines += line(pick(row)) }
        return lines.map { $0.hasSuffix(" ") ? String($0.reversed().drop { $0 == " " }.reversed()) : $0 }.joined(separator: "\n")
    }

    /// Units a number keeps on its line: `10.00 km` never breaks between the two.
    static let units: Set<String> = ["km", "m", "mi", "s", "min", "h", "bpm", "tiles", "runs"]

    /// `text` in lines of at most `width` characters, broken at spaces, never between a number and its
    /// unit (a word longer than a line is cut).
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0, text.count > width else { return [text] }
        var words: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let bare = String(word.prefix { $0.isLetter })
            if let last = words.last, last.last?.isNumber == true, units.contains(bare), word.count <= bare.count + 1 {
                words[words.count - 1] = last + " " + word
            } else {
                words.append(word)
            }
        }
        var lines: [String] = [], current = ""
        for word in words {
            var word = word
            if current.isEmpty || current.count + 1 + word.count > width {
                if !current.isEmpty { lines.append(current); current = "" }
                while word.count > width { lines.append(String(word.prefix(width))); word = String(word.dropFirst(width)) }
                current = word
            } else {
                current += " " + word
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}

/// The width tables fit: `COLUMNS` when set (a number of at least 40), else the terminal's when
/// standard output is one; nil (no limit) when output goes to a file or a pipe, so that scripts
/// reading the table get whole lines. `--wide` sets `unlimited`.
enum Terminal {
    nonisolated(unsafe) static var unlimited = false

    static var width: Int? {
        if unlimited { return nil }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap({ Int($0) }), columns >= 40 { return columns }
        guard isatty(1) != 0 else { return nil }
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 else { return nil }
        return Int(size.ws_col)
    }
}

/// Writes to standard error.
enum Console {
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
