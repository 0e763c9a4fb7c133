import RunFiles

/// Writes FIT files: a low-level message builder (definitions, data messages, compressed
/// timestamps, either byte order, developer fields) and `encode(track:)`, which writes a whole
/// activity file for fixtures and the run generator.
///
/// ```swift
/// var w = FITWriter()
/// w.define(local: 0, global: FITProfile.Message.record, fields: [.init(253, FITProfile.BaseType.uint32)])
/// w.write(local: 0, [.integer(1_000_000_000)])
/// let bytes = w.finish()
/// ```
public struct FITWriter: Sendable {
    /// One field of a definition message.
    public struct Field: Sendable, Equatable {
        public var number: UInt8
        public var size: UInt8
        public var baseType: UInt8
        /// `size` defaults to one value of the base type.
        public init(_ number: UInt8, _ baseType: UInt8, size: UInt8? = nil) {
            self.number = number
            self.baseType = baseType
            self.size = size ?? UInt8(FITProfile.BaseType.size(baseType))
        }
    }

    /// A developer field of a definition message (number, size, developer data index).
    public struct DeveloperField: Sendable, Equatable {
        public var number: UInt8
        public var size: UInt8
        public var developerIndex: UInt8
        public init(number: UInt8, size: UInt8, developerIndex: UInt8 = 0) {
            self.number = number; self.size = size; self.developerIndex = developerIndex
        }
    }

    /// A value of a data message, encoded per its field's base type.
    public enum Value: Sendable, Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
        /// The base type's invalid value (absent).
        case invalid
    }

    struct Definition: Sendable {
        var fields: [Field]
        var developerSize: Int
        var bigEndian: Bool
    }

    /// The data records written so far (no file header, no CRC).
    public private(set) var records: [UInt8] = []
    var definitions: [UInt8: Definition] = [:]

    public init() {}

    /// Writes a definition message for `local` (0–15).
    public mutating func define(
        local: UInt8, global: UInt16, fields: [Field], developerFields: [DeveloperField] = [], bigEndian: Bool = false
    ) {
        precondition(local < 16, "local message type is 0–15")
        records.append(0x40 | (developerFields.isEmpty ? 0 : 0x20) | local)
        records.append(0)
        records.append(bigEndian ? 1 : 0)
        if bigEndian {
            records.append(UInt8(global >> 8)); records.append(UInt8(global & 0xFF))
        } else {
            records.append(UInt8(global & 0xFF)); records.append(UInt8(global >> 8))
        }
        records.append(UInt8(fields.count))
        for f in fields { records += [f.number, f.size, f.baseType] }
        if !developerFields.isEmpty {
            records.append(UInt8(developerFields.count))
            for d in developerFields { records += [d.number, d.size, d.developerIndex] }
        }
        definitions[local] = Definition(
            fields: fields, developerSize: developerFields.reduce(0) { $0 + Int($1.size) }, bigEndian: bigEndian)
    }

    /// Writes a data message with a normal header. `values` follow the definition's fields;
    /// `developerBytes` are appended as the developer fields' contents (zero-filled to size).
    public mutating func write(local: UInt8, _ values: [Value], developerBytes: [UInt8] = []) {
        records.append(local & 0x0F)
        body(local: local, values, developerBytes: developerBytes)
    }

    /// Writes a data message with a compressed-timestamp header (local 0–3, offset 0–31 = the
    /// low five bits of the message's timestamp).
    public mutating func writeCompressed(local: UInt8, timeOffset: UInt8, _ values: [Value], developerBytes: [UInt8] = []) {
        precondition(local < 4, "compressed-timestamp headers address local types 0–3")
        records.append(0x80 | (local << 5) | (timeOffset & 0x1F))
        body(local: local, values, developerBytes: developerBytes)
    }

    /// Appends raw bytes (for tests that need a broken stream).

    mutating func body(local: UInt8, _ values: [Value], developerBytes: [UInt8]) {
        guard let definition = definitions[local] else {
            preconditionFailure("local message type \(local) written before its definition")
        }
        for (k, field) in definition.fields.enumerated() {
            let value = k < values.count ? values[k] : .invalid
            encode(value, field: field, bigEndian: definition.bigEndian)
        }
        var dev = Array(developerBytes.prefix(definition.developerSize))
        dev += [UInt8](repeating: 0, count: definition.developerSize - dev.count)
        records += dev
    }

    mutating func encode(_ value: Value, field: Field, bigEndian: Bool) {
        let size = Int(field.size)
        let type = field.baseType & 0x1F
        let unit = max(1, FITProfile.BaseType.size(field.baseType))
        var invalid: UInt64
        switch type {
        case 1: invalid = 0x7F
        case 3: invalid = 0x7FFF
        case 5: invalid = 0x7FFF_FFFF
        case 14: invalid = 0x7FFF_FFFF_FFFF_FFFF
        case 7, 10, 11, 12, 16: invalid = 0
        default: invalid = UInt64.max
        }
        var pattern: UInt64
        switch value {
        case .text(let s):
            var bytes = Array(s.utf8.prefix(size))
            bytes += [UInt8](repeating: 0, count: size - bytes.count)
            records += bytes
            return
        case .invalid:
            pattern = invalid
        case .integer(let v):
            pattern = UInt64(bitPattern: v)
        case .real(let d):
            switch type {
            case 8: pattern = UInt64(Float(d).bitPattern)
            case 9: pattern = d.bitPattern
            default: pattern = UInt64(bitPattern: Int64(d.rounded()))
            }
        }
        // Array fields: elements after the first are invalid; odd trailing bytes are 0xFF.
        var written = 0
        while written + unit <= size {
            var bytes: [UInt8] = []
            for i in 0..<unit { bytes.append(UInt8(truncatingIfNeeded: pattern >> (8 * UInt64(i)))) }
            if bigEndian { bytes.reverse() }
            records += bytes
            written += unit
            pattern = invalid
        }
        records += [UInt8](repeating: 0xFF, count: size - written)
    }

    /// The complete file: header (14 bytes with its CRC, or the legacy 12), records, file CRC.
    public func finish(headerSize: Int = 14, protocolVersion: UInt8 = 0x20, profileVersion: UInt16 = 2132) -> [UInt8] {
        var file: [UInt8] = [UInt8(headerSize), protocolVersion, UInt8(profileVersion & 0xFF), UInt8(profileVersion >> 8)]
        let size = UInt32(records.count)
        for i in 0..<4 { file.append(UInt8(truncatingIfNeeded: size >> (8 * UInt32(i)))) }
        file += Array(".FIT".utf8)
        if headerSize >= 14 {
            let crc = FITProfile.crc16(file)
            file += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            file += [UInt8](repeating: 0, count: headerSize - 14)
        }
        file += records
        let crc = FITProfile.crc16(file)
        file += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return file
    }
}

