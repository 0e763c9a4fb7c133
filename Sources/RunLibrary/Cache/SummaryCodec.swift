import Foundation
import RunFiles

/// The cache's binary form of a file's summaries, written and read by hand from one table of fields
/// (`runFields`, and one table per record type): each entry names a stored property, its key path (and,
/// behind a property wrapper, its setter) and how its value is written, and the same entry reads it back.
/// Nothing goes through `Codable`: a warm read of 1,000 runs spent a quarter of its time in the keyed
/// containers of `RunSummary.init(from:)` over the generic binary form this replaces.
///
/// A property the tables leave out is not cached, so a test (`SummaryCodecTests`) holds the tables to
/// the types through `Mirror`: every stored property of `RunSummary` and of each record type is in its
/// table or named in `notStored` with the reason, and a summary with every field filled in comes back
/// equal.
///
/// Layout, little-endian: the 4-byte magic `BSR1`, the run count (UInt32), then each run's fields in
/// the table's order. A value: a float as its 8 Double bytes; an integer as 8 bytes (Int64); a boolean
/// as one byte, 0 or 1; a string as its UTF-8 length (UInt32) and bytes; an optional as a byte 0
/// (none) or 1 and the value; an array as its count (UInt32) and the elements; a record as its fields
/// in its table's order. Bump `RunCache.summaryVersion` when a table changes.
///
/// Reading checks every length against the bytes left, every boolean and presence byte, and that the
/// bytes end where the last run does: anything else is `Malformed` (the file is then read again), never a trap.
public enum SummaryCodec {
    static let magic: [UInt8] = Array("BSR1".utf8)

    /// Why bytes could not be read back as summaries, and where.
    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    /// The bytes of `runs`.
    public static func encode(_ runs: [RunSummary]) -> Data {
        var writer = Writer()
        writer.bytes.reserveCapacity(1024 * max(1, runs.count))
        writer.bytes += magic
        writer.u32(UInt32(clamping: runs.count))
        for run in runs { summary.write(run, &writer) }
        return Data(writer.bytes)
    }

