import Foundation
import RunFiles

/// Reads one run file with the reader its format names and summarises what it holds: the place
/// where a reader meets the analyzer.
public enum RunLoader {
    /// Reads one file and summarises it: one `RunSummary` per run in the file (GPX and JSON give
    /// one). `id` is the run's id (the path relative to the folder evaluated).
    /// `hasher` (optional) is given every byte of the file as read (the cache's content hash),
    /// so that the file is read once. `zoneOffsetSeconds` gives local dates to runs whose file
    /// carried no UTC offset; nil leaves every local date to the caller.
    public static func load(
        path: String, id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int?, hasher: ContentHasher? = nil
    ) throws -> [RunSummary] {
        guard let kind = RunFormat.of(path: path) else {
            let known = RunFormat.suffixes.map(\.suffix).joined(separator: ", ")
            throw ActivityError.notFormat(path: path, format: "run", reason: "unknown extension; run files end in \(known)")
        }
        /// The whole file, hashed on the way.
        func wholeFile() throws -> [UInt8] {
            let bytes = try FileBytes.read(path: path)
            hasher?.update(bytes)
            return bytes
        }
        /// The whole file, unzipped if it is gzip (as `TCXReader`/`FITReader.read(path:)` take it).
        func unzippedFile() throws -> [UInt8] {
            let bytes = try wholeFile()
            return Gzip.isGzip(bytes) ? try Gzip.decompress(bytes, source: path) : bytes
        }
        switch kind.format {
        case .gpx:
            let track: Track
            if kind.gzipped {
                let bytes = try Gzip.decompress(try wholeFile(), source: path)
                track = try GPXReader.read(bytes: bytes, source: path)
            } else {
                track = try GPXReader.read(path: path, hasher: hasher)
            }
            return [analyzer.summarize(track, id: id, zoneOffsetSeconds: zoneOffsetSeconds)]
        case .tcx:
            return summarize(try TCXReader.read(bytes: try unzippedFile(), source: path), id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        case .fit:
            return summarize(try FITReader.read(bytes: try unzippedFile(), source: path), id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        case .json:
            if hasher == nil { return [try SummaryReader.read(path: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)] }
            return [try SummaryReader.read(data: Data(try wholeFile()), source: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)]
        }
    }

    /// One summary per track; a file holding several runs gives ids `path#1`, `path#2`, ...
    static func summarize(_ tracks: [Track], id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int?) -> [RunSummary] {
        if tracks.count == 1 { return [analyzer.summarize(tracks[0], id: id, zoneOffsetSeconds: zoneOffsetSeconds)] }
        return tracks.enumerated().map { analyzer.summarize($1, id: "\(id)#\($0 + 1)", zoneOffsetSeconds: zoneOffsetSeconds) }
    }
}