extension FITWriter {
    /// A complete FIT activity file for a track: file_id, timer start, records (1 s resolution),
    /// timer stop/start around each of `track.pauses`, laps (`track.laps` with their heart rates,
    /// trigger and intensity, or one lap for the session), one session with the device totals the
    /// track has (`deviceAscentMeters`, `deviceDescentMeters`, `deviceAverageHeartRate`,
    /// `deviceMaximumHeartRate`, `deviceMovingSeconds`, `deviceLapCount`: fields written only when set)
    /// and the activity message. Distances are the track's device distances when it has
    /// them, otherwise cumulative WGS84 step lengths. The session's elapsed and timer totals are
    /// the track's `deviceElapsedSeconds` and `deviceTimerSeconds` when set (a device whose own
    /// count differs from its timestamps), else from the times. `sport` is the FIT sport number.
    public static func encode(track: Track, sport: UInt8 = 1, utcOffsetSeconds: Int? = nil) -> [UInt8] {
        typealias B = FITProfile.BaseType
        let fit = { (epoch: Double) -> Int64 in Int64((epoch - FITProfile.epochOffset).rounded(.down)) }
        let semicircles = { (degrees: Double) -> Value in
            degrees.isFinite ? .integer(Int64((degrees / FITProfile.degreesPerSemicircle).rounded())) : .invalid
        }
        let scaled = { (v: Double, scale: Double, offset: Double) -> Value in
            v.isFinite ? .integer(Int64(((v + offset) * scale).rounded())) : .invalid
        }
        var w = FITWriter()
        let times = track.times.filter(\.isFinite)
        let first = times.first ?? FITProfile.epochOffset
        let last = times.last ?? first

        // Distances.
        var distances = [Double](repeating: .nan, count: track.count)
        var total = 0.0
        for i in 0..<track.count {
            if track.deviceDistance(at: i).isFinite {
                distances[i] = track.deviceDistance(at: i)
            } else if track.hasPositions {
                if i > 0 {
                    total += Geodesy.distance(
                        lat1: track.latitudes[i - 1], lon1: track.longitudes[i - 1], lat2: track.latitudes[i], lon2: track.longitudes[i])
                }
                distances[i] = total
            }
        }
        let lastDistance = distances.last(where: \.isFinite) ?? 0

        w.define(local: 0, global: FITProfile.Message.fileID, fields: [
            Field(0, B.enumeration), Field(1, B.uint16), Field(2, B.uint16), Field(4, B.uint32),
        ])
        w.write(local: 0, [.integer(4), .integer(255), .integer(0), .integer(fit(first))])

        w.define(local: 1, global: FITProfile.Message.event, fields: [
            Field(253, B.uint32), Field(0, B.enumeration), Field(1, B.enumeration),
        ])
        w.define(local: 2, global: FITProfile.Message.record, fields: [
            Field(253, B.uint32), Field(0, B.sint32), Field(1, B.sint32), Field(78, B.uint32),
            Field(3, B.uint8), Field(4, B.uint8), Field(5, B.uint32),
        ])
        w.write(local: 1, [.integer(fit(first)), .integer(0), .integer(0)])
        var pauseIndex = 0
        let pauses = track.pauses.sorted { $0.from < $1.from }
        for i in 0..<track.count {
            let t = track.times[i]
            while pauseIndex < pauses.count, t.isFinite, pauses[pauseIndex].from <= t {
                w.write(local: 1, [.integer(fit(pauses[pauseIndex].from)), .integer(0), .integer(4)])
                w.write(local: 1, [.integer(fit(pauses[pauseIndex].to)), .integer(0), .integer(0)])
                pauseIndex += 1
            }
            w.write(local: 2, [
                t.isFinite ? .integer(fit(t)) : .invalid,
                semicircles(track.latitudes[i]), semicircles(track.longitudes[i]),
                scaled(track.elevations[i], 5, 500),
                scaled(track.heartRate(at: i), 1, 0), scaled(track.cadence(at: i), 1, 0),
                scaled(distances[i], 100, 0),
            ])
        }
        w.write(local: 1, [.integer(fit(last)), .integer(0), .integer(4)])

        let paused = pauses.reduce(0.0) { $0 + max(0, $1.to - $1.from) }
        let elapsed = last - first
        // One lap for the whole session when the track has none, with the session's totals. The fields
        // beyond start, times and distance are written only when a lap has them (and the session's
        // totals only when the track has them), so a track without them writes the bytes it always did.
        let laps = track.laps.isEmpty
            ? [Lap(start: first, elapsedSeconds: track.deviceElapsedSeconds ?? elapsed, timerSeconds: track.deviceTimerSeconds ?? (elapsed - paused),
                   distanceMeters: lastDistance)]
            : track.laps
        let code = { (word: String?, table: [UInt8: String]) -> Value in
            // `position` is written as position_lap (4), the one of the four a watch's auto-lap at a place sets.
            if word == "position", table == Lap.fitTriggers { return .integer(4) }
            guard let word, let number = table.first(where: { $0.value == word })?.key else { return .invalid }
            return .integer(Int64(number))
        }
        var lapFields = [Field(253, B.uint32), Field(2, B.uint32), Field(7, B.uint32), Field(8, B.uint32), Field(9, B.uint32)]
        var lapExtras: [(Lap) -> Value] = []
        if laps.contains(where: { $0.averageHeartRate != nil }) {
            lapFields.append(Field(15, B.uint8)); lapExtras.append { scaled($0.averageHeartRate ?? .nan, 1, 0) }
        }
        if laps.contains(where: { $0.maximumHeartRate != nil }) {
            lapFields.append(Field(16, B.uint8)); lapExtras.append { scaled($0.maximumHeartRate ?? .nan, 1, 0) }
        }
        if laps.contains(where: { $0.trigger != nil }) {
            lapFields.append(Field(24, B.enumeration)); lapExtras.append { code($0.trigger, Lap.fitTriggers) }
        }
        if laps.contains(where: { $0.intensity != nil }) {
            lapFields.append(Field(23, B.enumeration)); lapExtras.append { code($0.intensity, Lap.fitIntensities) }
        }
        w.define(local: 3, global: FITProfile.Message.lap, fields: lapFields)
        for lap in laps {
            let start = lap.start ?? first
            w.write(local: 3, [
                .integer(fit(start + (lap.elapsedSeconds ?? 0))), .integer(fit(start)),
                scaled(lap.elapsedSeconds ?? .nan, 1000, 0), scaled(lap.timerSeconds ?? .nan, 1000, 0),
                scaled(lap.distanceMeters ?? .nan, 100, 0),
            ] + lapExtras.map { $0(lap) })
        }
        var sessionFields = [
            Field(253, B.uint32), Field(2, B.uint32), Field(5, B.enumeration), Field(7, B.uint32), Field(8, B.uint32), Field(9, B.uint32),
        ]
        var sessionValues: [Value] = [
            .integer(fit(last)), .integer(fit(first)), .integer(Int64(sport)),
            scaled(track.deviceElapsedSeconds ?? elapsed, 1000, 0), scaled(track.deviceTimerSeconds ?? (elapsed - paused), 1000, 0),
            scaled(lastDistance, 100, 0),
        ]
        let totals: [(UInt8, UInt8, Double?, Double)] = [
            (22, B.uint16, track.deviceAscentMeters, 1), (23, B.uint16, track.deviceDescentMeters, 1),
            (16, B.uint8, track.deviceAverageHeartRate, 1), (17, B.uint8, track.deviceMaximumHeartRate, 1),
            (59, B.uint32, track.deviceMovingSeconds, 1000), (26, B.uint16, track.deviceLapCount.map(Double.init), 1),
        ]
        for (number, type, value, scale) in totals {
            guard let value else { continue }
            sessionFields.append(Field(number, type)); sessionValues.append(scaled(value, scale, 0))
        }
        // An indoor track (`Track.indoor`) is a treadmill run: sub_sport 1.
        if track.indoor == true { sessionFields.append(Field(6, B.enumeration)); sessionValues.append(.integer(1)) }
        w.define(local: 4, global: FITProfile.Message.session, fields: sessionFields)
        w.write(local: 4, sessionValues)
        w.define(local: 5, global: FITProfile.Message.activity, fields: [
            Field(253, B.uint32), Field(1, B.uint16), Field(5, B.uint32),
        ])
        w.write(local: 5, [
            .integer(fit(last)), .integer(1),
            utcOffsetSeconds.map { .integer(fit(last) + Int64($0)) } ?? .invalid,
        ])
        return w.finish()
    }
}

