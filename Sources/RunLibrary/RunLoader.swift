import Foundation
import RunAnalysis
import RunFiles

/// Reads one run file with the reader its format names and summarises what it holds: the place
/// where a reader meets the analyzer.
public enum RunLoader {
    /// Reads one file and summarises it: one `RunSummary` per run in the file (GPX and JSON give
    /// one). `id` is the run's id (the path relative to the folder evaluated).
    /// `hasher` (optional) is given every byte of the file as read (the cache's content hash),
    /// so that the file is read once. `zoneOffsetSeconds` gives local dates to runs whose file
    /// carried no UTC offset; nil leaves every local date to the caller.
    ///
    /// The reading holds its memory in `budget` (shared by every thread reading files): the file's
    /// bytes when read whole, what gzip inflates, the points and their analysis. A file that needs
    /// more than the whole budget is refused with `ActivityError.tooLarge`; one that needs room others
    /// hold waits for them and is read again alone.
    public static func load(
        path: String, id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int?, hasher: ContentHasher? = nil,
        budget: MemoryBudget = .shared
    ) throws -> [RunSummary] {
        guard let kind = RunFormat.of(path: path) else {
            let known = RunFormat.suffixes.map(\.suffix).joined(separator: ", ")
            throw ActivityError.notFormat(path: path, format: "run", reason: "unknown extension; run files end in \(known)")
        }
        // A stat for the first share (a file read whole holds its size); the reader checks again what it opens.
        var status = stat()
        let size = stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : 0
        // GPX streams (a .gpx.gz too, inflated as it is scanned); the others are read whole.
        let device = kind.format == .json ? deviceJSON(path: path) : nil
        let whole = kind.format == .tcx || kind.format == .fit || kind.format == .sml || device != nil || (kind.format == .json && hasher != nil)
        do {
            return try budget.reading(path, initialBytes: whole ? min(size, Gzip.defaultMaximumBytes) : 0) {
                // A second reading (alone) hashes the file again from its first byte.
                hasher?.reset()
                return try loadInBudget(kind, path: path, size: size, id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds, hasher: hasher)
            }
        } catch ActivityError.notFormat(let errorPath, let format, let reason) {
            throw ActivityError.notFormat(path: errorPath, format: format, reason: reason + contentHint(path: path, kind: kind))
        }
    }

