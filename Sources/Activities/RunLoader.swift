import Foundation

/// Finds run files in a folder and reads each with the reader its extension names.
public enum RunLoader {
    /// Run-file suffixes (lower case, longest first wins) and the format each means. To add a
    /// reader: add its suffixes here (`.tcx`, `.fit`, `.gpx.gz`, ...) and a case in `load`.
    static let suffixes: [(suffix: String, format: String)] = [
        (".gpx", "gpx"), (".gpx.gz", "gpx"),
        (".tcx", "tcx"), (".tcx.gz", "tcx"),
        (".fit", "fit"), (".fit.gz", "fit"),
        (".json", "json"),
    ]

    /// Which reader handles a path: by extension, case-insensitive. nil = not a run file.
    public static func format(ofPath path: String) -> String? {
        let name = (path as NSString).lastPathComponent.lowercased()
        var best: (length: Int, format: String)?
        for entry in suffixes where name.hasSuffix(entry.suffix) && name.count > entry.suffix.count {
            if entry.suffix.count > (best?.length ?? 0) { best = (entry.suffix.count, entry.format) }
        }
        return best?.format
    }

    /// Walks a directory recursively (hidden files and folders skipped, symbolic links followed
    /// once) and returns the run files and the other files, as paths relative to the directory,
    /// each list sorted by bytes so the order is the same on every machine.
    public static func discover(directory: String) throws -> (runs: [String], ignored: [String]) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw ActivityError.unreadable(path: directory, reason: "no such directory")
        }
        guard isDirectory.boolValue else {
            throw ActivityError.unreadable(path: directory, reason: "not a directory")
        }
        var runs: [String] = []
        var ignored: [String] = []
        var visited: Set<String> = []

        func walk(_ absolute: String, _ relative: String) throws {
            let real = (absolute as NSString).resolvingSymlinksInPath
            guard visited.insert(real).inserted else { return }
            let entries: [String]
            do {
                entries = try fm.contentsOfDirectory(atPath: absolute)
            } catch {
                throw ActivityError.unreadable(path: absolute, reason: "cannot list the directory: \((error as NSError).localizedDescription)")
            }
            for entry in entries where !entry.hasPrefix(".") {
                let path = absolute + "/" + entry
                let rel = relative.isEmpty ? entry : relative + "/" + entry
                var dir: ObjCBool = false
                guard fm.fileExists(atPath: path, isDirectory: &dir) else {
                    ignored.append(rel)  // a dangling symbolic link
                    continue
                }
                if dir.boolValue {
                    try walk(path, rel)
                } else if format(ofPath: entry) != nil {
                    runs.append(rel)
                } else {
                    ignored.append(rel)
                }
            }
        }

        let root = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try walk(root, "")
        let byBytes: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return (runs.sorted(by: byBytes), ignored.sorted(by: byBytes))
    }

    /// Reads one file and summarises it: one `RunSummary` per run in the file (GPX and JSON give
    /// one). `id` is the run's id (the path relative to the folder evaluated).
    /// `hasher` (optional) is given every byte of the file as read (the cache's content hash),
    /// so that the file is read once.
    public static func load(
        path: String, id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int, hasher: ContentHasher? = nil
    ) throws -> [RunSummary] {
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
        switch format(ofPath: path) {
        case "gpx":
            let track: Track
            if path.lowercased().hasSuffix(".gz") {
                let bytes = try Gzip.decompress(try wholeFile(), source: path)
                track = try GPXReader.read(bytes: bytes, source: path)
            } else {
                track = try GPXReader.read(path: path, hasher: hasher)
            }
            return [analyzer.summarize(track, id: id, zoneOffsetSeconds: zoneOffsetSeconds)]
        case "tcx":
            return summarize(try TCXReader.read(bytes: try unzippedFile(), source: path), id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        case "fit":
            return summarize(try FITReader.read(bytes: try unzippedFile(), source: path), id: id, analyzer: analyzer, zoneOffsetSeconds: zoneOffsetSeconds)
        case "json":
            if hasher == nil { return [try SummaryReader.read(path: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)] }
            return [try SummaryReader.read(data: Data(try wholeFile()), source: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)]
        default:
            let known = suffixes.map(\.suffix).joined(separator: ", ")
            throw ActivityError.notFormat(path: path, format: "run", reason: "unknown extension; run files end in \(known)")
        }
    }

    /// One summary per track; a file holding several runs gives ids `path#1`, `path#2`, ...
    static func summarize(_ tracks: [Track], id: String, analyzer: RunAnalyzer, zoneOffsetSeconds: Int) -> [RunSummary] {
        if tracks.count == 1 { return [analyzer.summarize(tracks[0], id: id, zoneOffsetSeconds: zoneOffsetSeconds)] }
        return tracks.enumerated().map { analyzer.summarize($1, id: "\(id)#\($0 + 1)", zoneOffsetSeconds: zoneOffsetSeconds) }
    }
}
