import Foundation

/// Sorts facts lines by their bytes (as `LC_ALL=C sort` and Spark's string order do) in bounded
/// memory: lines are held until `bufferBytes`, then sorted and written to a temporary file (a run);
/// `finish` merges the runs (k-way, at most `fanIn` at once, 64 KiB read buffers) and hands the
/// lines over in order. The temporary folder is
/// removed when done.
public final class FactsSorter {
    /// Byte order of two lines.
    public static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    private let bufferBytes: Int
    private var buffer: [String] = []
    private var buffered = 0
    private var folder: URL?
    private var runs: [URL] = []

    /// At most this many runs are merged at once (more are first merged into longer runs), so the
    /// merge holds at most this many read buffers.
    let fanIn: Int

    public init(bufferBytes: Int = 32 << 20, fanIn: Int = 64) {
        self.bufferBytes = max(bufferBytes, 1)
        self.fanIn = max(fanIn, 2)
    }

    deinit { if let folder { try? FileManager.default.removeItem(at: folder) } }

    /// How many sorted runs went to temporary files so far.
    public var spilled: Int { runs.count }

    public func add(_ line: String) throws {
        buffer.append(line)
        buffered += line.utf8.count + 48
        if buffered >= bufferBytes { try spill() }
    }

    private func spill() throws {
        guard !buffer.isEmpty else { return }
        buffer.sort(by: FactsSorter.precedes)
        let folder = try self.folder ?? {
            let made = FileManager.default.temporaryDirectory.appendingPathComponent("badgectl-league-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            self.folder = made
            return made
        }()
        let file = folder.appendingPathComponent("run-\(runs.count)")
        var data = Data()
        data.reserveCapacity(buffered)
        for line in buffer {
            data.append(contentsOf: line.utf8)
            data.append(0x0A)
        }
        try data.write(to: file)
        runs.append(file)
        buffer = []
        buffered = 0
    }


    /// Hands every line over in byte order.
    public func finish(_ body: (String) -> Void) throws {
        if runs.isEmpty {
            buffer.sort(by: FactsSorter.precedes)
            for line in buffer { body(line) }
            buffer = []
            return
        }
        try spill()
        while runs.count > fanIn, let folder {
            let merged = folder.appendingPathComponent("run-\(UUID().uuidString)")
            try Data().write(to: merged)
            let handle = try FileHandle(forWritingTo: merged)
            var data = Data()
            try FactsSorter.merge(Array(runs.prefix(fanIn))) { line in
                data.append(contentsOf: line.utf8)
                data.append(0x0A)
                if data.count >= FactsSorter.chunkBytes {
                    handle.write(data)
                    data.removeAll(keepingCapacity: true)
                }
            }
            handle.write(data)
            try handle.close()
            for run in runs.prefix(fanIn) { try? FileManager.default.removeItem(at: run) }
            runs = Array(runs.dropFirst(fanIn)) + [merged]
        }
        try FactsSorter.merge(runs, body)
    }

    /// The bytes a run is read (and a merged run written) by at a time.
    static let chunkBytes = 64 << 10

    /// The lines of sorted `files`, merged.
    private static func merge(_ files: [URL], _ body: (String) -> Void) throws {
        var readers = try files.map { try RunReader(url: $0) }
        var heads = readers.indices.map { readers[$0].next() }
        while true {
            var smallest: Int?
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if let current = smallest, let best = heads[current], !FactsSorter.precedes(head, best) { continue }
                smallest = index
            }
            guard let index = smallest, let line = heads[index] else { break }
            body(line)
            heads[index] = readers[index].next()
        }
    }

    /// Reads one run file line by line, `chunkBytes` at a time.
    private struct RunReader {
        let handle: FileHandle
        var pending: [UInt8] = []
        var start = 0
        var ended = false

        init(url: URL) throws { handle = try FileHandle(forReadingFrom: url) }

        mutating func next() -> String? {
            while true {
                if let newline = pending[start...].firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[start..<newline], as: UTF8.self)
                    start = newline + 1
                    return line
                }
                if ended { return nil }
                pending.removeSubrange(0..<start)
                start = 0
                let chunk = handle.readData(ofLength: FactsSorter.chunkBytes)
                if chunk.isEmpty { ended = true; try? handle.close() } else { pending.append(contentsOf: chunk) }
            }
        }
    }
}
