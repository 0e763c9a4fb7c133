import Foundation

/// Reads GPX 1.0 and 1.1 files into a `Track`.
///
/// A hand-written byte scanner, not an XML library: the file streams through a fixed buffer
/// (`ChunkedFileReader`), tags are found with `memchr`, numbers and timestamps are parsed straight
/// from the bytes, and no `String` is made per element. A file of `splitThreshold` bytes or more
/// (read without a hasher) is scanned by two threads, with exactly the result of one (`GPXSplit`). It checks what it must to catch broken
/// files (every element closed by its own name, nothing cut off) but is lenient where real devices
/// are sloppy:
/// - a UTF-8 byte-order mark and whitespace before `<?xml` are skipped;
/// - elements are matched by local name, so `<gpxtpx:hr>`, `<ns3:hr>`, `<hr>` and a prefix the
///   file never declared all read the same (namespaces are not checked);
/// - comments, processing instructions and a DOCTYPE (with its internal subset) are skipped;
///   entities are never expanded: only the five predefined ones and character references are
///   decoded, in names; `&custom;` stays as written;
/// - anything after the root element's end is ignored.
///
/// What counts: every `trk/trkseg/trkpt` (all tracks of the file form one run, every `trkseg`
/// starts a segment), with `ele`, `time` and the Garmin TrackPointExtension `hr`/`cad` (also
/// Cluetrust `heartrate`/`cadence`) found anywhere inside the point; a file whose points have no
/// heart rate may carry SportTracks' `<st:heartRateTrack>` of time-stamped `<st:heartRate>`
/// samples instead, given to the points by time (`GPXScanner.assign`). Routes and waypoints are not
/// a recorded run and are ignored. A point without a usable position is dropped and counted by
/// reason. OpenTracks writes a pause as a point at latitude 100 and a resume at 200: those are
/// dropped as `pause marker` and end the segment, so no distance or timer time is counted across
/// the pause.
public enum GPXReader {
    /// Bytes read from the file at a time.
    public static let defaultChunkSize = 1 << 17

    /// Reads a GPX file. `chunkSize` is the read size (tests make it tiny to exercise boundaries).
    /// `hasher` (optional) is given every byte of the file, including any after the root
    /// element, which is then read to the end.
    /// A file of at least `splitThreshold` bytes read without a `hasher` is scanned by two threads
    /// (`GPXSplit`), with exactly the result of one.
    public static func read(path: String, chunkSize: Int = defaultChunkSize, hasher: ContentHasher? = nil) throws -> Track {
        try read(path: path, chunkSize: chunkSize, hasher: hasher, split: .automatic)
    }

    /// `read(path:chunkSize:hasher:)`, with the split chosen (tests force one) and a wrong merge
    /// injected (tests show it would be caught).
    static func read(path: String, chunkSize: Int = defaultChunkSize, hasher: ContentHasher? = nil, split: GPXSplit,
                     fault: GPXSplitFault = .none, statistics: GPXSplitStatistics? = nil) throws -> Track {
        let (fd, size) = try FileBytes.openRegular(path: path)
        var at: Int?
        var rest: Int?
        if hasher == nil {
            switch split {
            case .automatic: at = size >= splitThreshold ? size / 2 : nil
            case .automaticAbove(let threshold): at = size >= threshold ? size / 2 : nil
            case .never: at = nil
            case .at(let offset): at = offset > 0 && offset < size ? offset : nil
            case .sharing(let offset, let from):
                at = offset > 0 && offset < size ? offset : nil
                rest = from
            }
        }
        guard let at else {
            let reader = ChunkedFileReader(openedDescriptor: fd, size: size, path: path, chunkSize: chunkSize, hasher: hasher)
            return try scanFile(reader, source: path, hashing: hasher != nil) { ChunkedFileReader.lineNumber(path: path, offset: $0) }
        }
        defer { close(fd) }
        return try scanSplit(fd: fd, size: size, path: path, chunkSize: chunkSize, split: at, rest: rest, fault: fault, statistics: statistics)
    }

    /// Reads a gzip-compressed GPX file, inflating it as it is scanned (its inflated bytes are never
    /// all in memory). `hasher` (optional) is given every byte of the file as stored.
    public static func read(gzipPath path: String, chunkSize: Int = defaultChunkSize, hasher: ContentHasher? = nil) throws -> Track {
        let reader = try ChunkedFileReader(gzipPath: path, chunkSize: chunkSize, hasher: hasher)
        return try scanFile(reader, source: path, hashing: hasher != nil) { ChunkedFileReader.lineNumber(gzipPath: path, offset: $0) }
    }

    /// Scans a file; when `hashing`, reads it to the end afterwards (the scan stops at </gpx>; the
    /// hash covers the whole file).
    private static func scanFile(_ reader: ChunkedFileReader, source: String, hashing: Bool, line: (Int) -> Int?) throws -> Track {
        let track = try scan(reader, source: source, line: line)
        if hashing {
            var used = 0
            while let window = try reader.next(consumed: used) { used = window.count }
        }
        return track
    }

    /// Reads GPX from memory; `source` names it in errors.
    public static func read(bytes: [UInt8], source: String, chunkSize: Int? = nil) throws -> Track {
        try bytes.withUnsafeBytes { try read(bytes: $0, source: source, chunkSize: chunkSize) }
    }

    /// Reads GPX from memory; `source` names it in errors. `chunkSize` nil scans the buffer in one
    /// pass; a size streams it through the chunked reader like a file.
    public static func read(bytes: UnsafeRawBufferPointer, source: String, chunkSize: Int? = nil) throws -> Track {
        let line: (Int) -> Int? = { offset in
            guard let base = bytes.baseAddress else { return 1 }
            return XMLBytes.lineNumber(in: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, offset: offset)
        }
        if let chunkSize {
            return try scan(ChunkedFileReader(bytes: bytes, chunkSize: chunkSize), source: source, line: line)
        }
        var scanner = GPXScanner(source: source)
        defer { scanner.release() }
        do {
            if let base = bytes.baseAddress {
                _ = try scanner.feed(base.assumingMemoryBound(to: UInt8.self), count: bytes.count, final: true, offset: 0)
            } else {
                var empty: UInt8 = 0
                _ = try scanner.feed(&empty, count: 0, final: true, offset: 0)
            }
        } catch let failure as GPXScanner.Failure {
            throw failure.error(source: source, line: line)
        }
        return try scanner.finish()
    }

    private static func scan(_ reader: ChunkedFileReader, source: String, line: (Int) -> Int?) throws -> Track {
        var scanner = GPXScanner(source: source)
        defer { scanner.release() }
        do {
            var used = 0
            var reserved = reader.totalBytes == nil
            let budget = MemoryBudget.current
            while let window = try reader.next(consumed: used) {
                guard let n = try scanner.feed(window.bytes, count: window.count, final: window.isFinal, offset: window.offset) else { break }
                used = n
                if !reserved, let total = reader.totalBytes {
                    reserved = scanner.reserveForRest(scanned: window.offset + n, totalBytes: total)
                }
                // Once a window (128 KiB): the points' columns hold their room in the process's
                // budget, twice what they fill (a column that grows holds its copy too for a moment).
                try budget?.hold(scanner.track.memoryBytes * 2, as: .points)
            }
        } catch let failure as GPXScanner.Failure {
            throw failure.error(source: source, line: line)
        }
        return try scanner.finish()
    }
}