    /// The summaries `encode` wrote.
    public static func decode(_ data: Data) throws -> [RunSummary] {
        try data.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw)
            guard raw.count >= magic.count, raw.prefix(magic.count).elementsEqual(magic) else {
                throw Malformed(description: "binary summaries: no BSR1 magic")
            }
            reader.offset = magic.count
            // A run takes more than one byte: a count beyond the bytes left is junk, not a reservation to make.
            let count = Int(try reader.u32())
            guard count <= reader.remaining else { throw reader.malformed("a run count beyond the bytes") }
            var runs: [RunSummary] = []
            runs.reserveCapacity(reservation(count, &reader, RunSummary.self))
            for _ in 0..<count {
                let run = try summary.read(&reader)
                if let problem = implausible(run) { throw reader.malformed(problem) }
                runs.append(run)
            }
            guard reader.offset == raw.count else { throw reader.malformed("bytes after the last run") }
            return runs
        }
    }

    /// Room to reserve for `count` values of `T` the bytes declare: never more than the bytes left
    /// could fill at one value a byte, counted in the memory the values take (a run is 648 bytes in
    /// memory, one byte at least in a blob: a blob declaring 4 billion runs reserved count x 648
    /// bytes); the array grows past it, as the values are actually read.
    static func reservation<T>(_ count: Int, _ reader: inout Reader, _: T.Type) -> Int {
        min(count, max(16, reader.remaining / max(1, MemoryLayout<T>.stride)))
    }

    /// What makes a run read back no run badgectl wrote: offsets beyond a time zone's, a negative
    /// point or lap count, a start that is not a number. Such bytes are `Malformed` (the file is read
    /// again), never figures that reach an integer conversion or a date.
    static func implausible(_ run: RunSummary) -> String? {
        let zones = -18 * 3600...18 * 3600
        for (name, offset) in [("utcOffsetSeconds", run.utcOffsetSeconds), ("localOffsetSeconds", run.localOffsetSeconds)] {
            if let offset, !zones.contains(offset) { return "\(name) \(offset) is no time zone's" }
        }
        if run.points < 0 { return "a point count of \(run.points)" }
        if let laps = run.deviceLaps, !(0...Plausible.maximumLaps).contains(laps) { return "a lap count of \(laps)" }
        if let start = run.startEpochSeconds, !start.isFinite { return "a start that is not a number" }
        if !run.distanceMeters.isFinite { return "a distance that is not a number" }
        return nil
    }

    // MARK: - The tables

    /// Stored properties of `RunSummary` the summaries' bytes leave out, with the reason (the test checks
    /// that every other one is in `runFields`).
    static let notStored: [String: String] = [
        "measures": "kept per file content in the cache's measure sets (MeasureCodec), under their own keys",
    ]

    /// Every stored property of a run, in the order they are written: `RunSchema.fields` (the one
    /// table of a run's fields, through their `RunFieldAccess`), then what only the cache keeps.
    static let runFields: [Field<RunSummary>] = RunSchema.fields.compactMap { field in
        guard let access = field.access, let name = field.property else { return nil }
        return Field(name, access)
    } + [
        Field("floatingStart", \.floatingStart, optional(boolean)),
        Field("route", \.route, optional(route.value)),
    ]

    static let summary = Record(blank: RunSummary(id: "", format: "", distanceMeters: 0), fields: runFields)

    static let checkpoint = Record(blank: Checkpoint(badge: "", name: "", distanceMeters: 0, latitude: nil, longitude: nil, elapsedSeconds: nil), fields: [
        Field("badge", \.badge, string),
        Field("name", \.name, string),
        Field("distanceMeters", \.distanceMeters, float),
        Field("latitude", \.latitude, optional(float), set: { $0.latitude = $1 }),
        Field("longitude", \.longitude, optional(float), set: { $0.longitude = $1 }),
        Field("elapsedSeconds", \.elapsedSeconds, optional(float), set: { $0.elapsedSeconds = $1 }),
    ])

    static let split = Record(blank: Split(index: 0, distanceMeters: 0, elapsedSeconds: 0, cumulativeSeconds: 0, partial: false), fields: [
        Field("index", \.index, integer),
        Field("distanceMeters", \.distanceMeters, float),
        Field("elapsedSeconds", \.elapsedSeconds, float),
        Field("cumulativeSeconds", \.cumulativeSeconds, float),
        Field("paceSecondsPerKilometre", \.paceSecondsPerKilometre, float),
        Field("partial", \.partial, boolean),
    ])

    static let effort = Record(blank: Effort(name: "", distanceMeters: 0, elapsedSeconds: 0, startDistanceMeters: 0, startElapsedSeconds: 0), fields: [
        Field("name", \.name, string),
        Field("distanceMeters", \.distanceMeters, float),
        Field("elapsedSeconds", \.elapsedSeconds, float),
        Field("startDistanceMeters", \.startDistanceMeters, float),
        Field("startElapsedSeconds", \.startElapsedSeconds, float),
        Field("paceSecondsPerKilometre", \.paceSecondsPerKilometre, float),
    ])

    static let lap = Record(blank: RunLap(index: 0), fields: [
        Field("index", \.index, integer),
        Field("startElapsedSeconds", \.startElapsedSeconds, optional(float), set: { $0.startElapsedSeconds = $1 }),
        Field("distanceMeters", \.distanceMeters, optional(float), set: { $0.distanceMeters = $1 }),
        Field("elapsedSeconds", \.elapsedSeconds, optional(float), set: { $0.elapsedSeconds = $1 }),
        Field("timerSeconds", \.timerSeconds, optional(float), set: { $0.timerSeconds = $1 }),
        Field("paceSecondsPerKilometre", \.paceSecondsPerKilometre, optional(float), set: { $0.paceSecondsPerKilometre = $1 }),
        Field("averageHeartRate", \.averageHeartRate, optional(float), set: { $0.averageHeartRate = $1 }),
        Field("maximumHeartRate", \.maximumHeartRate, optional(float), set: { $0.maximumHeartRate = $1 }),
        Field("trigger", \.trigger, optional(string), set: { $0.trigger = $1 }),
        Field("intensity", \.intensity, optional(string), set: { $0.intensity = $1 }),
    ])

    static let elevation = Record(blank: Elevation(gainMeters: 0, lossMeters: 0, minMeters: 0, maxMeters: 0), fields: [
        Field("gainMeters", \.gainMeters, float),
        Field("lossMeters", \.lossMeters, float),
        Field("minMeters", \.minMeters, float),
        Field("maxMeters", \.maxMeters, float),
    ])

    static let sensor = Record(blank: SensorStats(average: 0, maximum: 0), fields: [
        Field("average", \.average, float),
        Field("maximum", \.maximum, float),
        Field("weighting", \.weighting, text(SensorStats.Weighting.self)),
    ])

    static let dropped = Record(blank: Dropped(reason: "", count: 0), fields: [
        Field("reason", \.reason, string),
        Field("count", \.count, integer),
    ])

    static let route = Record(blank: RouteTrace(latitudes: [], longitudes: [], speedsMetersPerSecond: [], segmentStarts: []), fields: [
        Field("latitudes", \.latitudes, array(float)),
        Field("longitudes", \.longitudes, array(float)),
        Field("speedsMetersPerSecond", \.speedsMetersPerSecond, array(optional(float))),
        Field("segmentStarts", \.segmentStarts, array(integer)),
    ])

    // MARK: - How values are written and read

    /// How one type of value is written and read back.
    struct Value<T>: Sendable {
        let write: @Sendable (T, inout Writer) -> Void
        let read: @Sendable (inout Reader) throws -> T
    }

    /// One stored property of `Root`: its name (as `Mirror` labels it, without a property wrapper's `_`),
    /// written from and read into its key path.
    struct Field<Root>: Sendable {
        let name: String
        let write: @Sendable (Root, inout Writer) -> Void
        let read: @Sendable (inout Root, inout Reader) throws -> Void

        init<T>(_ name: String, _ path: WritableKeyPath<Root, T> & Sendable, _ value: Value<T>) {
            self.name = name
            write = { root, writer in value.write(root[keyPath: path], &writer) }
            if let offset = MemoryLayout<Root>.offset(of: path) {
                // A stored property: the value is assigned where the key path would put it, without the
                // key path's runtime (a third of the decoding's time went to it).
                read = { root, reader in
                    let decoded = try value.read(&reader)
                    withUnsafeMutableBytes(of: &root) { bytes in
                        guard let base = bytes.baseAddress else { return }
                        (base + offset).assumingMemoryBound(to: T.self).pointee = decoded
                    }
                }
            } else {
                // A computed property: no offset to write at.
                read = { root, reader in root[keyPath: path] = try value.read(&reader) }
            }
        }

        /// The field `access` names (`RunSchema.fields`), with the binary value of its type.
        init(_ name: String, _ access: RunFieldAccess) where Root == RunSummary {
            switch access {
            case .string(let path): self.init(name, path, string)
            case .optionalString(let path): self.init(name, path, optional(string))
            case .integer(let path): self.init(name, path, integer)
            case .optionalInteger(let path): self.init(name, path, optional(integer))
            case .float(let path): self.init(name, path, float)
            case .optionalFloat(let path): self.init(name, path, optional(float))
            case .optionalBoolean(let path), .flag(let path): self.init(name, path, optional(boolean))
            case .checkpoints(let path): self.init(name, path, array(checkpoint.value))
            case .splits(let path): self.init(name, path, array(split.value))
            case .efforts(let path): self.init(name, path, array(effort.value))
            case .laps: self.init(name, \.laps, array(lap.value), set: { $0.laps = $1 })
            case .dropped(let path): self.init(name, path, array(dropped.value))
            case .elevation(let path): self.init(name, path, optional(elevation.value))
            case .sensor(let path): self.init(name, path, optional(sensor.value))
            }
        }

        /// A property behind a property wrapper (`NullEncoded`, `EmptyIfAbsent`), `set` assigning it: its key
        /// path goes through the wrapper's getter and setter with a write-back buffer allocated for every
        /// write, where the setter is a plain call. (The field-by-field test reads each back by its name.)
        init<T>(_ name: String, _ path: KeyPath<Root, T> & Sendable, _ value: Value<T>, set: @escaping @Sendable (inout Root, T) -> Void) {
            self.name = name
            write = { root, writer in value.write(root[keyPath: path], &writer) }
            read = { root, reader in set(&root, try value.read(&reader)) }
        }
    }

    /// A record type's fields, read into a copy of `blank`.
    struct Record<Root: Sendable>: Sendable {
        let blank: Root
        let fields: [Field<Root>]

        func write(_ root: Root, _ writer: inout Writer) {
            for field in fields { field.write(root, &writer) }
        }
        func read(_ reader: inout Reader) throws -> Root {
            var root = blank
            try fields.withUnsafeBufferPointer { fields in
                for index in fields.indices { try fields[index].read(&root, &reader) }
            }
            return root
        }
        var value: Value<Root> { Value(write: write, read: read) }
    }

    static let float = Value<Double>(write: { $1.u64($0.bitPattern) }, read: { Double(bitPattern: try $0.u64()) })
    static let integer = Value<Int>(write: { $1.u64(UInt64(bitPattern: Int64($0))) }, read: { Int(Int64(bitPattern: try $0.u64())) })
    static let boolean = Value<Bool>(write: { $1.bytes.append($0 ? 1 : 0) }, read: { try $0.flag() })
    static let string = Value<String>(write: { $1.string($0) }, read: { try $0.string() })

    /// A byte 0 for nil, else 1 and the value.
    static func optional<T>(_ wrapped: Value<T>) -> Value<T?> {
        Value(write: { value, writer in
            guard let value else { return writer.bytes.append(0) }
            writer.bytes.append(1)
            wrapped.write(value, &writer)
        }, read: { reader in try reader.flag() ? try wrapped.read(&reader) : nil })
    }

    /// The count, then each element.
    static func array<T>(_ element: Value<T>) -> Value<[T]> {
        Value(write: { values, writer in
            writer.u32(UInt32(clamping: values.count))
            for value in values { element.write(value, &writer) }
        }, read: { reader in
            // Every element takes a byte at least.
            let count = Int(try reader.u32())
            guard count <= reader.remaining else { throw reader.malformed("an array count beyond the bytes") }
            var values: [T] = []
            values.reserveCapacity(reservation(count, &reader, T.self))
            for _ in 0..<count { values.append(try element.read(&reader)) }
            return values
        })
    }

    /// An enum by its raw text; a text that names no case is malformed.
    static func text<T: RawRepresentable & Sendable>(_: T.Type) -> Value<T> where T.RawValue == String {
        Value(write: { $1.string($0.rawValue) }, read: { reader in
            guard let value = T(rawValue: try reader.string()) else { throw reader.malformed("an unknown \(T.self)") }
            return value
        })
    }

    // MARK: - Bytes

    struct Writer {
        var bytes: [UInt8] = []
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func string(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                u32(UInt32(clamping: utf8.count))
                bytes += utf8
            }
        }
    }

    /// A cursor over the bytes; every read is bounds-checked and throws past the end.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        var remaining: Int { bytes.count - offset }

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        func malformed(_ what: String) -> Malformed { Malformed(description: "binary summaries: \(what) at byte \(offset)") }

        @inline(__always)
        mutating func u32() throws -> UInt32 {
            guard remaining >= 4 else { throw malformed("unexpected end") }
            defer { offset += 4 }
            return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        @inline(__always)
        mutating func u64() throws -> UInt64 {
            guard remaining >= 8 else { throw malformed("unexpected end") }
            defer { offset += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        /// A boolean or presence byte: 0 or 1, anything else is malformed.
        @inline(__always)
        mutating func flag() throws -> Bool {
            guard remaining >= 1 else { throw malformed("unexpected end") }
            let byte = bytes[offset]
            guard byte <= 1 else { throw malformed("a flag byte of \(byte)") }
            offset += 1
            return byte == 1
        }
        mutating func string() throws -> String {
            let count = Int(try u32())
            guard count <= remaining else { throw malformed("a string beyond the bytes") }
            defer { offset += count }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]), as: UTF8.self)
        }
    }
}