    /// " (its content looks like a zip archive)" when the file's first bytes are not what its name
    /// says (a zip named `.gpx.gz`, a FIT file named `.gpx`); empty when they are, or cannot be read.
    static func contentHint(path: String, kind: RunFormat.Kind) -> String {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var prefix = [UInt8](repeating: 0, count: 512)
        let count = prefix.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 512) }
        guard count > 0, let looks = RunFormat.looksLike(prefix[0..<count]) else { return "" }
        let expected = kind.gzipped ? "gzip data" : kind.format.lookedLike
        // A .fit.gz or .tcx.gz that is not gzip is read as it is: its format is the one that counts.
        if looks == expected || (kind.gzipped && kind.format != .gpx && looks == kind.format.lookedLike) { return "" }
        return " (its content looks like \(looks))"
    }

    /// Memory for the points read (twice what their columns fill: a growing column holds its copy
    /// for a moment) and for their analysis (distances, times, the profile and its passes: five
    /// numbers a point live at once, measured at about three on a 10-million-point file), held
    /// before the analyzer allocates it.
    /// Drawing the route (the report) takes six more numbers a point.
    static func holdAnalysis(_ tracks: [Track], analyzer: RunAnalyzer) throws {
        guard let budget = MemoryBudget.current else { return }
        let points = tracks.reduce(0) { $0 + $1.count }
        try budget.adjust(tracks.reduce(0) { $0 + $1.memoryBytes } * 2, as: .points)
        try budget.hold(points * (analyzer.includeRoutes ? 88 : 40), as: .analysis)
    }

    private static func loadInBudget(
        _ kind: RunFormat.Kind, path: String, size: Int, id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int?, hasher: ContentHasher?
    ) throws -> [RunSummary] {
        /// The whole file, hashed on the way.
        func wholeFile(maximumBytes: Int = FileBytes.maximumBytes) throws -> [UInt8] {
            let bytes = try FileBytes.read(path: path, maximumBytes: maximumBytes)
            hasher?.update(bytes)
            return bytes
        }
        if kind.format == .json, deviceJSON(path: path) != nil {
            // A device's log (Suunto, Polar Flow), not a summary: read whole, as big as a run file may be.
            let decoded = try decode(bytes: try wholeFile(), format: .json, source: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)
            return try analyse(decoded, id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        }
        switch kind.format {
        case .gpx:
            // GPX streams from the file (a .gpx.gz is inflated as it is scanned): never held whole.
            let track = kind.gzipped ? try GPXReader.read(gzipPath: path, hasher: hasher) : try GPXReader.read(path: path, hasher: hasher)
            try holdAnalysis([track], analyzer: analyzer)
            return [analyzer.summarize(track, id: id, zoneOffsetSeconds: zoneOffsetSeconds)]
        case .json where hasher == nil:
            // The decoder's tree: many times the file's size (a summary is a few hundred bytes).
            try MemoryBudget.current?.hold(min(size, SummaryReader.maximumBytes) * 16, as: .points)
            let summary = try SummaryReader.read(path: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)
            return try analyse(.summaries([summary]), id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        case .json, .tcx, .fit, .sml:
            // Decoded first, then analysed: the file's bytes are gone by then (see `decode`).
            let decoded = try decode(
                bytes: try wholeFile(maximumBytes: kind.format == .json ? SummaryReader.maximumBytes : FileBytes.maximumBytes),
                format: kind.format, source: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)
            return try analyse(decoded, id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        case .suuntoJSON, .polarJSON, .appleHealth:
            throw notBySuffix(kind.format, source: path)
        }
    }

    /// The device format of a `.json` file by its first bytes (`DeviceJSON.kind`), nil for a run summary
    /// or when it cannot be read (the summary reader then says why).
    static func deviceJSON(path: String) -> RunFormat? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var prefix = [UInt8](repeating: 0, count: 64)
        let count = prefix.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 64) }
        guard count > 0 else { return nil }
        return DeviceJSON.kind(prefix[0..<count])
    }

    /// Formats no suffix names (they are found by content, or in an archive).
    static func notBySuffix(_ format: RunFormat, source: String) -> ActivityError {
        .notFormat(path: source, format: format.rawValue, reason: "read from a .json file or an archive, never by its name")
    }

    /// The one format dispatch over a run file's bytes: a file read whole (TCX, FIT, a JSON summary
    /// being hashed) and an upload (`BadgeEngine.summaries(bytes:fileName:)`) go through here, so a
    /// file and its bytes give the same runs and the same errors. Gzip'd bytes are inflated first
    /// (a JSON summary is read as it is, as its file is). The memory each format needs is held in
    /// the current budget, when the caller reads in one (`MemoryBudget.reading`).
    public static func load(
        bytes: [UInt8], format: RunFormat, source: String, id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int?
    ) throws -> [RunSummary] {
        try analyse(decode(bytes: bytes, format: format, source: source, id: id, zoneOffsetSeconds: zoneOffsetSeconds),
                    id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
    }

    /// What a run file's bytes give: the runs of a JSON summary as they are, or tracks to analyse.
    enum Decoded {
        case summaries([RunSummary])
        case tracks([Track])
    }

    /// `load`'s first half: the bytes read (inflated when gzip'd), not yet analysed. A file read
    /// whole is decoded in a call of its own so that its bytes are let go before the analysis, whose
    /// columns then reuse their memory instead of touching fresh pages (a 100k-record FIT file: 2.3 MB,
    /// a sixth of the process's page faults).
    static func decode(bytes: [UInt8], format: RunFormat, source: String, id: String, zoneOffsetSeconds: Int?) throws -> Decoded {
        /// The bytes, inflated when they are gzip (whatever the name says, as the files are read).
        func inflated() throws -> [UInt8] { Gzip.isGzip(bytes) ? try Gzip.decompress(bytes, source: source) : bytes }
        let tracks: [Track]
        switch format {
        case .json, .suuntoJSON, .polarJSON:
            if let device = DeviceJSON.kind(bytes[0..<min(bytes.count, 64)]) {
                // The parsed tree at its measured cost (`JSONText.treeBytes`: from 2 to over 90 times the
                // text), and an eighth more for the points it gives (a sample's point is 7 numbers, its
                // object in the tree 720 bytes and more).
                let tree = JSONText.treeBytes(bytes)
                try MemoryBudget.current?.hold(tree + tree / 8, as: .points)
                tracks = try DeviceJSON.read(bytes: bytes, format: device, source: source)
                break
            }
            guard format == .json else { throw ActivityError.notFormat(path: source, format: format.rawValue, reason: "no device log's first key") }
            // The decoder's tree: many times the file's size (a summary is a few hundred bytes).
            try MemoryBudget.current?.hold(min(bytes.count, SummaryReader.maximumBytes) * 16, as: .points)
            return .summaries([try SummaryReader.read(data: Data(bytes), source: source, id: id, zoneOffsetSeconds: zoneOffsetSeconds)])
        case .sml:
            let bytes = try inflated()
            try MemoryBudget.current?.hold(bytes.count, as: .points)
            tracks = [try SMLReader.read(bytes: bytes, source: source)]
        case .appleHealth:
            throw notBySuffix(format, source: source)
        case .gpx:
            tracks = [try GPXReader.read(bytes: try inflated(), source: source)]
        case .tcx:
            let bytes = try inflated()
            // The points' room before the parse makes them: a track point is 130 bytes of TCX or more.
            try MemoryBudget.current?.hold(bytes.count / 2, as: .points)
            tracks = try TCXReader.read(bytes: bytes, source: source)
        case .fit:
            let bytes = try inflated()
            // A record can be 13 bytes of FIT (a compressed timestamp header and a position) and
            // 7 columns of 8 bytes, copied as they grow.
            try MemoryBudget.current?.hold(bytes.count * 6, as: .points)
            tracks = try FITReader.read(bytes: bytes, source: source)
        }
        return .tracks(tracks)
    }

    /// `load`'s second half: the summaries of what `decode` gave.
    static func analyse(_ decoded: Decoded, id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int?) throws -> [RunSummary] {
        switch decoded {
        case .summaries(let summaries):
            // No track: the measures a summary's totals give (its age grades).
            guard !analyzer.measures.isEmpty else { return summaries }
            return summaries.map { summary in
                var summary = summary
                summary.measures = analyzer.measures(ofSummary: summary)
                return summary
            }
        case .tracks(let tracks):
            try holdAnalysis(tracks, analyzer: analyzer)
            return summarize(tracks, id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        }
    }

    /// One summary per track; a file holding several runs gives ids `path#1`, `path#2`, ...
    static func summarize(_ tracks: [Track], id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int?) -> [RunSummary] {
        if tracks.count == 1 { return [analyzer.summarize(tracks[0], id: id, zoneOffsetSeconds: zoneOffsetSeconds)] }
        return tracks.enumerated().map { analyzer.summarize($1, id: "\(id)#\($0 + 1)", zoneOffsetSeconds: zoneOffsetSeconds) }
    }
}