extension FITWriter {
    /// A pool swim as a Garmin watch writes one: file_id, optionally a heart-rate record every
    /// `recordEvery` seconds (no position, no distance), one `length` message per length
    /// (`(seconds, active)`: an idle length is a rest at the wall) and a swimming session with
    /// the pool length. `start` in epoch seconds.
    public static func encodePoolSwim(
        start: Double, poolLengthMeters: Double, lengths: [(seconds: Double, active: Bool)], recordEvery: Double? = nil
    ) -> [UInt8] {
        typealias B = FITProfile.BaseType
        let fit = { (epoch: Double) -> Value in .integer(Int64((epoch - FITProfile.epochOffset).rounded(.down))) }
        let total = lengths.reduce(0) { $0 + $1.seconds }
        var w = FITWriter()
        w.define(local: 0, global: FITProfile.Message.fileID, fields: [Field(0, B.enumeration), Field(4, B.uint32)])
        w.write(local: 0, [.integer(4), fit(start)])
        if let every = recordEvery, every > 0 {
            w.define(local: 1, global: FITProfile.Message.record, fields: [Field(253, B.uint32), Field(3, B.uint8)])
            var k = 0.0
            while k * every <= total {
                w.write(local: 1, [fit(start + k * every), .integer(120 + Int64(k) % 40)])
                k += 1
            }
        }
        w.define(local: 2, global: FITProfile.Message.length, fields: [
            Field(253, B.uint32), Field(2, B.uint32), Field(3, B.uint32), Field(4, B.uint32), Field(12, B.enumeration),
        ])
        var at = start
        for length in lengths {
            let ms = Value.integer(Int64((length.seconds * 1000).rounded()))
            w.write(local: 2, [fit(at + length.seconds), fit(at), ms, ms, .integer(length.active ? 1 : 0)])
            at += length.seconds
        }
        w.define(local: 3, global: FITProfile.Message.session, fields: [
            Field(253, B.uint32), Field(2, B.uint32), Field(5, B.enumeration), Field(7, B.uint32), Field(8, B.uint32),
            Field(44, B.uint16),
        ])
        let ms = Value.integer(Int64((total * 1000).rounded()))
        w.write(local: 3, [fit(at), fit(start), .integer(5), ms, ms, .integer(Int64((poolLengthMeters * 100).rounded()))])
        return w.finish()
    }
}
